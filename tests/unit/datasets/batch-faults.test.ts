/**
 * A data-set run under provider faults: a transient failure stores the row as failed with its
 * reason and its other results; an error every row would meet (dead key, quota, unknown model,
 * context) pauses the run without storing the row; the browser going offline pauses it too; a
 * provider that fails several rows in a row trips the breaker; failed rows scored again replace
 * their result and keep their offline metrics; the judge's requests are counted, failed ones too.
 */
import { loadWords } from '../../../src/lib/datasets/export/words.ts';
import { englishRef, type MessageRef } from '../../../src/lib/i18n/message.ts';
import { OFFLINE_MESSAGE, OFFLINE_REF } from '../../../src/lib/state/page-runs.svelte.ts';
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import {
  createBatchRun,
  OUTAGE_ROWS,
  pageRowScorer,
  rowFailure,
  runBatch,
  runStoredBatch,
  type BatchStore,
  type RowOutcome,
  type RowScorer,
} from '../../../src/lib/datasets/batch.ts';
import type { CaseRow } from '../../../src/lib/rows/formats.ts';
import { createJudge } from '../../../src/lib/llm/client.ts';
import { MemoryResponseCache } from '../../../src/lib/llm/cache.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import type { JudgeFailure } from '../../../src/lib/metrics/judge/run.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';
import { saveDataset } from '../../../src/lib/storage/datasets.ts';
import { getRun, listRunResults } from '../../../src/lib/storage/runs.ts';
import type { JudgeUsage, RunStatus, StoredRunResult } from '../../../src/lib/storage/schema.ts';
import { fakeError, type Json } from '../../helpers/fake-llm.ts';
import { oracleHandler } from '../../helpers/judge-oracle.ts';
import { KEYS, resetLlmState } from '../llm/_support.ts';
import { fakeResult } from '../metrics/scored.ts';

function caseRow(row: number): CaseRow {
  return {
    row,
    kind: 'case',
    group: `doc${row}`,
    input: {
      source: `The council of town ${row} voted on Monday to close the old bridge. A ferry will run until 2027.`,
      summary: `Town ${row} closed its bridge; a ferry runs until 2027.`,
      reference: `Town ${row} shut the bridge.`,
    },
    human: {},
  };
}

const rows = (n: number) => Array.from({ length: n }, (_, i) => caseRow(i + 1));

function okResult(id: MetricResult['id'], score = 0.5): MetricResult {
  return fakeResult({ id, status: 'ok', score });
}

const usage = (httpCalls: number): JudgeUsage => ({
  input: 10 * httpCalls,
  output: httpCalls,
  calls: httpCalls,
  httpCalls,
  cachedCalls: 0,
});

class MemoryStore implements BatchStore {
  readonly results = new Map<number, StoredRunResult>();
  readonly statuses: Array<[RunStatus, string | null | undefined]> = [];
  readonly refs: Array<MessageRef | undefined> = [];
  readonly extraUsage: JudgeUsage[] = [];
  async putResult(result: StoredRunResult): Promise<boolean> {
    const existing = this.results.get(result.row);
    if (existing && existing.status !== 'failed') return false;
    this.results.set(result.row, result);
    return true;
  }
  async setStatus(
    _runId: string,
    status: RunStatus,
    message?: string | null,
    messageRef?: MessageRef,
  ): Promise<void> {
    this.statuses.push([status, message]);
    this.refs.push(messageRef);
  }
  async addUsage(_runId: string, u: JudgeUsage): Promise<void> {
    this.extraUsage.push(u);
  }
}

const failure = (kind: JudgeFailure['kind'], message = `${kind} happened.`): JudgeFailure => ({
  kind,
  message,
  stage: 'vagueness: judge the sentences',
  metrics: ['vagueness'],
});

describe('rowFailure: what a row’s judge failures mean for the run', () => {
  it('a dead key, a quota, an unknown model, an oversized prompt stop the run with advice', () => {
    for (const kind of [
      'auth',
      'permission',
      'quota',
      'model-not-found',
      'context-too-long',
    ] as const) {
      const f = rowFailure([failure('server'), failure(kind, 'The provider said no.')], false);
      expect(f?.effect).toBe('stop');
      expect(f?.reason).toMatch(/^The run is paused: The provider said no\. .*Resume/u);
    }
  });

  it('a network failure while the browser is offline pauses instead of failing the row', () => {
    expect(rowFailure([failure('network')], true)?.effect).toBe('offline');
    expect(rowFailure([failure('network')], false)).toMatchObject({ effect: 'row', outage: true });
  });

  it('transient failures fail the row with the metric and the reason; refusals do not', () => {
    expect(rowFailure([failure('malformed-output', 'No score.')], false)).toEqual({
      effect: 'row',
      reason: 'vagueness: No score. (vagueness: judge the sentences)',
      outage: false,
    });
    expect(rowFailure([failure('server'), failure('timeout')], false)?.reason).toMatch(
      /\(and 1 more failed call\)$/u,
    );
    expect(rowFailure([failure('refusal'), failure('content-filter')], false)).toBeUndefined();
    expect(rowFailure([], false)).toBeUndefined();
  });
});

