/**
 * Source order: does the summary tell things in the order the source does? Each summary sentence
 * is aligned to its most similar source sentence (cosine under the case's sentence encoder), and
 * the score is Kendall's τ-b between summary order and the aligned source positions, mapped to
 * [0, 1] as (τ + 1) / 2: 1 = every pair of sentences in source order, 0.5 = no relation, 0 = the
 * source order reversed. τ itself is the result's `raw`. Two summary sentences aligned to the same
 * source sentence are a tie, which τ-b leaves out of the numerator and corrects for.
 *
 * On SummEval dev it tracks expert coherence weakly (summary-level Spearman 0.22 with GloVe SIF,
 * 0.25 with USE-lite; consistency 0.15 and 0.17): summaries that follow the article's order tend
 * to be rated better, but a summary may reorder for good reasons.
 */
import { kendallTauB } from '../../../stats/correlation.ts';
import { explained, ref } from '../../../i18n/message.ts';
import { failed, notApplicable, withNotes } from '../../results.ts';
import type { CaseInput, MetricResult } from '../../types.ts';
import { throwIfAborted, type SentenceEmbedder } from '../backends.ts';
import {
  bestSourceMatches,
  caseSentences,
  embedCase,
  truncationNote,
  type SourceMatch,
} from '../sentence-alignment.ts';

export interface AlignedSummarySentence {
  index: number;
  text: string;
  /** UTF-16 offsets into the summary. */
  start: number;
  end: number;
  /** Its most similar source sentence; null when the sentence has no vector (no known words). */
  match: SourceMatch | null;
}

/** Two summary sentences (indices, a < b) told in the opposite order of their source sentences. */
export interface OutOfOrderPair {
  a: number;
  b: number;
}

export interface SourceOrderDetails {
  sentences: AlignedSummarySentence[];
  /** Kendall τ-b over the aligned sentences; null when undefined. */
  tau: number | null;
  outOfOrder: OutOfOrderPair[];
  /** Pairs of aligned sentences matched to the same source sentence. */
  tiedPairs: number;
  /** Sentences of the source that were compared. */
  sourceSentences: number;
  /** True when the source has more sentences than were compared. */
  sourceTruncated: boolean;
  backend: string;
}

export const MIN_SUMMARY_SENTENCES = 2;

/** The order statistics of aligned source positions in summary order (a pure function, tested). */
export function orderOf(positions: readonly number[]): {
  tau: number | null;
  outOfOrder: [number, number][];
  tiedPairs: number;
} {
  const outOfOrder: [number, number][] = [];
  let tiedPairs = 0;
  for (let a = 0; a < positions.length; a++) {
    for (let b = a + 1; b < positions.length; b++) {
      if (positions[a] > positions[b]) outOfOrder.push([a, b]);
      else if (positions[a] === positions[b]) tiedPairs++;
    }
  }
  const tau = kendallTauB(
    positions.map((_, i) => i),
    positions,
  );
  return { tau, outOfOrder, tiedPairs };
}

export async function scoreSourceOrder(
  input: CaseInput,
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
): Promise<MetricResult<'source-order'>> {
  const t0 = performance.now();
  throwIfAborted(signal);
  const backend = embedder.backend;
  const sentences = caseSentences(input);
  const base: SourceOrderDetails = {
    sentences: sentences.summary.map((s, index) => ({ index, ...s, match: null })),
    tau: null,
    outOfOrder: [],
    tiedPairs: 0,
    sourceSentences: sentences.source.sentences.length,
    sourceTruncated: sentences.source.truncated,
    backend,
  };
  if (sentences.summary.length < MIN_SUMMARY_SENTENCES) {
    return notApplicable(
      'source-order',
      backend,
      ref('semantic.sourceOrder.tooFewSentences', {
        min: MIN_SUMMARY_SENTENCES,
        count: sentences.summary.length,
      }),
      base,
    );
  }
  if (sentences.source.sentences.length === 0) {
    return notApplicable(
      'source-order',
      backend,
      ref('semantic.sourceOrder.sourceNoSentences'),
      base,
    );
  }
  const vectors = await embedCase(sentences, embedder, signal);
  if ('error' in vectors) return failed('source-order', backend, vectors.error, base);

  const matches = bestSourceMatches(sentences, vectors);
  const aligned = base.sentences.map((s, i) => ({ ...s, match: matches[i] }));
  const used = aligned.filter((s) => s.match !== null);
  const order = orderOf(used.map((s) => s.match!.index));
  const details: SourceOrderDetails = {
    ...base,
    sentences: aligned,
    tau: order.tau,
    outOfOrder: order.outOfOrder.map(([a, b]) => ({ a: used[a].index, b: used[b].index })),
    tiedPairs: order.tiedPairs,
  };
  const elapsedMs = performance.now() - t0;
  const truncation = truncationNote(sentences.source);
  const notes = truncation ? [truncation] : [];
  if (used.length < MIN_SUMMARY_SENTENCES) {
    return {
      ...notApplicable(
        'source-order',
        backend,
        ref('semantic.sourceOrder.tooFewKnown', { used: used.length, count: aligned.length }),
        details,
      ),
      elapsedMs,
    };
  }
  if (order.tau === null) {
    return withNotes(
      {
        ...notApplicable(
          'source-order',
          backend,
          ref('semantic.sourceOrder.allSameSentence', {
            count: used.length,
            sentence: used[0].match!.index + 1,
          }),
          details,
        ),
        elapsedMs,
      },
      notes,
    );
  }
  const pairs = (used.length * (used.length - 1)) / 2;
  const reversed = order.outOfOrder.length;
  return withNotes(
    {
      id: 'source-order',
      status: 'ok',
      score: (order.tau + 1) / 2,
      raw: order.tau,
      ...explained('semantic.sourceOrder.explanation', {
        kept: pairs - reversed - order.tiedPairs,
        pairs,
        reversed,
        ties: order.tiedPairs,
        tau: order.tau,
      }),
      backend,
      details,
      elapsedMs,
    },
    notes,
  );
}
