/**
 * The batch engine through each provider's batch wire, against the loopback fake batch engines:
 * 50 rows in one job per round, multi-round metrics (claims → verdicts → grades), lines that
 * error or cannot be read, jobs that expire or are cancelled part way, jobs split at a lowered
 * limit, a run resumed after it stopped while its job was pending, and an interactive run over
 * the same cache that sends nothing. A run holds one round's work, not the data set's: rows that
 * are done are not scored again, the requests wait in a spool, and the answers read into the
 * cache are let go.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryResponseCache } from '../../../../src/lib/llm/cache.ts';
import { createJudge } from '../../../../src/lib/llm/client.ts';
import { resetCapabilityCache } from '../../../../src/lib/llm/capabilities.ts';
import { resetLimiters } from '../../../../src/lib/llm/limiter.ts';
import {
  MemoryBatchJobStore,
  MemoryMissSpool,
  runBatch,
  type BatchEvent,
  type BatchRunOptions,
} from '../../../../src/lib/llm/batch/engine.ts';
import type { Judge, ProviderConfig } from '../../../../src/lib/llm/types.ts';
import { runJudgeMetrics } from '../../../../src/lib/metrics/judge/run.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../../src/lib/metrics/judge/settings.ts';
import type { CaseInput, JudgeMetricId, MetricResult } from '../../../../src/lib/metrics/types.ts';
import {
  startFakeBatch,
  type FakeBatch,
  type FakeBatchOptions,
} from '../../../helpers/fake-batch.ts';
import type { Wire } from '../../../helpers/fake-llm.ts';

const PORTS: Record<Wire, number> = { openai: 4186, anthropic: 4187, gemini: 4188 };
const CONFIGS: Record<Wire, ProviderConfig> = {
  openai: { kind: 'openai', model: 'gpt-4.1-mini', apiKey: 'sk-test-batch-openai' },
  anthropic: { kind: 'anthropic', model: 'claude-haiku-4-5', apiKey: 'sk-ant-test-batch' },
  gemini: { kind: 'gemini', model: 'gemini-2.5-flash-lite', apiKey: 'AIza-test-batch-gemini' },
};

/** Row i, tagged `row-NN` so a fault can pick its requests from their bodies. */
function row(i: number): CaseInput {
  const tag = `row-${String(i).padStart(2, '0')}`;
  return {
    source:
      `Report ${tag}. The city council voted to close the old bridge on Monday. Repairs would cost ${i + 2} million euros. ` +
      'Engineers found cracks in two pillars last year. A ferry will carry commuters until a new bridge opens in 2027.',
    summary:
      `Report ${tag}. The city council voted to close the old bridge on Monday. A ferry will carry commuters ` +
      'until a new bridge opens in 2027. The article discusses the reactions of shop owners.',
  };
}

const ROWS = (n: number) => Array.from({ length: n }, (_, i) => row(i));

function scorer(metrics: JudgeMetricId[]) {
  return async (input: CaseInput, judge: Judge): Promise<MetricResult[]> => {
    const results: MetricResult[] = [];
    await runJudgeMetrics(input, {
      metrics,
      settings: DEFAULT_JUDGE_SETTINGS,
      judge,
      onResult: (r) => results.push(r),
    });
    return results;
  };
}

const hasTag = (body: unknown, i: number) =>
  JSON.stringify(body).includes(`row-${String(i).padStart(2, '0')}`);

