/**
 * What the run list reads while a run moves and when it stops: a paused run tells no time left
 * (nothing moves until someone resumes it), and a run that ends says so to the page before its
 * stored status changes, so the list never shows a finished run with Pause and Cancel.
 */
import { describe, expect, it } from 'vitest';
import {
  PauseController,
  runBatch,
  type BatchProgress,
  type BatchStore,
} from '../../../src/lib/datasets/batch.ts';
import type { CaseRow } from '../../../src/lib/rows/formats.ts';
import type { RunStatus, StoredRunResult } from '../../../src/lib/storage/schema.ts';

const rows = (n: number): CaseRow[] =>
  Array.from({ length: n }, (_, i) => ({
    row: i + 1,
    kind: 'case',
    human: {},
    input: { source: `Source ${i}.`, summary: `Summary ${i}.` },
  }));

class Store implements BatchStore {
  readonly events: string[];
  constructor(events: string[]) {
    this.events = events;
  }
  async putResult(_result: StoredRunResult): Promise<boolean> {
    return true;
  }
  async setStatus(_id: string, status: RunStatus): Promise<void> {
    this.events.push(`status:${status}`);
  }
}

describe('the state a run shows', () => {
  it('a run that ends is done on the page before its stored status changes', async () => {
    const events: string[] = [];
    await runBatch({
      runId: 'r',
      rows: rows(3),
      total: 3,
      store: new Store(events),
      scoreRow: async () => [],
      onProgress: (p) => events.push(`progress:${p.state}`),
    });
    const done = events.indexOf('progress:done');
    expect(done).toBeGreaterThan(-1);
    expect(done).toBeLessThan(events.indexOf('status:done'));
    // Nothing after it says running again.
    expect(events.slice(done + 1).some((e) => e === 'progress:running')).toBe(false);
  });

  it('a paused run has no rate and no time left', async () => {
    let now = 0;
    const pause = new PauseController();
    const progress: BatchProgress[] = [];
    let release!: () => void;
    const second = new Promise<void>((resolve) => (release = resolve));
    const run = runBatch({
      runId: 'r',
      rows: rows(4),
      total: 4,
      store: new Store([]),
      clock: () => now,
      pause,
      onProgress: (p) => progress.push(p),
      scoreRow: async (row) => {
        now += 1000;
        if (row.row === 2) {
          pause.pause();
          release();
        }
        return [];
      },
    });
    await second;
    await expect.poll(() => progress.at(-1)?.state).toBe('paused');
    // While running, after a row or two, it had a rate; paused, none.
    expect(progress.some((p) => p.state === 'running' && p.etaSec !== null)).toBe(true);
    for (const p of progress.filter((p) => p.state === 'paused' || p.state === 'pausing')) {
      expect(p.etaSec).toBeNull();
      expect(p.ratePerSec).toBeNull();
    }
    pause.resume();
    expect((await run).status).toBe('done');
  });
});
