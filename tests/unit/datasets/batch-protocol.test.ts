/**
 * The batch worker's protocol end to end, in one thread: `serveBatchRuns` (the worker side, with
 * Node backends) and `BatchWorkerClient` (the page side) joined by a fake message channel that
 * structured-clones every message and delivers it as a later task, as postMessage does.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import {
  BatchWorkerClient,
  batchRequestSchema,
  PROGRESS_INTERVAL_MS,
  serveBatchRuns,
  type BatchReply,
  type BatchRequest,
  type BatchWorkerLike,
  type BatchWorkerScope,
} from '../../../src/lib/datasets/batch-protocol.ts';
import { createBatchRun, type BatchProgress } from '../../../src/lib/datasets/batch.ts';
import type { CaseRow } from '../../../src/lib/rows/formats.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { getRun, listRunResults, saveDataset } from '../../../src/lib/storage/datasets.ts';
import { readJsonl } from '../../helpers/shared.ts';

type Listener = (event: MessageEvent<unknown>) => void;

function channel() {
  const workerListeners: Listener[] = [];
  const pageListeners: Listener[] = [];
  const posted: BatchReply[] = [];
  const deliver = (listeners: Listener[], message: unknown) =>
    setTimeout(() => {
      const data = structuredClone(message);
      for (const l of listeners) l({ data } as MessageEvent<unknown>);
    }, 0);
  const scope: BatchWorkerScope = {
    addEventListener: (_type, listener) => workerListeners.push(listener),
    postMessage: (message) => {
      posted.push(message);
      deliver(pageListeners, message);
    },
  };
  const worker: BatchWorkerLike & { raw(message: unknown): void } = {
    postMessage: (message: BatchRequest) => deliver(workerListeners, message),
    raw: (message: unknown) => deliver(workerListeners, message),
    addEventListener: ((type: string, listener: Listener) => {
      if (type === 'message') pageListeners.push(listener);
    }) as BatchWorkerLike['addEventListener'],
  };
  return { scope, worker, posted, pageListeners };
}

interface DevRecord {
  id: string;
  text: string;
  decoded: string;
  references: string[];
}

/** SummEval dev summaries as case rows, repeated up to `n` rows. */
function summevalRows(n: number): CaseRow[] {
  const dev = readJsonl<DevRecord>('data', 'summeval', 'dev.jsonl');
  return Array.from({ length: n }, (_, i) => {
    const r = dev[i % dev.length];
    return {
      row: i + 1,
      kind: 'summeval',
      group: r.id,
      input: { source: r.text, summary: r.decoded, reference: r.references[0] },
      human: {},
    };
  });
}

async function storedRun(id: string, rows: CaseRow[]) {
  const dataset = await saveDataset(
    {
      id: `ds-${id}`,
      name: `Data set ${id}`,
      createdAt: 1,
      kind: 'summeval',
      mapping: { kind: 'summeval', human: [] },
      problems: { count: 0, examples: [] },
    },
    rows,
  );
  return createBatchRun({
    dataset,
    metrics: ['rouge-1', 'rouge-l', 'bleu', 'token-f1'],
    settings: { metrics: DEFAULT_SETTINGS },
    appVersion: 'test',
    id,
  });
}

