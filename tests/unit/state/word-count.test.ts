/** A box's word count (state/word-count.svelte.ts): counted after a pause, stale answers dropped. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COUNT_DELAY_MS, WordCount } from '../../../src/lib/state/word-count.svelte.ts';

/** A counter whose answers the test releases, one per call, in any order. */
function heldCounter() {
  const calls: { text: string; answer: (n: number | undefined) => void }[] = [];
  const count = (text: string) =>
    new Promise<number | undefined>((answer) => calls.push({ text, answer }));
  return { calls, count };
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('WordCount', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('says "counting" after a paste, counts once the text stops changing, then shows it', async () => {
    const { calls, count } = heldCounter();
    const counter = new WordCount(count);
    const text = words(2_000);
    counter.update(text);
    expect(counter.shown).toEqual({ state: 'counting' });
    expect(counter.pending).toBe(true);
    await vi.advanceTimersByTimeAsync(COUNT_DELAY_MS - 1);
    expect(calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((c) => c.text)).toEqual([text]);
    calls[0]!.answer(2_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(counter.shown).toEqual({ state: 'counted', words: 2_000 });
    expect(counter.pending).toBe(false);
  });

  it('asks once for a burst of changes, for the last text', async () => {
    const { calls, count } = heldCounter();
    const counter = new WordCount(count);
    for (let n = 1; n <= 5; n++) {
      counter.update(words(n));
      await vi.advanceTimersByTimeAsync(COUNT_DELAY_MS / 2);
    }
    await vi.advanceTimersByTimeAsync(COUNT_DELAY_MS);
    expect(calls.map((c) => c.text)).toEqual([words(5)]);
  });

  it('drops an answer for a text the box no longer holds', async () => {
    const { calls, count } = heldCounter();
    const counter = new WordCount(count);
    counter.update(words(3_000));
    await vi.advanceTimersByTimeAsync(COUNT_DELAY_MS);
    counter.update(words(10));
    await vi.advanceTimersByTimeAsync(COUNT_DELAY_MS);
    calls[1]!.answer(10);
    calls[0]!.answer(3_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(counter.shown).toEqual({ state: 'counted', words: 10 });
  });

  it('keeps the last count on screen during a small edit, not after a large one', async () => {
    const { calls, count } = heldCounter();
    const counter = new WordCount(count);
    counter.update(words(100));
    await vi.advanceTimersByTimeAsync(COUNT_DELAY_MS);
    calls[0]!.answer(100);
    await vi.advanceTimersByTimeAsync(0);
    counter.update(`${words(100)} more`);
    expect(counter.pending).toBe(true);
    expect(counter.shown).toEqual({ state: 'counted', words: 100 });
    counter.update(words(2_000));
    expect(counter.shown).toEqual({ state: 'counting' });
  });

  it('counts an empty box as none at once, and says when the worker could not count', async () => {
    const { calls, count } = heldCounter();
    const counter = new WordCount(count);
    counter.update('   ');
    expect(counter.shown).toEqual({ state: 'counted', words: 0 });
    expect(calls).toHaveLength(0);
    counter.update('some words here');
    await vi.advanceTimersByTimeAsync(COUNT_DELAY_MS);
    calls[0]!.answer(undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(counter.shown).toEqual({ state: 'unknown' });
  });

  it('does not count the same text twice', async () => {
    const { calls, count } = heldCounter();
    const counter = new WordCount(count);
    counter.update('a b c');
    await vi.advanceTimersByTimeAsync(COUNT_DELAY_MS);
    calls[0]!.answer(3);
    await vi.advanceTimersByTimeAsync(0);
    counter.update('a b c');
    await vi.advanceTimersByTimeAsync(COUNT_DELAY_MS);
    expect(calls).toHaveLength(1);
    expect(counter.pending).toBe(false);
  });
});