describe('runBatch under faults', () => {
  it('a failed row is stored as failed with its reason, its results and what it cost', async () => {
    const store = new MemoryStore();
    const scoreRow: RowScorer = async (row): Promise<RowOutcome> => ({
      results: [okResult('rouge-l')],
      judge: usage(3),
      ...(row.row === 2 ? { failure: { effect: 'row', reason: 'vagueness: cut off.' } } : {}),
    });
    const outcome = await runBatch({ runId: 'r', rows: rows(4), total: 4, scoreRow, store });
    expect(outcome).toMatchObject({ status: 'done', done: 4, failed: 1 });
    const failed = store.results.get(2)!;
    expect(failed).toMatchObject({ status: 'failed', error: 'vagueness: cut off.' });
    expect(failed.results.map((r) => r.id)).toEqual(['rouge-l']);
    expect(failed.judge?.httpCalls).toBe(3);
  });

  it('a stopping error pauses the run: the row is not stored, its requests still count, no row starts after', async () => {
    const store = new MemoryStore();
    const started: number[] = [];
    const scoreRow: RowScorer = async (row): Promise<RowOutcome> => {
      started.push(row.row);
      if (row.row === 3) {
        return {
          results: [],
          judge: usage(1),
          failure: { effect: 'stop', reason: 'The run is paused: the key was refused.' },
        };
      }
      return { results: [okResult('rouge-l')] };
    };
    const outcome = await runBatch({ runId: 'r', rows: rows(10), total: 10, scoreRow, store });
    expect(outcome).toMatchObject({ status: 'paused', stoppedBy: 'provider', done: 2 });
    expect(outcome.message).toBe('The run is paused: the key was refused.');
    expect(started).toEqual([1, 2, 3]);
    expect(store.results.has(3)).toBe(false);
    expect(store.extraUsage).toEqual([usage(1)]);
    expect(store.statuses.at(-1)).toEqual(['paused', 'The run is paused: the key was refused.']);
  });

  it(`${OUTAGE_ROWS} rows in a row failing with the provider's own errors pause the run`, async () => {
    const store = new MemoryStore();
    const scoreRow: RowScorer = async (row): Promise<RowOutcome> =>
      row.row === 1
        ? { results: [okResult('rouge-l')] }
        : {
            results: [okResult('rouge-l')],
            failure: { effect: 'row', reason: 'vagueness: overloaded.', outage: true },
          };
    const outcome = await runBatch({ runId: 'r', rows: rows(20), total: 20, scoreRow, store });
    expect(outcome).toMatchObject({ status: 'paused', stoppedBy: 'outage' });
    expect(outcome.message).toMatch(
      new RegExp(`^${OUTAGE_ROWS} rows in a row failed because of the provider`, 'u'),
    );
    expect(store.results.size).toBe(1 + OUTAGE_ROWS);
    // Stored with its message, so the run list says it in the page's language.
    expect(englishRef(outcome.messageRef!)).toBe(outcome.message);
    expect(store.refs.at(-1)).toEqual(outcome.messageRef);
    const ru = await loadWords('ru');
    expect(ru(outcome.messageRef!.key, outcome.messageRef!.values)).toMatch(
      /^5 строк подряд не удались из-за провайдера \(последняя ошибка: vagueness: overloaded\.\)/u,
    );
  });

  it('failures that are not outages never trip the breaker', async () => {
    const store = new MemoryStore();
    const scoreRow: RowScorer = async () => ({
      results: [],
      failure: { effect: 'row', reason: 'no score', outage: false },
    });
    const outcome = await runBatch({ runId: 'r', rows: rows(8), total: 8, scoreRow, store });
    expect(outcome).toMatchObject({ status: 'done', done: 8, failed: 8 });
  });

  it('a halt (the page went offline) pauses with its reason and drops the rows in flight', async () => {
    const store = new MemoryStore();
    const halt = new AbortController();
    const scoreRow: RowScorer = async (row, signal) => {
      if (row.row === 3) halt.abort('Offline for now.');
      await new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const t = setTimeout(resolve, 5);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          reject(signal.reason);
        });
      });
      return [okResult('rouge-l')];
    };
    const outcome = await runBatch({
      runId: 'r',
      rows: rows(10),
      total: 10,
      scoreRow,
      store,
      halt: halt.signal,
    });
    expect(outcome).toMatchObject({ status: 'paused', stoppedBy: 'halted' });
    expect(outcome.message).toBe('Offline for now.');
    expect(outcome.messageRef).toBeUndefined();
    expect(store.results.has(3)).toBe(false);
    expect(store.results.size).toBeLessThan(10);
  });
});

