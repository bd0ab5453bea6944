/**
 * Metric workers the engine can start in Node: each `score` call is a job the test drives by hand
 * (`emit`, `finish`, `crash`), or, with `answer`, one that reports an ok result per metric at once.
 */
import type { CaseInput, MetricId, MetricResult } from '../../../src/lib/metrics/types.ts';
import type { MetricWorker, MetricWorkerSet } from '../../../src/lib/scoring/worker-pool.ts';
import type { JobHandlers } from '../../../src/lib/workers/worker-client.ts';
import type { LanguageDetector } from '../../../src/lib/scoring/language-step.ts';
import { fakeResult } from '../metrics/scored.ts';

interface FakeJob {
  ids: readonly MetricId[];
  input: CaseInput;
  handlers: JobHandlers;
  emit(id: MetricId, score?: number): void;
  finish(): void;
  crash(message: string): void;
}

export const okResult = (id: MetricId, score = 0.5): MetricResult =>
  fakeResult({ id, status: 'ok', score });

export class FakeWorker implements MetricWorker {
  readonly jobs: FakeJob[] = [];
  /** Answers every job at once with `score` for each metric. */
  answer: number | undefined;

  constructor(answer?: number) {
    this.answer = answer;
  }

  score(
    ids: readonly MetricId[],
    input: CaseInput,
    _settings: unknown,
    _models: unknown,
    handlers: JobHandlers = {},
  ): Promise<{ cancelled: boolean }> {
    return new Promise((resolve, reject) => {
      const job: FakeJob = {
        ids,
        input,
        handlers,
        emit: (id, score) => handlers.onResult?.(okResult(id, score)),
        finish: () => resolve({ cancelled: handlers.signal?.aborted ?? false }),
        crash: (message) => reject(new Error(message)),
      };
      this.jobs.push(job);
      if (this.answer === undefined) return;
      for (const id of ids) job.emit(id, this.answer);
      job.finish();
    });
  }

  load(): Promise<{ cancelled: boolean }> {
    return Promise.resolve({ cancelled: false });
  }

  prepare(): Promise<number> {
    return Promise.resolve(0);
  }
}

/** A set of fake workers and a start function that counts how often the engine called it. */
export function fakeWorkerSet(workers: Partial<MetricWorkerSet> = {}) {
  const set = {
    reference: workers.reference ?? new FakeWorker(0.5),
    embedding: workers.embedding ?? new FakeWorker(0.5),
    ner: workers.ner ?? new FakeWorker(0.5),
  };
  const starts = { count: 0 };
  return {
    set,
    starts,
    start: () => {
      starts.count++;
      return set;
    },
  };
}

/** Every text is English, decided on the spot (no cld3 worker in Node). */
export const englishDetector: LanguageDetector = {
  start: () => {},
  detect: () => Promise.resolve({ code: 'en', basis: 'detected' }),
  detectMany: (texts) => Promise.resolve(texts.map(() => ({ code: 'en', basis: 'detected' }))),
};
