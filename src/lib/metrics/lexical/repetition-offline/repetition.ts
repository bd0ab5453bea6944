/**
 * Offline repetitiveness: how much of the summary says again, word for word, what it already
 * said. No model and no reference; words come from Intl.Segmenter (see text/tokenize.ts), so
 * Chinese and Japanese count words, not spaces.
 *
 * The score is 1 − the share of the summary's words that lie inside a repeat: a run of two or
 * more words that already occurred earlier in the summary, found by a greedy left-to-right parse
 * (at each word, the longest such run that starts there). The definition was chosen among
 * distinct-n ratios, repeated n-gram shares and sentence-overlap signals by measuring them on
 * SummEval dev only (scripts/measure-repetition.ts): it tracked expert coherence best (summary
 * level Spearman 0.357), a hair above distinct bigrams (0.349), and unlike a ratio it points at
 * the exact words it counts, which the card highlights.
 *
 * The details add what a reader checks next: distinct-1..3 ratios, each repeated phrase with its
 * occurrences, the pair of sentences that share the most words, and the pair the active embedding
 * backend finds most alike (those never change the score).
 */
import { messageOf } from '../../../errors.ts';
import { cosine } from '../../semantic/coherence/coherence.ts';
import { throwIfAborted, type SentenceEmbedder } from '../../semantic/backends.ts';
import { english, explained, ref, type MessageRef } from '../../../i18n/message.ts';
import { notApplicable, withNotes } from '../../results.ts';
import type { MetricResult, TextSpan } from '../../types.ts';
import { splitSentences, splitWords, type Segment } from '../../text/tokenize.ts';
import {
  backendWithTokenizer,
  tokenizerDetail,
  type CaseTokenizer,
} from '../../text/case-tokenizer.ts';

export const REPETITION_BACKEND = 'lexical repeats (Intl.Segmenter words)';

/** A repeat is at least this many words: single words repeat in any text (names, "the"). */
export const MIN_REPEAT_WORDS = 2;

/**
 * Earlier starts of a word pair examined per position. Only a pathological text (one word pair
 * thousands of times) reaches it; the parse then keeps the longest run among the latest starts.
 */
const MAX_CANDIDATES = 64;

/** Sentences compared pairwise for the most similar pair; beyond it the pair search is skipped. */
export const MAX_PAIR_SENTENCES = 1500;

export interface DistinctRatio {
  n: 1 | 2 | 3;
  distinct: number;
  total: number;
  /** distinct / total; null when the summary has fewer than n words. */
  ratio: number | null;
}

export interface RepeatOccurrence {
  /** UTF-16 offsets into the summary. */
  start: number;
  end: number;
  /** Index of the first word, counting the summary's words from 0. */
  word: number;
}

export interface RepeatedPhrase {
  /** The phrase as first written. */
  text: string;
  words: number;
  /** Where it is said again (counted in the score), in order. */
  repeats: RepeatOccurrence[];
  /** Where it was first said. */
  first: RepeatOccurrence;
}

export interface SentencePair {
  /** Sentence indices, a < b. */
  a: number;
  b: number;
  value: number;
}

export interface RepetitionDetails {
  kind: 'repetition';
  words: number;
  /** Words inside a repeat; the score is 1 − repeatedWords / words. */
  repeatedWords: number;
  distinct: DistinctRatio[];
  /** Grouped by their lower-cased words, most repeated words first. */
  phrases: RepeatedPhrase[];
  /** The repeats, as summary spans, for highlighting. */
  spans: TextSpan[];
  sentences: Segment[];
  /** Most shared words between two sentences: Jaccard of their word sets. */
  overlapPair: (SentencePair & { shared: string[] }) | null;
  /** Most similar two sentences by cosine under the embedding backend. */
  embeddingPair: (SentencePair & { backend: string }) | null;
  /** Why there is no embedding pair, when there could be one. */
  embeddingNote?: string;
  /** The tokenizer the backend line names. */
  caseTokenizer?: string;
}

interface Word {
  key: string;
  start: number;
  end: number;
}

function wordsOf(text: string, tokenizer?: CaseTokenizer): Word[] {
  return (tokenizer ? tokenizer.words(text) : splitWords(text)).map((w) => ({
    key: w.text.normalize('NFKC').toLowerCase(),
    start: w.start,
    end: w.end,
  }));
}