describe('a halt with one of SumLens’s own reasons', () => {
  it('stores the reason as a message the page words in its language', async () => {
    const store = new MemoryStore();
    const halt = new AbortController();
    halt.abort(OFFLINE_REF);
    const outcome = await runBatch({
      runId: 'r',
      rows: rows(3),
      total: 3,
      scoreRow: async () => [okResult('rouge-l')],
      store,
      halt: halt.signal,
    });
    expect(outcome).toMatchObject({ status: 'paused', stoppedBy: 'halted' });
    expect(outcome.message).toBe(OFFLINE_MESSAGE);
    expect(store.statuses.at(-1)).toEqual(['paused', OFFLINE_MESSAGE]);
    const ja = await loadWords('ja');
    expect(ja(store.refs.at(-1)!.key)).toMatch(/^ブラウザーがオフラインです/u);
  });
});

describe('failed rows scored again (IndexedDB, the page scorer, the real client)', () => {
  it('replaces only the failed rows, keeps their offline results, and asks only the failed calls', async () => {
    resetLlmState();
    const data = rows(4);
    const dataset = await saveDataset(
      {
        id: 'ds-faults',
        name: 'faults',
        createdAt: 1,
        kind: 'case',
        mapping: { kind: 'case', human: [] },
        problems: { count: 0, examples: [] },
      },
      data,
    );
    const run = await createBatchRun({
      dataset,
      metrics: ['rouge-l', 'vagueness'],
      settings: { metrics: DEFAULT_SETTINGS, judge: DEFAULT_JUDGE_SETTINGS },
      judge: { provider: 'openai', model: 'gpt-4o-mini' },
      appVersion: 'test',
      id: 'run-faults',
    });
    // Row 2's vagueness call meets a 500 on every attempt; everything else answers.
    let broken = true;
    const oracle = oracleHandler(3);
    const calls: Array<{ body: Json }> = [];
    const fetch = (async (_url: RequestInfo | URL, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as Json;
      calls.push({ body });
      const reply =
        broken && JSON.stringify(body).includes('Town 2 closed')
          ? fakeError('openai', 'server')
          : await oracle({
              method: 'POST',
              path: '/v1/chat/completions',
              query: '',
              wire: 'openai',
              headers: {},
              authorized: true,
              body,
              model: body.model,
            });
      return new Response(JSON.stringify(reply.body ?? {}), {
        status: reply.status ?? 200,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof globalThis.fetch;
    const judge = createJudge(
      { kind: 'openai', model: 'gpt-4o-mini', apiKey: KEYS.openai },
      { fetch, cache: new MemoryResponseCache(), maxAttempts: 2, sleep: async () => {} },
    );
    let offlineCalls = 0;
    const scorer = pageRowScorer({
      metrics: run.metrics,
      settings: DEFAULT_SETTINGS,
      offline: async (ids) => {
        offlineCalls++;
        return ids.map((id) => okResult(id, 0.25));
      },
      judge: { judge, settings: DEFAULT_JUDGE_SETTINGS },
    });
    const first = await runStoredBatch(run.id, { scoreRow: scorer });
    expect(first).toMatchObject({ status: 'done', done: 4, failed: 1 });
    const afterFirst = await getRun(run.id);
    expect(afterFirst!.counts).toEqual({ total: 4, done: 4, failed: 1 });
    const failedRow = (await listRunResults(run.id)).find((r) => r.row === 2)!;
    expect(failedRow.status).toBe('failed');
    expect(failedRow.error).toMatch(
      /^vagueness: .*server problem \(HTTP 500\).*Gave up after 2 attempts/u,
    );
    // Both attempts of the failed call are in the run's request counter.
    const sentFirst = calls.length;
    expect(afterFirst!.judgeUsage!.httpCalls).toBe(sentFirst);
    expect(offlineCalls).toBe(4);

    broken = false;
    const retry = await runStoredBatch(run.id, { scoreRow: scorer, retryFailed: true });
    expect(retry).toMatchObject({ status: 'done', done: 4, failed: 0, scored: 1 });
    // Only row 2 was asked again, and its ROUGE-L was kept rather than computed again.
    expect(offlineCalls).toBe(4);
    const sentRetry = calls.length - sentFirst;
    expect(sentRetry).toBeGreaterThan(0);
    expect(calls.slice(sentFirst).every((c) => JSON.stringify(c.body).includes('Town 2'))).toBe(
      true,
    );
    const results = await listRunResults(run.id);
    expect(results.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(results[1]!.results.find((r) => r.id === 'rouge-l')!.score).toBe(0.25);
    expect(results[1]!.results.find((r) => r.id === 'vagueness')!.status).toBe('ok');
    const afterRetry = await getRun(run.id);
    expect(afterRetry!.counts).toEqual({ total: 4, done: 4, failed: 0 });
    expect(afterRetry!.judgeUsage!.httpCalls).toBe(calls.length);

    // Nothing failed is left: a second retry sends nothing and stores nothing.
    const again = await runStoredBatch(run.id, { scoreRow: scorer, retryFailed: true });
    expect(again.scored).toBe(0);
    expect(calls.length).toBe(sentFirst + sentRetry);
  });
});
