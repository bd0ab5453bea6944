import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import {
  createBatchRun,
  offlineRowScorer,
  pageRowScorer,
  PauseController,
  planBatch,
  runBatch,
  runExecutor,
  runStoredBatch,
  splitMetrics,
  type BatchProgress,
  type BatchStore,
  type RowScorer,
} from '../../../src/lib/datasets/batch.ts';
import type { CaseRow, DatasetRow, PredictionRow } from '../../../src/lib/rows/formats.ts';
import { scoreTinyEvalRow } from '../../../src/lib/datasets/tinyeval.ts';
import { planJudgeRun } from '../../../src/lib/metrics/judge/plan.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import { computeMetrics } from '../../../src/lib/metrics/offline.ts';
import { DEFAULT_SETTINGS, type MetricSettings } from '../../../src/lib/metrics/settings.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';
import { estimateCost } from '../../../src/lib/llm/prices.ts';
import { saveDataset } from '../../../src/lib/storage/datasets.ts';
import { getRun, listRunResults, pendingRows } from '../../../src/lib/storage/runs.ts';
import { StorageFullError } from '../../../src/lib/storage/quota.ts';
import type { RunStatus, StoredRunResult } from '../../../src/lib/storage/schema.ts';
import { NO_LOGPROB_CAPS, ScriptedJudge, oracle } from '../judge/scripted-judge.ts';
import { fakeResult } from '../metrics/scored.ts';

function caseRow(row: number, summary = `Summary number ${row}.`): CaseRow {
  return {
    row,
    kind: 'case',
    group: `doc${Math.ceil(row / 2)}`,
    input: {
      source: `The source text of row ${row}. It says several things.`,
      summary,
      reference: `The reference summary of row ${row}.`,
    },
    human: { overall: row % 5 },
  };
}

function caseRows(n: number): CaseRow[] {
  return Array.from({ length: n }, (_, i) => caseRow(i + 1));
}

function ok(row: number): MetricResult[] {
  return [fakeResult({ id: 'rouge-l', status: 'ok', score: row / 100 })];
}

class MemoryStore implements BatchStore {
  readonly results = new Map<number, StoredRunResult>();
  readonly statuses: Array<[RunStatus, string | null | undefined]> = [];
  failOn = new Set<number>();

  async putResult(result: StoredRunResult): Promise<boolean> {
    await Promise.resolve();
    if (this.failOn.has(result.row)) {
      throw new StorageFullError(
        `The results of row ${result.row} were not saved; the run was paused so that nothing is lost.`,
      );
    }
    if (this.results.has(result.row)) return false;
    this.results.set(result.row, result);
    return true;
  }

  async setStatus(_runId: string, status: RunStatus, message?: string | null): Promise<void> {
    this.statuses.push([status, message]);
  }
}

const tick = (ms = 0) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves when `predicate` holds, checking every few milliseconds. */
async function until(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await tick(1);
  }
}