function distinctRatio(keys: readonly string[], n: 1 | 2 | 3): DistinctRatio {
  const total = Math.max(0, keys.length - n + 1);
  const seen = new Set<string>();
  for (let i = 0; i < total; i++) seen.add(keys.slice(i, i + n).join('\u0001'));
  return { n, distinct: seen.size, total, ratio: total > 0 ? seen.size / total : null };
}

interface Repeat {
  /** Word index where the repeat starts and the earlier start it copies. */
  at: number;
  from: number;
  length: number;
}

/** The greedy parse: at each word, the longest run of ≥ 2 words that started earlier too. */
export function findRepeats(keys: readonly string[]): Repeat[] {
  const pairStarts = new Map<string, number[]>();
  const repeats: Repeat[] = [];
  const pairKey = (i: number) => `${keys[i]}\u0001${keys[i + 1]}`;
  let indexed = 0;
  for (let i = 0; i + 1 < keys.length;) {
    // Only pairs that start before i are candidates, so index them lazily up to i.
    for (; indexed < i; indexed++) {
      const key = pairKey(indexed);
      const list = pairStarts.get(key);
      if (list) list.push(indexed);
      else pairStarts.set(key, [indexed]);
    }
    const candidates = pairStarts.get(pairKey(i)) ?? [];
    let best: Repeat | undefined;
    for (let c = candidates.length - 1; c >= Math.max(0, candidates.length - MAX_CANDIDATES); c--) {
      const from = candidates[c];
      let length = 0;
      while (i + length < keys.length && keys[from + length] === keys[i + length]) length++;
      // Ties keep the earliest start: the first time it was said.
      if (length >= MIN_REPEAT_WORDS && (!best || length >= best.length)) {
        best = { at: i, from, length };
      }
    }
    if (best) {
      repeats.push(best);
      i += best.length;
    } else {
      i++;
    }
  }
  return repeats;
}

function groupPhrases(
  summary: string,
  words: readonly Word[],
  repeats: Repeat[],
): RepeatedPhrase[] {
  const occurrence = (word: number, length: number): RepeatOccurrence => ({
    start: words[word].start,
    end: words[word + length - 1].end,
    word,
  });
  const byKey = new Map<string, RepeatedPhrase>();
  for (const r of repeats) {
    const key = words
      .slice(r.at, r.at + r.length)
      .map((w) => w.key)
      .join(' ');
    const phrase = byKey.get(key);
    if (phrase) {
      phrase.repeats.push(occurrence(r.at, r.length));
      continue;
    }
    const first = occurrence(r.from, r.length);
    byKey.set(key, {
      text: summary.slice(first.start, first.end),
      words: r.length,
      first,
      repeats: [occurrence(r.at, r.length)],
    });
  }
  return [...byKey.values()].sort(
    (p, q) =>
      q.words * q.repeats.length - p.words * p.repeats.length || p.first.start - q.first.start,
  );
}

function mostOverlappingPair(
  sentences: readonly Segment[],
): (SentencePair & { shared: string[] }) | null {
  const sets = sentences.map((s) => new Set(wordsOf(s.text).map((w) => w.key)));
  let best: (SentencePair & { shared: string[] }) | null = null;
  for (let a = 0; a < sets.length; a++) {
    for (let b = a + 1; b < sets.length; b++) {
      let shared = 0;
      for (const w of sets[a]) if (sets[b].has(w)) shared++;
      const union = sets[a].size + sets[b].size - shared;
      if (union === 0 || shared === 0) continue;
      const value = shared / union;
      if (!best || value > best.value) best = { a, b, value, shared: [] };
    }
  }
  if (best) best.shared = [...sets[best.a]].filter((w) => sets[best!.b].has(w));
  return best;
}