describe.each(['openai', 'anthropic', 'gemini'] as const)('batch engine over %s', (wire) => {
  let fake: FakeBatch | undefined;
  const config = () => ({ ...CONFIGS[wire], baseUrl: fake!.url });
  const start = async (options: Omit<FakeBatchOptions, 'wire' | 'port'> = {}) => {
    fake = await startFakeBatch({ wire, port: PORTS[wire], ...options });
    return fake;
  };
  const batch = (
    rows: CaseInput[],
    metrics: JudgeMetricId[],
    extra: Partial<BatchRunOptions<CaseInput, MetricResult[]>> = {},
  ) => {
    const events: BatchEvent[] = [];
    const run = runBatch<CaseInput, MetricResult[]>({
      config: config(),
      cache: extra.cache ?? new MemoryResponseCache(),
      jobs: extra.jobs ?? new MemoryBatchJobStore(),
      rows,
      run: scorer(metrics),
      pollIntervalMs: 5,
      onEvent: (e) => events.push(e),
      ...extra,
    });
    return { run, events };
  };

  beforeEach(() => {
    resetCapabilityCache();
    resetLimiters();
  });
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('50 rows: one job per round (claims, then verdicts), the interactive scores, then an interactive run over the cache sends nothing', async () => {
    const server = await start();
    const cache = new MemoryResponseCache();
    const rows = ROWS(50);
    const { run, events } = batch(rows, ['alignment'], { cache });
    const summary = await run;

    expect(summary.rounds).toBe(2);
    expect(server.jobs.map((j) => j.customIds.length)).toEqual([50, 50]);
    expect(summary.failedRequests).toBe(0);
    expect(server.interactiveCalls).toBe(0);
    const statuses = events.filter((e) => e.type === 'status');
    expect(statuses.length).toBeGreaterThanOrEqual(4);
    const round1 = events.find((e) => e.type === 'round');
    expect(round1?.type === 'round' && round1.estimate.requests).toBe(50);
    expect(round1?.type === 'round' && round1.estimate.costUsd).toBeGreaterThan(0);
    for (const out of summary.outputs) {
      expect(out.map((r) => [r.id, r.status])).toEqual([['alignment', 'ok']]);
    }

    // The same rows asked interactively (a fresh cache) score the same.
    const fresh = createJudge(config(), { cache: new MemoryResponseCache() });
    for (const [i, input] of rows.slice(0, 5).entries()) {
      const direct = await scorer(['alignment'])(input, fresh);
      expect(direct.map((r) => r.score)).toEqual(summary.outputs[i]!.map((r) => r.score));
    }
    const asked = server.interactiveCalls;
    expect(asked).toBeGreaterThan(0);

    // The batch answers sit in the cache under the interactive keys: zero calls.
    const judge = createJudge(config(), { cache });
    for (const [i, input] of rows.entries()) {
      const results: MetricResult[] = [];
      const again = await runJudgeMetrics(input, {
        metrics: ['alignment'],
        settings: DEFAULT_JUDGE_SETTINGS,
        judge,
        onResult: (r) => results.push(r),
      });
      expect(again.httpCalls).toBe(0);
      expect(results.map((r) => r.score)).toEqual(summary.outputs[i]!.map((r) => r.score));
    }
    expect(server.interactiveCalls).toBe(asked);
  });

  it('summarization (claims and questions → verdicts and answers → grades) runs as three rounds of one job', async () => {
    const server = await start();
    const { run } = batch(ROWS(6), ['summarization']);
    const summary = await run;
    expect(summary.rounds).toBe(3);
    expect(server.jobs.length).toBe(3);
    // Round 1: claims + key questions per row; round 2: verdicts + answers; round 3: grades.
    expect(server.jobs.map((j) => j.customIds.length)).toEqual([12, 12, 6]);
    for (const out of summary.outputs) {
      expect(out.find((r) => r.id === 'summarization')?.status).toBe('ok');
    }
  });

  it('an errored line and an unreadable line fail only their rows; the others go on to the next round', async () => {
    const server = await start({
      lineFault: (_i, body) =>
        hasTag(body, 3) ? 'error' : hasTag(body, 5) ? 'malformed' : undefined,
    });
    const { run } = batch(ROWS(10), ['alignment']);
    const summary = await run;
    expect(server.jobs.map((j) => j.customIds.length)).toEqual([10, 8]);
    // An errored line carries the provider's error body; an unreadable one is caught when the row
    // reads it (Gemini's has no response at all, so it counts as unanswered too).
    expect(summary.failedRequests).toBe(wire === 'gemini' ? 2 : 1);
    summary.outputs.forEach((out, i) => {
      const alignment = out.find((r) => r.id === 'alignment')!;
      expect(alignment.status, `row ${i}`).toBe(i === 3 || i === 5 ? 'error' : 'ok');
    });
    expect(summary.outputs[3]![0]!.reason).toMatch(/rejected|invalid|HTTP 400/iu);
  });

  it.each(['expired', 'cancelled'] as const)(
    'a job that is %s part way fails the requests it did not reach; the next run asks only those again',
    async (end) => {
      const server = await start({ jobEnd: (i) => (i === 0 ? end : 'completed') });
      const cache = new MemoryResponseCache();
      const rows = ROWS(10);
      const first = await batch(rows, ['alignment'], { cache }).run;
      // Gemini gives an expired or cancelled job no answers at all; the others keep what was done.
      const reached = wire === 'gemini' ? 0 : 5;
      expect(server.jobs[0]!.customIds.length).toBe(10);
      expect(first.failedRequests).toBe(10 - reached);
      const failedRows = first.outputs.filter((o) => o[0]!.status === 'error');
      expect(failedRows.length).toBe(10 - reached);
      const reason = failedRows[0]![0]!.reason ?? '';
      expect(reason).toMatch(
        wire === 'openai'
          ? end === 'expired'
            ? /batch_expired/u
            : /cancelled/u
          : wire === 'anthropic'
            ? end === 'expired'
              ? /expired/u
              : /canceled/u
            : end === 'expired'
              ? /EXPIRED/u
              : /CANCELLED/u,
      );

      const jobsBefore = server.jobs.length;
      const second = await batch(rows, ['alignment'], { cache }).run;
      expect(server.jobs[jobsBefore]!.customIds.length).toBe(10 - reached);
      for (const out of second.outputs) expect(out[0]!.status).toBe('ok');
    },
  );

  it('scores a finished row no more; without keepOutputs it keeps no results, and the spool gets each request once', async () => {
    const server = await start({
      lineFault: (_i, body) => (hasTag(body, 2) ? 'error' : undefined),
    });
    const cache = new MemoryResponseCache();
    const rows = ROWS(6);
    // Row 0 is answered before the run: a cached row finishes in round 1.
    const warm = createJudge(config(), { cache });
    await scorer(['alignment'])(rows[0]!, warm);
    const interactive = server.interactiveCalls;
    expect(interactive).toBeGreaterThan(0);

    const passes = new Map<number, number>();
    const added: string[] = [];
    const spool = new MemoryMissSpool();
    const add = spool.add.bind(spool);
    spool.add = (line) => {
      added.push(line.customId);
      add(line);
    };
    const inner = scorer(['alignment']);
    const summary = await runBatch<CaseInput, MetricResult[]>({
      config: config(),
      cache,
      jobs: new MemoryBatchJobStore(),
      rows,
      run: (input, judge) => {
        const i = rows.indexOf(input);
        passes.set(i, (passes.get(i) ?? 0) + 1);
        return inner(input, judge);
      },
      pollIntervalMs: 5,
      keepOutputs: false,
      spool,
    });
    expect(summary.outputs).toEqual([]);
    expect(server.interactiveCalls).toBe(interactive);
    // Row 0 from the cache: one pass. Row 2's claims line errored: it ends in round 2 with that
    // error. The others: claims (1), verdicts (2), scored (3).
    expect(passes.get(0)).toBe(1);
    expect(passes.get(2)).toBe(2);
    for (const i of [1, 3, 4, 5]) expect(passes.get(i), `row ${i}`).toBe(3);
    expect(server.jobs.map((j) => j.customIds.length)).toEqual([5, 4]);
    expect(new Set(added).size).toBe(added.length);
    expect(added.length).toBe(9);
    expect(spool.size).toBe(0);
    // The failed line is handed back with its reason, for the pass that scores the rows.
    const job = server.jobs[0]!;
    const rowTwo = job.customIds.filter((_, i) => hasTag(job.bodies[i], 2));
    expect([...summary.failures.keys()]).toEqual(rowTwo);
  });

  it('rows that ask the same request read its one answer: nothing is sent twice', async () => {
    const server = await start();
    // Rows 0, 1 and 3 are the same case, scored at the same time in each pass.
    const rows = [row(0), row(0), row(1), row(0)];
    const summary = await batch(rows, ['alignment']).run;
    const sent = server.jobs.flatMap((j) => j.customIds);
    expect(new Set(sent).size).toBe(sent.length);
    expect(server.jobs.map((j) => j.customIds.length)).toEqual([2, 2]);
    expect(summary.outputs.map((o) => o[0]!.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(summary.outputs[1]![0]!.score).toBe(summary.outputs[0]![0]!.score);
  });

  it('splits a round at a lowered request limit and at a lowered size limit', async () => {
    const server = await start();
    const byCount = await batch(ROWS(50), ['alignment'], { limits: { maxRequests: 20 } }).run;
    expect(server.jobs.slice(0, 3).map((j) => j.customIds.length)).toEqual([20, 20, 10]);
    expect(byCount.rounds).toBe(2);
    const jobsBefore = server.jobs.length;
    // About four claim requests' worth of bytes per job.
    const lineBytes = 3_000;
    await batch(ROWS(8), ['alignment'], { limits: { maxBytes: 4 * lineBytes } }).run;
    const sizes = server.jobs.slice(jobsBefore).map((j) => j.customIds.length);
    expect(sizes.length).toBeGreaterThan(2);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(16);
    expect(Math.max(...sizes)).toBeLessThan(8);
  });

  it('a run stopped while its job is pending resumes polling that job instead of submitting again', async () => {
    const server = await start({ pollsBeforeEnd: 3 });
    const cache = new MemoryResponseCache();
    const jobs = new MemoryBatchJobStore();
    const stop = new AbortController();
    const first = batch(ROWS(4), ['alignment'], {
      cache,
      jobs,
      signal: stop.signal,
      onEvent: (e) => {
        if (e.type === 'status') stop.abort();
      },
    });
    await expect(first.run).rejects.toThrow();
    expect(server.jobs.length).toBe(1);
    expect((await jobs.list()).map((j) => j.jobId.replace(/^batches\//u, ''))).toEqual([
      server.jobs[0]!.id,
    ]);

    const second = batch(ROWS(4), ['alignment'], { cache, jobs });
    const summary = await second.run;
    expect(second.events.filter((e) => e.type === 'resumed').length).toBe(1);
    // Round 1 was the resumed job; only round 2 (verdicts) was submitted.
    expect(server.jobs.length).toBe(2);
    expect(summary.outputs.every((o) => o[0]!.status === 'ok')).toBe(true);
    expect(await jobs.list()).toEqual([]);
  });
});
