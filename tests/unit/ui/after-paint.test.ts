import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { afterPaint } from '../../../src/lib/ui/after-paint.ts';

describe('afterPaint', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.runOnlyPendingTimers();
    vi.useRealTimers();
  });

  it('runs one draw per task, in the order queued, never in the caller’s task', () => {
    const drawn: string[] = [];
    afterPaint(() => drawn.push('histogram'));
    afterPaint(() => drawn.push('scatter'));
    afterPaint(() => drawn.push('calibration scatter'));
    expect(drawn).toEqual([]);
    vi.advanceTimersToNextTimer();
    expect(drawn).toEqual(['histogram']);
    vi.advanceTimersToNextTimer();
    expect(drawn).toEqual(['histogram', 'scatter']);
    vi.advanceTimersToNextTimer();
    expect(drawn).toEqual(['histogram', 'scatter', 'calibration scatter']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('drops a draw cancelled before its turn (a chart changed again, or gone)', () => {
    const drawn: number[] = [];
    afterPaint(() => drawn.push(1));
    const cancel = afterPaint(() => drawn.push(2));
    afterPaint(() => drawn.push(3));
    cancel();
    vi.runAllTimers();
    expect(drawn).toEqual([1, 3]);
    // Cancelling after it ran does nothing.
    cancel();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('goes on after a draw that throws', () => {
    const drawn: string[] = [];
    afterPaint(() => {
      throw new Error('canvas detached');
    });
    afterPaint(() => drawn.push('next'));
    expect(() => vi.advanceTimersToNextTimer()).toThrow('canvas detached');
    vi.advanceTimersToNextTimer();
    expect(drawn).toEqual(['next']);
  });
});
