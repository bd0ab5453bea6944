/**
 * Runs the metrics that need no LLM for one case. The same function serves the browser workers and
 * the Node CLI: only the way the backends are obtained differs (fetch in a worker, fs in Node).
 * What each metric computes is in its record (registry.ts); this module only orders the work:
 * shared calculators first (one pass for all their metrics), then each metric of its own.
 */
import { messageOf } from '../errors.ts';
import type { OfflineRun, SharedOfflineCalculator } from './record.ts';
import { ref } from '../i18n/message.ts';
import { metricRecord } from './registry.ts';
import { failed, isAbort } from './results.ts';
import type { CaseInput, MetricId, MetricResult } from './types.ts';
import type { MetricSettings } from './settings.ts';
import type { EntityRecognizer, SentenceEmbedder } from './semantic/backends.ts';
import { sharingEmbeddings, throwIfAborted } from './semantic/backends.ts';
import type { WordSegmenter } from './lexical/cjk-words.ts';
import { resolveCaseTokenizer, type CaseTokenizer } from './text/case-tokenizer.ts';

export { isAbort };

/** Lazily loaded backends; a worker provides only those its metrics need. */
export interface OfflineBackends {
  embedder?: () => Promise<SentenceEmbedder>;
  recognizer?: () => Promise<EntityRecognizer>;
  /**
   * Chinese word segmenter (jieba) for every lexical metric, loaded only when the case is in
   * Chinese. Missing, or failing to load: Intl.Segmenter, and the backend strings say so.
   */
  wordSegmenter?: () => Promise<WordSegmenter>;
}

type OwnCompute = (run: OfflineRun) => Promise<MetricResult>;

export async function computeMetrics(
  ids: readonly MetricId[],
  input: CaseInput,
  settings: MetricSettings,
  backends: OfflineBackends,
  onResult: (result: MetricResult) => void,
  signal?: AbortSignal,
): Promise<void> {
  const embedder = backends.embedder;
  let caseEmbedder: Promise<SentenceEmbedder> | undefined;
  let tokenizer: Promise<CaseTokenizer> | undefined;
  const run: OfflineRun = {
    input,
    settings,
    tokenizer: () => (tokenizer ??= resolveCaseTokenizer(input, backends.wordSegmenter)),
    backends: {
      ...backends,
      ...(embedder
        ? { embedder: () => (caseEmbedder ??= embedder().then(sharingEmbeddings)) }
        : {}),
    },
    signal,
  };

  const shared = new Map<SharedOfflineCalculator, MetricId[]>();
  const own: Array<{ id: MetricId; compute: OwnCompute | undefined }> = [];
  for (const id of ids) {
    const record = metricRecord(id);
    const compute = record.kind === 'offline' ? record.compute : undefined;
    if (compute !== undefined && typeof compute !== 'function') {
      shared.set(compute, [...(shared.get(compute) ?? []), id]);
    } else {
      own.push({ id, compute });
    }
  }

  for (const [calculator, wanted] of shared) {
    throwIfAborted(signal);
    const started = performance.now();
    let results: MetricResult[];
    try {
      results = await calculator.computeAll(run, wanted);
    } catch (error) {
      if (isAbort(error)) throw error;
      results = wanted.map((id) => failed(id, calculator.backend, messageOf(error), {}));
    }
    const elapsedMs = performance.now() - started;
    for (const result of results) {
      // A result timed by its calculator keeps its own time; else it carries the whole pass's.
      if (wanted.includes(result.id))
        onResult({ ...result, elapsedMs: result.elapsedMs ?? elapsedMs });
    }
  }

  for (const { id, compute } of own) {
    throwIfAborted(signal);
    const started = performance.now();
    const result = await computeOwn(id, compute, run);
    onResult({ ...result, elapsedMs: performance.now() - started });
  }
}

async function computeOwn(
  id: MetricId,
  compute: OwnCompute | undefined,
  run: OfflineRun,
): Promise<MetricResult> {
  if (!compute) return failed(id, 'none', ref('semantic.notOfflineMetric', { id }), {});
  try {
    return await compute(run);
  } catch (error) {
    if (isAbort(error)) throw error;
    return failed(id, 'none', messageOf(error), {});
  }
}
