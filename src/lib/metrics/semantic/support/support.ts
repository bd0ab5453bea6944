/**
 * Source support: how close each summary sentence comes to some source sentence under the case's
 * sentence encoder. The score is the mean over summary sentences of the best cosine with any
 * source sentence. Sentences whose best match falls below the encoder's calibrated threshold are
 * flagged `unsupportedRisk`: no source sentence is close to them. That is a risk to check, never a
 * finding that the sentence is false: a sentence can combine two source sentences, or paraphrase
 * beyond what the encoder sees, and a close match can still change a number.
 *
 * Cosine scales differ by encoder, so each built-in encoder has its own threshold, derived from
 * data (sentence-alignment.ts, ENCODER_THRESHOLDS); other backends get no threshold and no flags.
 * On SummEval dev (summary level): Spearman 0.33 with expert consistency with GloVe SIF, 0.25
 * with USE-lite.
 */
import { explained, ref } from '../../../i18n/message.ts';
import { failed, notApplicable, withNotes } from '../../results.ts';
import type { CaseInput, MetricResult } from '../../types.ts';
import { throwIfAborted, type SentenceEmbedder } from '../backends.ts';
import {
  bestSourceMatches,
  caseSentences,
  embedCase,
  ENCODER_THRESHOLDS,
  thresholdsFor,
  truncationNote,
  type CalibratedThreshold,
  type EncoderThresholds,
  type SourceMatch,
} from '../sentence-alignment.ts';

export interface SupportSentence {
  index: number;
  text: string;
  /** UTF-16 offsets into the summary. */
  start: number;
  end: number;
  /** Its closest source sentence; null when the sentence has no vector (no known words). */
  match: SourceMatch | null;
  /** True when the closest source sentence is below the threshold: a risk, not a verdict. */
  unsupportedRisk: boolean;
}

export interface SupportDetails {
  sentences: SupportSentence[];
  /** The encoder's calibrated threshold; null when this backend has none (nothing flagged). */
  threshold: CalibratedThreshold | null;
  flagged: number;
  sourceSentences: number;
  /** True when the source has more sentences than were compared. */
  sourceTruncated: boolean;
  backend: string;
}

export async function scoreSupport(
  input: CaseInput,
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
  thresholds: Readonly<Record<string, EncoderThresholds>> = ENCODER_THRESHOLDS,
): Promise<MetricResult<'support'>> {
  const t0 = performance.now();
  throwIfAborted(signal);
  const backend = embedder.backend;
  const sentences = caseSentences(input);
  const threshold = thresholdsFor(backend, thresholds)?.support ?? null;
  const base: SupportDetails = {
    sentences: sentences.summary.map((s, index) => ({
      index,
      ...s,
      match: null,
      unsupportedRisk: false,
    })),
    threshold,
    flagged: 0,
    sourceSentences: sentences.source.sentences.length,
    sourceTruncated: sentences.source.truncated,
    backend,
  };
  if (sentences.summary.length === 0) {
    return notApplicable('support', backend, ref('semantic.support.summaryNoSentences'), base);
  }
  if (sentences.source.sentences.length === 0) {
    return notApplicable('support', backend, ref('semantic.support.sourceNoSentences'), base);
  }
  const vectors = await embedCase(sentences, embedder, signal);
  if ('error' in vectors) return failed('support', backend, vectors.error, base);

  const matches = bestSourceMatches(sentences, vectors);
  const scoredSentences = base.sentences.map((s, i) => {
    const match = matches[i];
    const unsupportedRisk =
      match !== null && threshold !== null && match.similarity < threshold.threshold;
    return { ...s, match, unsupportedRisk };
  });
  const details: SupportDetails = {
    ...base,
    sentences: scoredSentences,
    flagged: scoredSentences.filter((s) => s.unsupportedRisk).length,
  };
  const similarities = matches.flatMap((m) => (m ? [m.similarity] : []));
  const elapsedMs = performance.now() - t0;
  const truncation = truncationNote(sentences.source);
  const notes = [
    ...(threshold === null ? [ref('semantic.support.uncalibrated', { backend })] : []),
    ...(truncation ? [truncation] : []),
  ];
  if (similarities.length === 0) {
    return {
      ...notApplicable('support', backend, ref('semantic.support.noKnownWords'), details),
      elapsedMs,
    };
  }
  const score = similarities.reduce((a, b) => a + b, 0) / similarities.length;
  const mean = { compared: similarities.length, cosine: score };
  return withNotes(
    {
      id: 'support',
      status: 'ok',
      score,
      ...(threshold === null
        ? explained('semantic.support.explanation', mean)
        : explained('semantic.support.explanationThreshold', {
            ...mean,
            flagged: details.flagged,
            threshold: threshold.threshold,
          })),
      backend,
      details,
      elapsedMs,
    },
    notes,
  );
}
