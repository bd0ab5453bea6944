/**
 * A page's batch run: its rows are judged from the cache the jobs filled, so a request no job
 * answered fails its row (never sent at the standard price), and the jobs' ids live on the run's
 * record until their answers are in.
 */
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryResponseCache } from '../../../src/lib/llm/cache.ts';
import { createJudge } from '../../../src/lib/llm/client.ts';
import { resetCapabilityCache } from '../../../src/lib/llm/capabilities.ts';
import { resetLimiters } from '../../../src/lib/llm/limiter.ts';
import type { ProviderConfig } from '../../../src/lib/llm/types.ts';
import { runJudgeMetrics } from '../../../src/lib/metrics/judge/run.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import type { CaseInput, MetricResult } from '../../../src/lib/metrics/types.ts';
import { batchAnswersJudge, pageCanBatch } from '../../../src/lib/datasets/provider-batch.ts';
import { createRun, getRun, runBatchJobStore } from '../../../src/lib/storage/runs.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { startFakeBatch, type FakeBatch } from '../../helpers/fake-batch.ts';

const CASE: CaseInput = {
  source:
    'The city council voted to close the old bridge on Monday. Repairs would cost 4 million euros. Engineers found cracks in two pillars.',
  summary: 'The council closed the old bridge on Monday. Things happened in various ways.',
};

async function vagueness(input: CaseInput, judge: Parameters<typeof runJudgeMetrics>[1]['judge']) {
  const results: MetricResult[] = [];
  const summary = await runJudgeMetrics(input, {
    metrics: ['vagueness'],
    settings: DEFAULT_JUDGE_SETTINGS,
    judge,
    onResult: (r) => results.push(r),
  });
  return { results, summary };
}

describe('the judge a batch run scores its rows with', () => {
  let fake: FakeBatch;
  let config: ProviderConfig;

  beforeEach(async () => {
    resetCapabilityCache();
    resetLimiters();
    fake = await startFakeBatch({ wire: 'openai' });
    config = {
      kind: 'openai',
      model: 'gpt-4.1-mini',
      apiKey: 'sk-test-page-batch',
      baseUrl: fake.url,
    };
  });
  afterEach(() => fake.close());

  it('answers from the cache with no request, and fails a request no job answered', async () => {
    const cache = new MemoryResponseCache();
    const interactive = createJudge(config, { cache });
    const answers = await batchAnswersJudge(config, cache, () => interactive.capabilities());

    // Nothing in the cache: the row's vagueness fails with the batch's own reason, no request.
    const missed = await vagueness(CASE, answers);
    expect(fake.interactiveCalls).toBe(0);
    expect(missed.results[0]?.status).toBe('error');
    expect(missed.summary.failures[0]?.kind).toBe('cancelled');
    expect(missed.summary.failures[0]?.message).toMatch(/batch job returned no answer/u);

    // Once an answer is in the cache under the interactive key, the same row is scored from it.
    const live = await vagueness(CASE, interactive);
    const calls = fake.interactiveCalls;
    expect(live.results[0]?.status).toBe('ok');
    const again = await vagueness(CASE, answers);
    expect(again.results[0]).toMatchObject({ status: 'ok', score: live.results[0]?.score });
    expect(fake.interactiveCalls).toBe(calls);
  });

  it('exists only for the providers whose batch endpoints a page can call', async () => {
    expect(['openai', 'gemini', 'anthropic', 'ollama'].map(pageCanBatch)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    await expect(
      batchAnswersJudge({ ...config, kind: 'anthropic' }, new MemoryResponseCache(), async () =>
        createJudge(config).capabilities(),
      ),
    ).rejects.toThrow(/no batch API a page can use/u);
  });
});

describe('the job ids on the run record', () => {
  it('are kept from submission until their answers are in, across a new reader', async () => {
    const run = await createRun({
      id: 'run-jobs',
      datasetId: 'ds',
      datasetName: 'ds',
      name: 'jobs',
      metrics: ['vagueness'],
      settings: { metrics: DEFAULT_SETTINGS, providerBatch: { pollSec: 30 } },
      createdAt: Date.now(),
      appVersion: 'test',
      total: 3,
    });
    const job = {
      jobId: 'batch_1',
      provider: 'openai' as const,
      host: 'api.openai.com',
      model: 'gpt-4.1-mini',
      customIds: ['a', 'b'],
      submittedAt: new Date().toISOString(),
    };
    await runBatchJobStore(run.id).add(job);
    await runBatchJobStore(run.id).add({ ...job, jobId: 'batch_2', customIds: ['c'] });
    // A reload reads them back from IndexedDB.
    expect((await runBatchJobStore(run.id).list()).map((j) => j.jobId)).toEqual([
      'batch_1',
      'batch_2',
    ]);
    await runBatchJobStore(run.id).remove('batch_1');
    expect((await getRun(run.id))?.batchJobs?.map((j) => j.customIds)).toEqual([['c']]);
    await expect(runBatchJobStore('nobody').add(job)).rejects.toThrow(/does not exist/u);
  });
});
