/**
 * The scoring engine with fake workers and a fake judge: results stream in the order they arrive
 * (a slow worker never holds back a fast one's), an abort cancels every job and drops what comes
 * after it, a crashed worker costs only its own metrics, and a judge that fails or stays silent
 * leaves error results rather than spinning cards.
 */
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import type { CaseInput, MetricResult } from '../../../src/lib/metrics/types.ts';
import { DEFAULT_MODEL_SOURCE } from '../../../src/lib/models/source.ts';
import { ScoringEngine } from '../../../src/lib/scoring/engine.ts';
import type { CaseJudge } from '../../../src/lib/scoring/judge-step.ts';
import { englishDetector, fakeWorkerSet, FakeWorker, okResult } from './_fake-workers.ts';

const CASE: CaseInput = {
  source: 'The council voted on Monday to close the old bridge. A ferry will run until 2027.',
  summary: 'The council closed the bridge; a ferry runs until 2027.',
};

const scoring = (metrics: CaseSettingsMetrics) => ({
  metrics,
  settings: DEFAULT_SETTINGS,
  models: DEFAULT_MODEL_SOURCE,
});
type CaseSettingsMetrics = Parameters<ScoringEngine['scoreCase']>[1]['metrics'];

function engineWith(workers: Parameters<typeof fakeWorkerSet>[0]) {
  const fake = fakeWorkerSet(workers);
  return {
    engine: new ScoringEngine({ startWorkers: fake.start, languages: englishDetector }),
    fake,
  };
}

describe('scoreCase', () => {
  it('streams each result as it arrives: a slow worker never hides a fast score', async () => {
    const embedding = new FakeWorker();
    const { engine } = engineWith({ embedding });
    const arrived: string[] = [];
    let settled = false;
    const scored = engine
      .scoreCase(CASE, scoring(['coherence', 'rouge-l', 'bleu']), {
        onResult: (r) => arrived.push(r.id),
      })
      .finally(() => (settled = true));

    await vi.waitFor(() => expect(embedding.jobs).toHaveLength(1));
    // The reference worker's scores are out while the embedding worker has not answered.
    expect(arrived).toEqual(['rouge-l', 'bleu']);
    expect(settled).toBe(false);

    embedding.jobs[0]!.emit('coherence', 0.9);
    expect(arrived).toEqual(['rouge-l', 'bleu', 'coherence']);
    embedding.jobs[0]!.finish();
    const { results } = await scored;
    expect(results.map((r) => r.id)).toEqual(['rouge-l', 'bleu', 'coherence']);
    expect(results.find((r) => r.id === 'coherence')?.score).toBe(0.9);
  });

  it('stops the workers and the judge on abort, and drops whatever comes after it', async () => {
    const reference = new FakeWorker();
    const { engine } = engineWith({ reference });
    let judgeSignal: AbortSignal | undefined;
    let judgeEmit: ((r: MetricResult) => void) | undefined;
    const judge: CaseJudge<string> = {
      metrics: ['vagueness'],
      backend: 'judge:openai/gpt-4o-mini',
      run: (_input, onResult, signal) => {
        judgeSignal = signal;
        judgeEmit = onResult;
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason as Error)),
        );
      },
    };
    const controller = new AbortController();
    const arrived: string[] = [];
    const scored = engine.scoreCase(
      CASE,
      { ...scoring(['rouge-l', 'bleu']), judge },
      { signal: controller.signal, onResult: (r) => arrived.push(r.id) },
    );
    await vi.waitFor(() => expect(reference.jobs).toHaveLength(1));
    reference.jobs[0]!.emit('rouge-l');
    controller.abort();

    expect(reference.jobs[0]!.handlers.signal?.aborted).toBe(true);
    expect(judgeSignal?.aborted).toBe(true);
    // A worker that answers late, and a judge reply already on its way, reach no card.
    reference.jobs[0]!.emit('bleu');
    judgeEmit?.(okResult('vagueness'));
    reference.jobs[0]!.finish();
    await expect(scored).rejects.toMatchObject({ name: 'AbortError' });
    expect(arrived).toEqual(['rouge-l']);
  });

  it("turns a worker's crash into its own metrics' error results; the others still arrive", async () => {
    const embedding = new FakeWorker();
    const { engine } = engineWith({ embedding });
    const scored = engine.scoreCase(CASE, scoring(['coherence', 'redundancy', 'rouge-l']));
    await vi.waitFor(() => expect(embedding.jobs).toHaveLength(1));
    embedding.jobs[0]!.emit('coherence', 0.8);
    embedding.jobs[0]!.crash('The embedding worker stopped (out of memory).');

    const { results } = await scored;
    const byId = Object.fromEntries(results.map((r) => [r.id, r]));
    // What the worker sent before it crashed stays.
    expect(byId.coherence).toMatchObject({ status: 'ok', score: 0.8 });
    expect(byId.redundancy).toMatchObject({
      status: 'error',
      score: null,
      reason: 'The embedding worker stopped (out of memory).',
    });
    expect(byId['rouge-l']).toMatchObject({ status: 'ok', score: 0.5 });
  });

  it('fails the judge metrics a judge never reported, and all of them when it throws', async () => {
    const { engine } = engineWith({});
    const silent: CaseJudge<string> = {
      metrics: ['vagueness', 'repetitiveness'],
      backend: 'judge:openai/gpt-4o-mini',
      run: (_input, onResult) => {
        onResult(okResult('vagueness', 0.7));
        return Promise.resolve('report');
      },
    };
    const quiet = await engine.scoreCase(CASE, { ...scoring([]), judge: silent });
    expect(quiet.judge).toEqual({ report: 'report' });
    expect(quiet.results.map((r) => [r.id, r.status])).toEqual([
      ['vagueness', 'ok'],
      ['repetitiveness', 'error'],
    ]);
    expect(quiet.results[1]!.reasonRef?.key).toBe('card.judgeNoResult');
    expect(quiet.results[1]!.backend).toBe('judge:openai/gpt-4o-mini');

    const failing = new Error('OpenAI rejected the API key (401).');
    const broken: CaseJudge<string> = { ...silent, run: () => Promise.reject(failing) };
    const failed = await engine.scoreCase(CASE, { ...scoring(['bleu']), judge: broken });
    expect(failed.judge).toEqual({ error: failing });
    expect(failed.results.map((r) => [r.id, r.status, r.reason])).toEqual([
      ['bleu', 'ok', undefined],
      ['vagueness', 'error', 'OpenAI rejected the API key (401).'],
      ['repetitiveness', 'error', 'OpenAI rejected the API key (401).'],
    ]);
  });

  it('starts its workers once, on first use, for every case after', async () => {
    const { engine, fake } = engineWith({});
    expect(fake.starts.count).toBe(0);
    await engine.scoreCase(CASE, scoring(['rouge-l']));
    await engine.scoreCase(CASE, scoring(['coherence']));
    engine.start();
    expect(fake.starts.count).toBe(1);
  });
});