describe('batch worker protocol', () => {
  it('validates requests', () => {
    expect(batchRequestSchema.safeParse({ type: 'start', id: 'r' }).success).toBe(true);
    expect(batchRequestSchema.safeParse({ type: 'start', id: '' }).success).toBe(false);
    expect(batchRequestSchema.safeParse({ type: 'stop', id: 'r' }).success).toBe(false);
  });

  it('answers a malformed request with an error naming it', async () => {
    const { scope, worker, posted } = channel();
    serveBatchRuns(() => ({}), scope);
    worker.raw({ type: 'start', id: 'r', concurrency: 0 });
    await new Promise((r) => setTimeout(r, 5));
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ type: 'error', id: 'r' });
    expect((posted[0] as { message: string }).message).toMatch(/Malformed request.*concurrency/u);
  });

  it('fails a run that does not exist', async () => {
    const { scope, worker } = channel();
    serveBatchRuns(() => ({}), scope);
    const client = new BatchWorkerClient(worker);
    await expect(client.run('missing')).rejects.toThrow(/does not exist/u);
  });

  it('runs 1,000 rows in the worker, writes them itself, and posts throttled progress only', async () => {
    const { scope, worker, posted } = channel();
    serveBatchRuns(() => ({}), scope);
    const run = await storedRun('big', summevalRows(1000));
    const client = new BatchWorkerClient(worker);
    const progress: BatchProgress[] = [];
    const started = performance.now();
    const outcome = await client.run(run.id, {}, { onProgress: (p) => progress.push(p) });
    const elapsedMs = performance.now() - started;
    expect(outcome).toEqual({ status: 'done', done: 1000, failed: 0, total: 1000, scored: 1000 });
    expect((await getRun(run.id))!.status).toBe('done');
    const results = await listRunResults(run.id);
    expect(results).toHaveLength(1000);
    expect(results[999].results.map((r) => r.id).sort()).toEqual([
      'bleu',
      'rouge-1',
      'rouge-l',
      'token-f1',
    ]);
    // The page receives small progress messages, at most one per interval plus state changes: no
    // rows, no results (which is what keeps its main thread free).
    expect(posted.every((m) => m.type === 'progress' || m.type === 'finished')).toBe(true);
    const progressMessages = posted.filter((m) => m.type === 'progress').length;
    expect(progressMessages).toBeLessThanOrEqual(Math.ceil(elapsedMs / PROGRESS_INTERVAL_MS) + 5);
    expect(progress.length).toBe(progressMessages);
    for (const m of posted) expect(JSON.stringify(m).length).toBeLessThan(400);
  });

  it('pauses, resumes and cancels a run by id; a cancelled run resumes later', async () => {
    const { scope, worker } = channel();
    serveBatchRuns(() => ({}), scope);
    const run = await storedRun('ctl', summevalRows(300));
    const client = new BatchWorkerClient(worker);
    const states: string[] = [];
    let paused = false;
    const finished = client.run(
      run.id,
      { concurrency: 2 },
      {
        onProgress: (p) => {
          states.push(p.state);
          if (!paused && p.done >= 5) {
            paused = true;
            client.pause(run.id);
          }
        },
      },
    );
    // Wait for the paused state, then check nothing moves.
    for (let i = 0; i < 200 && !states.includes('paused'); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(states).toContain('paused');
    expect(client.isRunning(run.id)).toBe(true);
    const doneAtPause = (await listRunResults(run.id)).length;
    await new Promise((r) => setTimeout(r, 30));
    expect((await listRunResults(run.id)).length).toBe(doneAtPause);
    expect((await getRun(run.id))!.status).toBe('paused');
    client.resume(run.id);
    await new Promise((r) => setTimeout(r, 5));
    client.cancel(run.id);
    const outcome = await finished;
    expect(outcome.status).toBe('cancelled');
    expect(outcome.done).toBeLessThan(300);
    expect((await getRun(run.id))!.status).toBe('cancelled');

    // Later (or after a reload): the same start resumes; nothing is scored twice.
    const resumed = await client.run(run.id);
    expect(resumed.status).toBe('done');
    expect(resumed.scored).toBe(300 - outcome.done);
    expect((await listRunResults(run.id)).map((r) => r.row)).toEqual(
      Array.from({ length: 300 }, (_, i) => i + 1),
    );
  });

  it('rejects a reply it cannot read', async () => {
    const { worker, pageListeners } = channel();
    const client = new BatchWorkerClient(worker);
    const pending = client.run('r');
    for (const l of pageListeners) {
      l({ data: { type: 'progress', id: 'r', progress: { done: -1 } } } as MessageEvent<unknown>);
    }
    await expect(pending).rejects.toThrow(/could not be read/u);
  });
});

describe('batch worker and LLM metrics', () => {
  it('refuses a run with judge metrics (they run in the page, with the key)', async () => {
    const { scope, worker } = channel();
    serveBatchRuns(() => ({}), scope);
    const dataset = await saveDataset(
      {
        id: 'ds-llm',
        name: 'LLM',
        createdAt: 1,
        kind: 'case',
        mapping: { kind: 'case', human: [] },
        problems: { count: 0, examples: [] },
      },
      summevalRows(2),
    );
    const run = await createBatchRun({
      dataset,
      metrics: ['rouge-l', 'geval-fluency'],
      settings: { metrics: DEFAULT_SETTINGS },
      appVersion: 'test',
    });
    const client = new BatchWorkerClient(worker);
    await expect(client.run(run.id)).rejects.toThrow(
      /runs in the page.*geval-fluency|geval-fluency.*runs in the page/u,
    );
    expect(await listRunResults(run.id)).toEqual([]);
  });
});
