/**
 * The batch worker end to end, in one thread: `serveBatchRuns` (the worker side, with Node
 * backends) and `BatchWorkerClient` (the page side) over the RPC layer, joined by a fake channel
 * that structured-clones every message and delivers it as a later task, as postMessage does.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { serveBatchRuns } from '../../../workers/batch-host.ts';
import {
  batchApi,
  BatchWorkerClient,
  PROGRESS_INTERVAL_MS,
} from '../../../src/lib/workers/batch-api.ts';
import { createBatchRun, type BatchProgress } from '../../../src/lib/datasets/batch.ts';
import type { CaseRow } from '../../../src/lib/rows/formats.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { saveDataset } from '../../../src/lib/storage/datasets.ts';
import { getRun, listRunResults } from '../../../src/lib/storage/runs.ts';
import { readJsonl } from '../../helpers/shared.ts';
import { saveTestDataset } from '../../helpers/stored.ts';
import { connect, replyMatching } from '../workers/_channel.ts';

function channel(serveWorker = true) {
  const wired = connect(batchApi, (scope) => {
    if (serveWorker) serveBatchRuns(() => ({}), scope);
  });
  return { ...wired, client: new BatchWorkerClient(wired.worker) };
}

/** The worker's replies, without the RPC envelope. */
function items(replies: unknown[]): { type: string }[] {
  return replies.flatMap((r) => {
    const reply = r as { kind: string; item?: { type: string }; value?: unknown };
    return reply.kind === 'progress' && reply.item ? [reply.item] : [{ type: reply.kind }];
  });
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
  const dataset = await saveTestDataset(id, rows);
  return createBatchRun({
    dataset,
    metrics: ['rouge-1', 'rouge-l', 'bleu', 'token-f1'],
    settings: { metrics: DEFAULT_SETTINGS },
    appVersion: 'test',
    id,
  });
}

describe('batch worker', () => {
  it('validates requests', () => {
    const start = batchApi.methods.run.request;
    expect(start.safeParse({ runId: 'r' }).success).toBe(true);
    expect(start.safeParse({ runId: '' }).success).toBe(false);
    expect(start.safeParse({ runId: 'r', concurrency: 0 }).success).toBe(false);
  });

  it('answers a malformed request with an error naming it', async () => {
    const { toWorker, replies } = channel();
    toWorker({ kind: 'call', id: 'r', method: 'run', params: { runId: 'r', concurrency: 0 } });
    const reply = await replyMatching(replies, () => true);
    expect(replies).toHaveLength(1);
    expect(reply).toMatchObject({ kind: 'error', id: 'r' });
    expect((reply as { message: string }).message).toMatch(/Malformed request.*concurrency/u);
  });

  it('fails a run that does not exist', async () => {
    const { client } = channel();
    await expect(client.run('missing')).rejects.toThrow(/does not exist/u);
  });

  it('runs 1,000 rows in the worker, writes them itself, and posts throttled progress only', async () => {
    const { client, replies } = channel();
    const run = await storedRun('big', summevalRows(1000));
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
    const posted = items(replies);
    expect(posted.every((m) => m.type === 'progress' || m.type === 'result')).toBe(true);
    const progressMessages = posted.filter((m) => m.type === 'progress').length;
    expect(progressMessages).toBeLessThanOrEqual(Math.ceil(elapsedMs / PROGRESS_INTERVAL_MS) + 5);
    expect(progress.length).toBe(progressMessages);
    for (const m of replies) expect(JSON.stringify(m).length).toBeLessThan(400);
  });

  it('pauses, resumes and cancels a run by id; a cancelled run resumes later', async () => {
    const { client } = channel();
    const run = await storedRun('ctl', summevalRows(300));
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
    const { client, sent, toPage } = channel(false);
    const pending = client.run('r');
    const id = (sent[0] as { id: string }).id;
    toPage({ kind: 'progress', id, item: { type: 'progress', progress: { done: -1 } } });
    await expect(pending).rejects.toThrow(/could not be read/u);
    expect(client.isRunning('r')).toBe(false);
  });
});

describe('batch worker and LLM metrics', () => {
  it('refuses a run with judge metrics (they run in the page, with the key)', async () => {
    const { client } = channel();
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
    await expect(client.run(run.id)).rejects.toThrow(
      /runs in the page.*geval-fluency|geval-fluency.*runs in the page/u,
    );
    expect(await listRunResults(run.id)).toEqual([]);
  });
});