async function mostSimilarByEmbedding(
  sentences: readonly Segment[],
  embedder: SentenceEmbedder,
  signal?: AbortSignal,
): Promise<SentencePair & { backend: string }> {
  const vectors = await embedder.embed(
    sentences.map((s) => s.text),
    signal,
  );
  if (vectors.length !== sentences.length) {
    throw new Error(`${vectors.length} vectors for ${sentences.length} sentences`);
  }
  let best: (SentencePair & { backend: string }) | null = null;
  for (let a = 0; a < vectors.length; a++) {
    for (let b = a + 1; b < vectors.length; b++) {
      const value = cosine(vectors[a], vectors[b]);
      if (value !== null && (!best || value > best.value)) {
        best = { a, b, value, backend: embedder.backend };
      }
    }
  }
  if (!best) throw new Error('no two sentences have words the embedding knows');
  return best;
}

function quote(text: string): string {
  const clipped = text.length > 40 ? `${text.slice(0, 39)}…` : text;
  return `“${clipped}”`;
}

/**
 * Scores the summary's needless repetition. The embedder, when given, only adds the most similar
 * sentence pair to the details; its failure is a note, never a failed score.
 */
export async function scoreRepetition(
  summary: string,
  embedder?: SentenceEmbedder,
  signal?: AbortSignal,
  tokenizer?: CaseTokenizer,
): Promise<MetricResult<'repetition-offline'>> {
  throwIfAborted(signal);
  const backend = backendWithTokenizer(REPETITION_BACKEND, tokenizer);
  const words = wordsOf(summary, tokenizer);
  const keys = words.map((w) => w.key);
  const sentences = tokenizer ? splitSentences(summary, tokenizer.locale) : splitSentences(summary);
  const details: RepetitionDetails = {
    kind: 'repetition',
    words: words.length,
    repeatedWords: 0,
    distinct: ([1, 2, 3] as const).map((n) => distinctRatio(keys, n)),
    phrases: [],
    spans: [],
    sentences,
    overlapPair: null,
    embeddingPair: null,
    ...tokenizerDetail(tokenizer),
  };
  if (words.length < MIN_REPEAT_WORDS) {
    return notApplicable(
      'repetition-offline',
      backend,
      words.length === 0
        ? ref('lexical.reason.summaryNoWords')
        : ref('lexical.repetition.tooFewWords'),
      details,
    );
  }

  const repeats = findRepeats(keys);
  details.repeatedWords = repeats.reduce((sum, r) => sum + r.length, 0);
  details.phrases = groupPhrases(summary, words, repeats);
  details.spans = repeats.map((r) => {
    const start = words[r.at].start;
    const end = words[r.at + r.length - 1].end;
    return {
      start,
      end,
      text: summary.slice(start, end),
      label: `said before, at word ${r.from + 1}`,
      labelRef: ref('details.repetition.saidBeforeAt', { word: r.from + 1 }),
    };
  });

  let embeddingNote: MessageRef | undefined;
  if (sentences.length >= 2 && sentences.length <= MAX_PAIR_SENTENCES) {
    details.overlapPair = mostOverlappingPair(sentences);
    if (embedder) {
      try {
        details.embeddingPair = await mostSimilarByEmbedding(sentences, embedder, signal);
      } catch (error) {
        if (error instanceof DOMException && error.name === 'AbortError') throw error;
        embeddingNote = ref('lexical.repetition.embeddingFailed', {
          backend: embedder.backend,
          error: messageOf(error),
        });
      }
    }
  } else if (sentences.length > MAX_PAIR_SENTENCES) {
    embeddingNote = ref('lexical.repetition.tooManySentences', {
      max: MAX_PAIR_SENTENCES,
      count: sentences.length,
    });
  }

  const share = details.repeatedWords / words.length;
  const score = 1 - share;
  const top = details.phrases
    .slice(0, 3)
    .map((p) => `${quote(p.text)} ×${p.repeats.length + 1}`)
    .join(', ');
  if (embeddingNote) details.embeddingNote = english(embeddingNote.key, embeddingNote.values);
  const counts = { repeated: details.repeatedWords, words: words.length, share };
  const more = details.phrases.length - 3;
  const explanation =
    details.repeatedWords === 0
      ? explained('lexical.repetition.none', counts)
      : more > 0
        ? explained('lexical.repetition.explanationMore', { ...counts, top, more })
        : explained('lexical.repetition.explanation', { ...counts, top });
  return withNotes(
    {
      id: 'repetition-offline',
      status: 'ok',
      score,
      raw: share,
      ...explanation,
      backend: backend,
      details,
    },
    embeddingNote ? [embeddingNote] : undefined,
  );
}