describe('runBatch', () => {
  it('scores every row once and stores each as soon as it finishes', async () => {
    const store = new MemoryStore();
    const calls = new Map<number, number>();
    const stored: number[] = [];
    const progress: BatchProgress[] = [];
    const scoreRow: RowScorer = async (row) => {
      calls.set(row.row, (calls.get(row.row) ?? 0) + 1);
      // Later rows finish first: rows are stored in the order they finish.
      await tick(20 - row.row * 2);
      return ok(row.row);
    };
    const outcome = await runBatch({
      runId: 'r',
      rows: caseRows(8),
      total: 8,
      scoreRow,
      store,
      concurrency: 3,
      onRow: (r) => stored.push(r.row),
      onProgress: (p) => progress.push(p),
    });
    expect(outcome).toEqual({ status: 'done', done: 8, failed: 0, total: 8, scored: 8 });
    expect([...calls.values()]).toEqual(Array(8).fill(1));
    expect(stored.slice(0, 3)).toEqual([3, 2, 1]);
    expect([...store.results.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(store.results.get(4)).toMatchObject({ runId: 'r', row: 4, status: 'done' });
    expect(Math.max(...progress.map((p) => p.inFlight))).toBe(3);
    expect(progress.at(-1)).toMatchObject({ done: 8, total: 8, state: 'done', etaSec: 0 });
    expect(store.statuses.map((s) => s[0])).toEqual(['running', 'done']);
  });

  it('resumes after a crash mid-row: the unfinished row is scored again, no row twice', async () => {
    const store = new MemoryStore();
    const started: number[] = [];
    const crash = new AbortController();
    // Session 1: row 4 never finishes before the "crash" (the process dies; modelled by a cancel).
    const first = await runBatch({
      runId: 'r',
      rows: caseRows(6),
      total: 6,
      store,
      signal: crash.signal,
      scoreRow: async (row, signal) => {
        started.push(row.row);
        if (row.row === 4) {
          setTimeout(() => crash.abort(), 5);
          await new Promise((_, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason)),
          );
        }
        return ok(row.row);
      },
    });
    expect(first).toMatchObject({ status: 'cancelled', done: 3, scored: 3 });
    expect([...store.results.keys()]).toEqual([1, 2, 3]);
    expect(store.statuses.at(-1)![0]).toBe('cancelled');

    // Session 2: fed only the rows without results, as pendingRows does.
    const second = await runBatch({
      runId: 'r',
      rows: caseRows(6).filter((r) => !store.results.has(r.row)),
      total: 6,
      alreadyDone: store.results.size,
      store,
      scoreRow: async (row) => {
        started.push(row.row);
        return ok(row.row);
      },
    });
    expect(second).toEqual({ status: 'done', done: 6, failed: 0, total: 6, scored: 3 });
    expect(started).toEqual([1, 2, 3, 4, 4, 5, 6]);
    expect([...store.results.keys()]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('skips a row number it has already seen and a row the store already has', async () => {
    const store = new MemoryStore();
    store.results.set(2, {
      runId: 'r',
      row: 2,
      status: 'done',
      results: [],
      finishedAt: 0,
      elapsedMs: 0,
    });
    const scored: number[] = [];
    const outcome = await runBatch({
      runId: 'r',
      rows: [caseRow(1), caseRow(1), caseRow(2), caseRow(3)],
      total: 3,
      alreadyDone: 1,
      store,
      scoreRow: async (row) => {
        scored.push(row.row);
        return ok(row.row);
      },
    });
    expect(scored).toEqual([1, 2, 3]);
    // Row 2 was refused by the store: not counted twice.
    expect(outcome).toMatchObject({ done: 3, scored: 2 });
  });

  it('stores a row whose scoring threw as failed, with the reason, and goes on', async () => {
    const store = new MemoryStore();
    const outcome = await runBatch({
      runId: 'r',
      rows: caseRows(3),
      total: 3,
      store,
      scoreRow: async (row) => {
        if (row.row === 2) throw new Error('the summary is not text');
        return ok(row.row);
      },
    });
    expect(outcome).toMatchObject({ status: 'done', done: 3, failed: 1 });
    expect(store.results.get(2)).toMatchObject({
      status: 'failed',
      error: 'the summary is not text',
      results: [],
    });
  });

  it('pauses (no new rows start, rows in flight finish), resumes and finishes', async () => {
    const store = new MemoryStore();
    const pause = new PauseController();
    const started: number[] = [];
    const states: string[] = [];
    const run = runBatch({
      runId: 'r',
      rows: caseRows(6),
      total: 6,
      store,
      concurrency: 2,
      pause: pause.signal,
      onProgress: (p) => states.push(p.state),
      scoreRow: async (row) => {
        started.push(row.row);
        if (row.row === 2) pause.pause();
        await tick(5);
        return ok(row.row);
      },
    });
    await until(() => states.includes('paused'));
    const startedWhilePaused = started.length;
    await tick(30);
    expect(started.length).toBe(startedWhilePaused);
    expect(started).toEqual([1, 2]);
    expect(store.results.size).toBe(2);
    expect(store.statuses.map((s) => s[0])).toContain('paused');
    pause.resume();
    const outcome = await run;
    expect(outcome).toMatchObject({ status: 'done', done: 6 });
    expect(store.statuses.map((s) => s[0])).toEqual(['running', 'paused', 'running', 'done']);
    expect(states).toContain('pausing');
  });

  it('cancels while paused', async () => {
    const store = new MemoryStore();
    const pause = new PauseController();
    pause.pause();
    const cancel = new AbortController();
    const run = runBatch({
      runId: 'r',
      rows: caseRows(3),
      total: 3,
      store,
      pause,
      signal: cancel.signal,
      scoreRow: async (row) => ok(row.row),
    });
    await tick(5);
    cancel.abort();
    expect(await run).toMatchObject({ status: 'cancelled', done: 0 });
    expect(store.statuses.at(-1)![0]).toBe('cancelled');
  });

  it('ends on a cancel while pausing, once the row in flight finishes, without a resume', async () => {
    const store = new MemoryStore();
    const pause = new PauseController();
    const cancel = new AbortController();
    const outcome = await runBatch({
      runId: 'r',
      rows: caseRows(3),
      total: 3,
      store,
      pause,
      signal: cancel.signal,
      // A scorer that does not listen to the signal: its row completes and is stored.
      scoreRow: async (row) => {
        pause.pause();
        cancel.abort();
        await tick(5);
        return ok(row.row);
      },
    });
    expect(outcome).toMatchObject({ status: 'cancelled', done: 1, scored: 1 });
    expect([...store.results.keys()]).toEqual([1]);
    expect(pause.paused).toBe(true);
    expect(store.statuses.at(-1)![0]).toBe('cancelled');
  });

  it('stops as paused with a message naming the row when storage is full; nothing lost', async () => {
    const store = new MemoryStore();
    store.failOn.add(3);
    const aborted: number[] = [];
    const outcome = await runBatch({
      runId: 'r',
      rows: caseRows(10),
      total: 10,
      store,
      concurrency: 2,
      scoreRow: async (row, signal) => {
        await tick(row.row === 4 ? 30 : 2);
        if (signal.aborted) {
          aborted.push(row.row);
          throw signal.reason;
        }
        return ok(row.row);
      },
    });
    expect(outcome.status).toBe('paused');
    expect(outcome.message).toMatch(/results of row 3 were not saved/u);
    expect(outcome.error).toBeInstanceOf(StorageFullError);
    expect(store.results.has(3)).toBe(false);
    expect(aborted).toEqual([4]);
    expect(store.statuses.at(-1)).toEqual(['paused', outcome.message]);
    expect(outcome.done).toBe(store.results.size);
  });

  it('stops as paused when the rows cannot be read', async () => {
    async function* broken() {
      yield caseRow(1);
      throw new Error('IndexedDB went away');
    }
    const store = new MemoryStore();
    const outcome = await runBatch({
      runId: 'r',
      rows: broken(),
      total: 5,
      store,
      scoreRow: async (row) => ok(row.row),
    });
    expect(outcome).toMatchObject({ status: 'paused', done: 1 });
    expect(outcome.message).toMatch(/Reading the data set's rows failed \(IndexedDB went away\)/u);
  });

  it('measures rate and time left over a moving window', async () => {
    let now = 0;
    const store = new MemoryStore();
    const progress: BatchProgress[] = [];
    await runBatch({
      runId: 'r',
      rows: caseRows(10),
      total: 10,
      store,
      clock: () => now,
      rateWindowMs: 5000,
      onProgress: (p) => progress.push(p),
      scoreRow: async (row) => {
        now += row.row <= 5 ? 1000 : 2000;
        return ok(row.row);
      },
    });
    const after = (done: number) => progress.filter((p) => p.done === done && p.inFlight === 0)[0];
    // Rows finish at 1, 2, 3, 4, 5, 7, 9, 11 … seconds.
    expect(after(3).ratePerSec).toBeCloseTo(1, 12);
    expect(after(3).etaSec).toBeCloseTo(7, 12);
    // At 11 s the window [6 s, 11 s] holds rows finished at 7, 9 and 11 s: 3 / 5 s.
    expect(after(8).ratePerSec).toBeCloseTo(0.6, 12);
    expect(after(8).etaSec).toBeCloseTo(2 / 0.6, 12);
    expect(progress[0].ratePerSec).toBeNull();
    expect(progress[0].etaSec).toBeNull();
  });
});

describe('planBatch', () => {
  const sample = caseRow(1).input;

  it('multiplies the per-row judge plan by the rows, G-Eval steps once', () => {
    const metrics = ['rouge-l', 'bleu', 'geval-coherence'] as const;
    const plan = planJudgeRun(['geval-coherence'], sample, DEFAULT_JUDGE_SETTINGS, NO_LOGPROB_CAPS);
    const calls = plan.rounds.flatMap((r) => r.calls);
    const shared = calls.filter((c) => /cached per criterion/u.test(c.purpose));
    // Guards the planner's wording that planBatch relies on.
    expect(shared).toHaveLength(1);
    const perRow = calls.filter((c) => !shared.includes(c));
    const sum = (list: typeof calls, f: (c: (typeof calls)[number]) => number) =>
      list.reduce((s, c) => s + f(c), 0);
    const batch = planBatch(100, [...metrics], {
      plan,
      provider: 'openai',
      model: 'gpt-4o-mini',
    });
    const input =
      sum(shared, (c) => c.estimatedInputTokens) + 100 * sum(perRow, (c) => c.estimatedInputTokens);
    const output =
      sum(shared, (c) => c.estimatedOutputTokens) +
      100 * sum(perRow, (c) => c.estimatedOutputTokens);
    expect(batch).toMatchObject({
      rows: 100,
      metrics: 3,
      scores: 300,
      offlineMetrics: ['rouge-l', 'bleu'],
      judgeMetrics: ['geval-coherence'],
      llmCalls: sum(shared, (c) => c.httpCalls) + 100 * sum(perRow, (c) => c.httpCalls),
      estimatedTokens: { input, output, total: input + output },
      costKnown: true,
      executor: 'page',
    });
    expect(batch.estimatedCost).toBeCloseTo(
      estimateCost({ input, output }, 'openai', 'gpt-4o-mini')!,
      12,
    );
    expect(batch.llmCalls).toBeGreaterThan(100);
  });

  it('says the cost is unknown for a model without a price, and zero for offline runs', () => {
    const plan = planJudgeRun(['vagueness'], sample, DEFAULT_JUDGE_SETTINGS);
    const unknown = planBatch(10, ['vagueness'], {
      plan,
      provider: 'openai-compatible',
      model: 'my-local',
    });
    expect(unknown.estimatedCost).toBeUndefined();
    expect(unknown.costKnown).toBe(false);
    expect(unknown.notes.join(' ')).toMatch(/No price for openai-compatible\/my-local/u);
    const offline = planBatch(1000, ['rouge-1', 'coherence'], undefined, DEFAULT_SETTINGS);
    expect(offline).toMatchObject({
      scores: 2000,
      llmCalls: 0,
      estimatedCost: 0,
      costKnown: true,
      executor: 'worker',
    });
    const noPlan = planBatch(5, ['vagueness']);
    expect(noPlan.costKnown).toBe(false);
  });
});

describe('where metrics run', () => {
  it('keeps judge metrics and provider-embedding coherence in the page', () => {
    const provider: MetricSettings = {
      ...DEFAULT_SETTINGS,
      backends: { ...DEFAULT_SETTINGS.backends, embedding: { kind: 'provider', model: 'e' } },
    };
    expect(splitMetrics(['rouge-l', 'coherence', 'vagueness'], DEFAULT_SETTINGS)).toEqual({
      worker: ['rouge-l', 'coherence'],
      page: ['vagueness'],
    });
    expect(splitMetrics(['rouge-l', 'coherence'], provider)).toEqual({
      worker: ['rouge-l'],
      page: ['coherence'],
    });
    expect(runExecutor(['rouge-l', 'entity-density'], DEFAULT_SETTINGS)).toBe('worker');
    expect(runExecutor(['rouge-l', 'coherence'], provider)).toBe('page');
  });
});

describe('row scorers', () => {
  it('offline: case rows get the offline metrics of the run only', async () => {
    const score = offlineRowScorer({
      metrics: ['rouge-l', 'bleu', 'geval-coherence'],
      settings: DEFAULT_SETTINGS,
      backends: {},
    });
    const outcome = await score(caseRow(1), new AbortController().signal);
    expect(Array.isArray(outcome)).toBe(false);
    const results = (outcome as { results: MetricResult[] }).results;
    expect(results.map((r) => r.id).sort()).toEqual(['bleu', 'rouge-l']);
    const expected: MetricResult[] = [];
    await computeMetrics(['rouge-l'], caseRow(1).input, DEFAULT_SETTINGS, {}, (r) =>
      expected.push(r),
    );
    expect(results.find((r) => r.id === 'rouge-l')!.score).toBe(expected[0].score);
  });

  it('offline: prediction rows get their task score (max over answers)', async () => {
    const row: PredictionRow = {
      row: 1,
      kind: 'prediction',
      input: {
        prediction: 'Entity\nsecond line',
        answers: ['Location', 'Entity'],
        allClasses: ['Entity', 'Location', 'Human being'],
      },
      human: {},
    };
    const score = offlineRowScorer({
      metrics: [],
      settings: DEFAULT_SETTINGS,
      task: 'trec',
      backends: {},
    });
    const outcome = (await score(row, new AbortController().signal)) as {
      results: MetricResult[];
      task: { score: number; perAnswer: number[]; task: string; metric: string };
    };
    const expected = scoreTinyEvalRow(
      'trec',
      row.input.prediction,
      row.input.answers,
      row.input.allClasses,
    );
    expect(outcome.results).toEqual([]);
    expect(outcome.task).toEqual({
      task: 'trec',
      metric: 'classification',
      score: expected.score,
      perAnswer: expected.perAnswer,
    });
    expect(outcome.task.score).toBe(1);
    const noTask = offlineRowScorer({ metrics: [], settings: DEFAULT_SETTINGS, backends: {} });
    await expect(noTask(row, new AbortController().signal)).rejects.toThrow(/choose its task/u);
  });

  it('page: offline metrics through the workers, judge metrics through the judge, with usage', async () => {
    const judge = new ScriptedJudge(oracle({ gevalScore: 4 }), {
      caps: NO_LOGPROB_CAPS,
      model: 'gpt-4o-mini',
    });
    const offlineCalls: string[][] = [];
    const score = pageRowScorer({
      metrics: ['rouge-l', 'geval-coherence'],
      settings: DEFAULT_SETTINGS,
      offline: async (ids, input) => {
        offlineCalls.push(ids);
        const out: MetricResult[] = [];
        await computeMetrics(ids, input, DEFAULT_SETTINGS, {}, (r) => out.push(r));
        return out;
      },
      judge: { judge, settings: { ...DEFAULT_JUDGE_SETTINGS, gevalMethod: 'greedy' } },
    });
    const store = new MemoryStore();
    const outcome = await runBatch({
      runId: 'r',
      rows: [caseRow(1), caseRow(2)],
      total: 2,
      store,
      scoreRow: score,
    });
    expect(outcome.status).toBe('done');
    expect(offlineCalls).toEqual([['rouge-l'], ['rouge-l']]);
    const first = store.results.get(1)!;
    expect(first.results.map((r) => r.id).sort()).toEqual(['geval-coherence', 'rouge-l']);
    expect(first.results.find((r) => r.id === 'geval-coherence')!.backend).toMatch(
      /^judge:openai\/gpt-4o-mini/u,
    );
    expect(first.judge!.calls).toBeGreaterThan(0);
    expect(first.judge!.cost).toBeGreaterThan(0);
    // The evaluation steps are shared: row 2 gets them from the judge's cache.
    expect(store.results.get(2)!.judge!.cachedCalls).toBeGreaterThan(0);
  });
});

describe('runStoredBatch (IndexedDB)', () => {
  it('runs a stored data set, is cancelled, and resumes where it stopped', async () => {
    const rows: DatasetRow[] = caseRows(8);
    const dataset = await saveDataset(
      {
        id: 'ds-batch',
        name: 'Eight rows',
        createdAt: 1,
        kind: 'case',
        mapping: { kind: 'case', human: [] },
        problems: { count: 0, examples: [] },
      },
      rows,
    );
    const run = await createBatchRun({
      dataset,
      metrics: ['rouge-l', 'bleu'],
      settings: { metrics: DEFAULT_SETTINGS },
      appVersion: 'test',
      id: 'run-batch',
    });
    expect(run.counts.total).toBe(8);
    const scoredRows: number[] = [];
    const counting = (): RowScorer => {
      const inner = offlineRowScorer({
        metrics: run.metrics,
        settings: DEFAULT_SETTINGS,
        backends: {},
      });
      return (row, signal) => {
        scoredRows.push(row.row);
        return inner(row, signal);
      };
    };
    const cancel = new AbortController();
    const first = await runStoredBatch(run.id, {
      scoreRow: counting(),
      signal: cancel.signal,
      onRow: (r) => {
        if (r.row === 3) cancel.abort();
      },
    });
    expect(first).toMatchObject({ status: 'cancelled', done: 3 });
    let stored = (await getRun(run.id))!;
    expect(stored.status).toBe('cancelled');
    expect(stored.counts).toEqual({ total: 8, done: 3, failed: 0 });
    const pending: number[] = [];
    for await (const r of pendingRows(run.id)) pending.push(r.row);
    expect(pending).toEqual([4, 5, 6, 7, 8]);

    const second = await runStoredBatch(run.id, { scoreRow: counting(), concurrency: 3 });
    expect(second).toMatchObject({ status: 'done', done: 8, scored: 5 });
    expect(scoredRows).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    stored = (await getRun(run.id))!;
    expect(stored).toMatchObject({ status: 'done', counts: { total: 8, done: 8, failed: 0 } });
    expect(stored.backends.perMetric['rouge-l']).toEqual(['rouge_score-0.1.2 (porter)']);
    const results = await listRunResults(run.id);
    expect(results.map((r) => r.row)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(results.every((r) => r.results.length === 2)).toBe(true);
  });
});

describe('one place at a time', () => {
  it('refuses to run a run whose Web Lock another tab holds', async () => {
    const held = new Set<string>();
    const locks = {
      request: async (
        name: string,
        _options: { ifAvailable: boolean },
        callback: (lock: { name: string } | null) => Promise<unknown>,
      ) => {
        if (held.has(name)) return callback(null);
        held.add(name);
        try {
          return await callback({ name });
        } finally {
          held.delete(name);
        }
      },
    };
    vi.stubGlobal('navigator', { locks });
    try {
      const dataset = await saveDataset(
        {
          id: 'ds-lock',
          name: 'Lock',
          createdAt: 1,
          kind: 'case',
          mapping: { kind: 'case', human: [] },
          problems: { count: 0, examples: [] },
        },
        caseRows(3),
      );
      const run = await createBatchRun({
        dataset,
        metrics: ['rouge-l'],
        settings: { metrics: DEFAULT_SETTINGS },
        appVersion: 'test',
      });
      const pause = new PauseController();
      pause.pause();
      const cancel = new AbortController();
      const first = runStoredBatch(run.id, { pause, signal: cancel.signal });
      await tick(5);
      expect(held.has(`sumlens-run:${run.id}`)).toBe(true);
      await expect(runStoredBatch(run.id, {})).rejects.toThrow(/already running in another tab/u);
      cancel.abort();
      expect((await first).status).toBe('cancelled');
      expect(held.size).toBe(0);
      expect((await runStoredBatch(run.id, {})).status).toBe('done');
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('a row that aborts on its own', () => {
  it('is a failed row, not a cancel: the run goes on', async () => {
    const store = new MemoryStore();
    const outcome = await runBatch({
      runId: 'r',
      rows: caseRows(3),
      total: 3,
      store,
      scoreRow: async (row) => {
        if (row.row === 1) throw new DOMException('The request timed out.', 'AbortError');
        return ok(row.row);
      },
    });
    expect(outcome).toMatchObject({ status: 'done', done: 3, failed: 1 });
    expect(store.results.get(1)).toMatchObject({
      status: 'failed',
      error: 'The request timed out.',
    });
  });
});
