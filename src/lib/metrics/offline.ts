/**
 * Runs the metrics that need no LLM for one case. The same function serves the browser workers and
 * the Node CLI: only the way the backends are obtained differs (fetch in a worker, fs in Node).
 */
import { messageOf } from '../errors.ts';
import { metricInfo } from './registry.ts';
import type { CaseInput, MetricId, MetricResult } from './types.ts';
import { failed } from './types.ts';
import type { MetricSettings } from './settings.ts';
import type { EntityRecognizer, SentenceEmbedder } from './semantic/backends.ts';
import { sharingEmbeddings, throwIfAborted } from './semantic/backends.ts';
import { scoreReferenceMetrics } from './lexical/reference-metrics.ts';
import { intlSegmenterFallback, type WordSegmenter } from './lexical/cjk-words.ts';
import { hasCjk } from './text/tokenize.ts';
import { scoreCoherence } from './semantic/coherence.ts';
import { scoreEntityDensity } from './semantic/entity-density.ts';
import { scoreRepetition } from './lexical/repetition.ts';

/** Lazily loaded backends; a worker provides only those its metrics need. */
export interface OfflineBackends {
  embedder?: () => Promise<SentenceEmbedder>;
  recognizer?: () => Promise<EntityRecognizer>;
  /**
   * Chinese word segmenter (jieba) for ROUGE and token F1, loaded only when the summary or the
   * reference contains CJK. Missing, or failing to load: Intl.Segmenter, and the backend strings
   * say so.
   */
  wordSegmenter?: () => Promise<WordSegmenter>;
}

/**
 * The segmenter for this case: none needed without a reference or without CJK; the Intl fallback,
 * labelled, when loading fails. Never throws.
 */
async function caseWordSegmenter(
  input: CaseInput,
  backends: OfflineBackends,
): Promise<WordSegmenter | undefined> {
  const reference = input.reference ?? '';
  if (!backends.wordSegmenter || reference.trim() === '') return undefined;
  if (!hasCjk(input.summary) && !hasCjk(reference)) return undefined;
  try {
    return await backends.wordSegmenter();
  } catch (error) {
    return intlSegmenterFallback(`jieba failed to load: ${messageOf(error)}`);
  }
}

const REFERENCE_BACKEND = 'reference metrics';

export async function computeMetrics(
  ids: readonly MetricId[],
  input: CaseInput,
  settings: MetricSettings,
  backends: OfflineBackends,
  onResult: (result: MetricResult) => void,
  signal?: AbortSignal,
): Promise<void> {
  const referenceIds = ids.filter((id) => metricInfo(id).needs === 'reference');
  if (referenceIds.length > 0) {
    throwIfAborted(signal);
    const started = performance.now();
    const wordSegmenter = await caseWordSegmenter(input, backends);
    throwIfAborted(signal);
    let results: MetricResult[];
    try {
      results = scoreReferenceMetrics(input, {
        useStemmer: settings.rouge.useStemmer,
        lsumSplitSentences: settings.rouge.lsumSplitSentences,
        tokenizer: settings.rouge.tokenizer,
        wordSegmenter,
      });
    } catch (error) {
      results = referenceIds.map((id) => failed(id, REFERENCE_BACKEND, messageOf(error), {}));
    }
    const elapsedMs = performance.now() - started;
    for (const result of results) {
      if (referenceIds.includes(result.id)) onResult({ ...result, elapsedMs });
    }
  }

  const embedder = backends.embedder;
  let caseEmbedder: Promise<SentenceEmbedder> | undefined;
  const caseBackends: OfflineBackends = {
    ...backends,
    ...(embedder ? { embedder: () => (caseEmbedder ??= embedder().then(sharingEmbeddings)) } : {}),
  };
  for (const id of ids) {
    const needs = metricInfo(id).needs;
    if (needs === 'reference') continue;
    throwIfAborted(signal);
    const started = performance.now();
    const result = await computeModelMetric(id, input, settings, caseBackends, signal);
    onResult({ ...result, elapsedMs: performance.now() - started });
  }
}

async function computeModelMetric(
  id: MetricId,
  input: CaseInput,
  settings: MetricSettings,
  backends: OfflineBackends,
  signal?: AbortSignal,
): Promise<MetricResult> {
  try {
    switch (id) {
      case 'coherence': {
        if (!backends.embedder) return failed(id, 'none', 'No embedding backend here.', {});
        const embedder = await backends.embedder();
        return withNotes(await scoreCoherence(input.summary, embedder, signal), embedder.notes);
      }
      case 'repetition-offline': {
        // The score is lexical; the embedder only adds the most similar sentence pair, so a
        // backend that cannot load costs that pair, not the score.
        let embedder: SentenceEmbedder | undefined;
        let loadNote: string | undefined;
        if (backends.embedder) {
          try {
            embedder = await backends.embedder();
          } catch (error) {
            if (isAbort(error)) throw error;
            loadNote = `No embedding pair: the embedding backend did not load (${messageOf(error)}).`;
          }
        }
        return withNotes(await scoreRepetition(input.summary, embedder, signal), [
          ...(embedder?.notes ?? []),
          ...(loadNote ? [loadNote] : []),
        ]);
      }
      case 'entity-density': {
        if (!backends.recognizer) return failed(id, 'none', 'No entity recogniser here.', {});
        const recognizer = await backends.recognizer();
        return withNotes(
          await scoreEntityDensity(input.summary, recognizer, settings.density, signal),
          recognizer.notes,
        );
      }
      default:
        return failed(id, 'none', `Metric ${id} is not an offline model metric.`, {});
    }
  } catch (error) {
    if (isAbort(error)) throw error;
    return failed(id, 'none', messageOf(error), {});
  }
}

function withNotes(result: MetricResult, notes: readonly string[] | undefined): MetricResult {
  if (!notes || notes.length === 0) return result;
  return { ...result, notes: [...(result.notes ?? []), ...notes] };
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}
