/**
 * One sentence aligner for every metric that asks "which source sentence does this summary
 * sentence come from" (support, source order, the fact check) and the reverse question "which
 * summary sentence covers this source sentence" (source coverage).
 *
 * Why not the encoder alone: a sentence encoder's cosine aligned "save the children fears 400
 * migrants could be missing" to a sentence about the IOM (cosine 0.59) rather than to the source
 * sentence holding those very words, and every metric then cited the wrong evidence. The words
 * decide when they are there; the encoder decides paraphrases, where they are not.
 *
 * The score of a (summary sentence, source sentence) pair:
 *
 *   lexical part  = Σ idf(t) · lengthFactor(source sentence)  over shared content stems t
 *                   ───────────────────────────────────────
 *                   Σ idf(t)                                   over the summary sentence's stems
 *   score         = (1 − COSINE_WEIGHT) · lexical part + COSINE_WEIGHT · cosine   (encoder on)
 *   score         = lexical part                                             (encoder off)
 *
 * with BM25's idf over the source's sentences (a stem in every sentence says little; one in a
 * single sentence says much) and BM25's length normalisation (k1 = 1.2, b = LENGTH_B; the data
 * chose b = 0, none). The weight and b were chosen by scripts/alignment-share.ts on SummEval dev
 * (see the constants below); QAGS was held out.
 *
 * Content stems: lower-cased NFKC words of the case's tokenizer, English stop words dropped
 * (source-coverage.ts's list), Porter stems for Latin scripts, a short prefix for Cyrillic (Russian
 * inflects the ending, no stemmer is shipped), the tokenizer's words for CJK (kana-only function
 * words and a few Chinese particles dropped), and digit tokens ("400", "2015") as content.
 *
 * Cost: the source's stems and an inverted index are built once per source list (cached for the
 * last few lists), and a summary sentence is scored only against the source sentences sharing a
 * stem with it, plus every sentence when cosines are given (the encoder path caps the source at
 * SOURCE_SENTENCE_CAP sentences). A 300,000-word source is tokenised once, linearly, and its index
 * is bounded by MAX_INDEXED_CHARS characters (the rest is not tokenised); a text without sentence ends is one long sentence whose
 * stem set is distinct stems, not words.
 */
import type { Segment } from './tokenize.ts';
import { splitWords } from './tokenize.ts';
import type { CaseTokenizer } from './case-tokenizer.ts';
import { isContentWord } from '../lexical/source-coverage/source-coverage.ts';
import { createPorterStemmer } from '../lexical/porter-stemmer.ts';
import { recentValues } from '../../recent.ts';

export interface SentenceAlignment {
  /** best source sentence index, -1 when no source sentence shares a content stem and no cosine is given */
  index: number;
  /** share of the summary sentence's distinct content stems found in that source sentence (0–1) */
  lexical: number;
  /** encoder cosine with that source sentence; null when no vectors were given */
  cosine: number | null;
  /** the combined score the ranking used */
  score: number;
}

export interface AlignOptions {
  /** The case's tokenizer (language-aware words); default: Intl.Segmenter words. */
  tokenizer?: CaseTokenizer;
  /** Encoder cosine, when an encoder ran; null for a pair without one (zero vector). */
  cosine?: (summaryIndex: number, sourceIndex: number) => number | null;
}

/**
 * Weight of the cosine when both parts are there (the lexical part gets 1 − COSINE_WEIGHT).
 * Chosen by scripts/alignment-share.ts on SummEval dev (600 summaries, 1,760 summary sentences that
 * have a source sentence holding ≥ 60% of their content stems), QAGS held out: on the grid
 * w = 0, 0.05, …, 1 × b ∈ {0, 0.3, 0.5, 0.75}, the largest w that keeps ≥ 99% of those sentences
 * aligned to such a sentence, so that the encoder decides as much as it can (paraphrases, sentences
 * sharing few words) without overruling the words. w = 0.6 (99.1%; 0.65 falls under 99%; the
 * encoder alone, w = 1, was 86.5%; words alone 99.7%). QAGS CNN/DM + XSum (754 such sentences):
 * 98.9% combined, 99.6% words alone, 89.1% encoder alone.
 */
export const COSINE_WEIGHT = 0.6;
/**
 * BM25 length normalisation (0: none, 1: full), chosen with the weight: b = 0 scored best at every
 * w (a long source sentence is not penalised: a summary sentence fused from one long sentence is
 * common in news), so the lexical part is the idf-weighted share of the summary sentence's stems.
 */
export const LENGTH_B = 0;
const K1 = 1.2;
/**
 * Characters of the sentence list that are tokenised (summed over sentences; one sentence of
 * more is cut): about 16,000 English words, six 2,500-word articles, far past the
 * SOURCE_SENTENCE_CAP sentences the encoder metrics embed. Intl.Segmenter costs ~10 µs a word
 * under Node 20, so a 300,000-word source would take seconds; past the budget, sentences have no
 * stems (they can still be chosen by their cosine), which bounds time and memory.
 */
export const MAX_INDEXED_CHARS = 100_000;

// ── content stems ────────────────────────────────────────────────────────────────────────────

const stemLatin = createPorterStemmer();
const HAS_DIGIT = /\p{N}/u;
const HAS_LETTER = /\p{L}/u;
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;
const KANA_ONLY = /^[\u3040-\u309f\u30fc]+$/u;
const LATIN_WORD = /^[\p{Script=Latin}\p{N}'’-]+$/u;
const CYRILLIC = /\p{Script=Cyrillic}/u;
/**
 * Cyrillic words lose their vowel ending (Москва, Москвы, Москве → москв) and are cut to this many
 * letters (мигранты, мигрантов → мигран): a crude but stable stand-in for a stemmer.
 */
const CYRILLIC_PREFIX = 6;
const CYRILLIC_ENDING = /[аеиоуыэюяйь]{1,3}$/u;
/** Frequent Chinese function words (single characters and a few pairs). */
const CHINESE_STOP = new Set(
  '的 了 是 在 和 与 及 也 都 就 而 着 把 被 这 那 有 为 对 从 到 将 于 之 其 或 但 并 等 个 我 你 他 她 它 们 我们 他们 一个 没有 已经 因为 所以 如果 可以 表示'.split(
    ' ',
  ),
);
/** Frequent Russian function words longer than one letter (one-letter words are dropped anyway). */
const RUSSIAN_STOP = new Set(
  (
    'не на что он как по но из за от то же до для вы мы они она оно их его ее её был была было ' +
    'были быть это этот эта эти все всё так уже или ни бы ли если при без под над об про чем чём ' +
    'где когда там тут кто который которая которые которых также еще ещё только может очень'
  ).split(' '),
);

/** The stem of one lower-cased word, or undefined when it is no content word. */
function contentStem(key: string): string | undefined {
  if (HAS_DIGIT.test(key) && !HAS_LETTER.test(key)) return key;
  if (CJK.test(key)) {
    if (KANA_ONLY.test(key) || CHINESE_STOP.has(key)) return undefined;
    return key;
  }
  if (CYRILLIC.test(key)) {
    if (key.length < 2 || RUSSIAN_STOP.has(key)) return undefined;
    const word = key.replace(/ё/gu, 'е');
    const bare = word.replace(CYRILLIC_ENDING, '');
    return (bare.length >= 3 ? bare : word).slice(0, CYRILLIC_PREFIX);
  }
  if (!isContentWord(key)) return HAS_DIGIT.test(key) ? key : undefined;
  return LATIN_WORD.test(key) ? stemLatin(key) : key;
}

function wordsOf(text: string, tokenizer: CaseTokenizer | undefined): readonly Segment[] {
  return tokenizer ? tokenizer.words(text) : splitWords(text);
}

/** The first `maxChars` characters of a text, cut at a space when there is one. */
function within(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const space = text.lastIndexOf(' ', maxChars);
  return text.slice(0, space > maxChars / 2 ? space : maxChars);
}

function stemSet(
  text: string,
  tokenizer: CaseTokenizer | undefined,
  maxChars = MAX_INDEXED_CHARS,
): Set<string> {
  const out = new Set<string>();
  if (maxChars <= 0) return out;
  for (const w of wordsOf(within(text, maxChars), tokenizer)) {
    const s = contentStem(w.text.normalize('NFKC').toLowerCase());
    if (s !== undefined) out.add(s);
  }
  return out;
}

/** Distinct content stems of a text (lower-cased, stop words dropped, Porter-stemmed for Latin scripts; CJK: the tokenizer's words) */
export function contentStemsOf(text: string, tokenizer?: CaseTokenizer): string[] {
  return [...stemSet(text, tokenizer, Infinity)];
}

// ── the source index ─────────────────────────────────────────────────────────────────────────

interface SentenceIndex {
  /** Distinct stems of every sentence. */
  stems: Set<string>[];
  /** Sentences holding each stem, ascending. */
  postings: Map<string, number[]>;
  /** BM25 idf of a stem (for one absent from every sentence: the largest idf). */
  idf: (stem: string) => number;
  /** BM25 length factor of each sentence (1 at the mean length). */
  lengthFactor: Float64Array;
}

function buildIndex(
  sentences: readonly Segment[],
  tokenizer: CaseTokenizer | undefined,
  idfFrom?: SentenceIndex,
  lengthB = LENGTH_B,
): SentenceIndex {
  const stems: Set<string>[] = [];
  const postings = new Map<string, number[]>();
  let budget = MAX_INDEXED_CHARS;
  for (const [i, s] of sentences.entries()) {
    const set = stemSet(s.text, tokenizer, budget);
    budget -= s.text.length;
    stems.push(set);
    for (const t of set) {
      const list = postings.get(t);
      if (list) list.push(i);
      else postings.set(t, [i]);
    }
  }
  const n = sentences.length;
  const idf =
    idfFrom?.idf ??
    ((stem: string): number => {
      const df = postings.get(stem)?.length ?? 0;
      return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    });
  const mean = stems.reduce((sum, s) => sum + s.size, 0) / Math.max(1, n) || 1;
  const lengthFactor = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    lengthFactor[i] = (K1 + 1) / (1 + K1 * (1 - lengthB + (lengthB * stems[i].size) / mean));
  }
  return { stems, postings, idf, lengthFactor };
}

/** The last few indexes, by sentence list and tokenizer (support, order and coverage share one). */
const recentIndexes = recentValues<
  { sentences: readonly Segment[]; tokenizer: CaseTokenizer | undefined; lengthB: number },
  SentenceIndex
>(
  4,
  (a, b) => a.sentences === b.sentences && a.tokenizer === b.tokenizer && a.lengthB === b.lengthB,
);

function indexOf(
  sentences: readonly Segment[],
  tokenizer: CaseTokenizer | undefined,
  lengthB: number,
): SentenceIndex {
  return recentIndexes({ sentences, tokenizer, lengthB }, () =>
    buildIndex(sentences, tokenizer, undefined, lengthB),
  );
}

// ── alignment ────────────────────────────────────────────────────────────────────────────────

/** Tuning knobs for scripts/alignment-share.ts; the metrics use the defaults. */
export interface AlignTuning {
  cosineWeight?: number;
  lengthB?: number;
}

function alignQueries(
  queries: Set<string>[],
  docs: SentenceIndex,
  idf: (stem: string) => number,
  pairCosine: ((query: number, doc: number) => number | null) | undefined,
  cosineWeight: number,
): SentenceAlignment[] {
  const docCount = docs.stems.length;
  const overlap = new Float64Array(docCount);
  const shared = new Uint32Array(docCount);
  return queries.map((q, qi) => {
    overlap.fill(0);
    shared.fill(0);
    let total = 0;
    const touched: number[] = [];
    for (const t of q) {
      const w = idf(t);
      total += w;
      for (const d of docs.postings.get(t) ?? []) {
        if (shared[d] === 0) touched.push(d);
        shared[d]++;
        overlap[d] += w;
      }
    }
    const lexicalPart = (d: number): number =>
      total > 0 ? (overlap[d] * docs.lengthFactor[d]) / total : 0;
    let best: SentenceAlignment = { index: -1, lexical: 0, cosine: null, score: 0 };
    const consider = (d: number, cos: number | null): void => {
      const lex = lexicalPart(d);
      const score =
        cos === null
          ? pairCosine
            ? (1 - cosineWeight) * lex
            : lex
          : (1 - cosineWeight) * lex + cosineWeight * cos;
      if (best.index < 0 || score > best.score || (score === best.score && d < best.index)) {
        best = { index: d, lexical: q.size > 0 ? shared[d] / q.size : 0, cosine: cos, score };
      }
    };
    if (pairCosine) {
      for (let d = 0; d < docCount; d++) consider(d, pairCosine(qi, d));
      // A pair without a cosine and without a shared stem is no alignment.
      if (best.cosine === null && shared[best.index] === 0) {
        best = { index: -1, lexical: 0, cosine: null, score: 0 };
      }
    } else {
      touched.sort((a, b) => a - b);
      for (const d of touched) consider(d, null);
    }
    return best;
  });
}

/** One alignment per summary sentence. */
export function alignSentences(
  summary: readonly Segment[],
  source: readonly Segment[],
  options: AlignOptions & AlignTuning = {},
): SentenceAlignment[] {
  const lengthB = options.lengthB ?? LENGTH_B;
  const docs = indexOf(source, options.tokenizer, lengthB);
  const queries = summary.map((s) => stemSet(s.text, options.tokenizer));
  return alignQueries(
    queries,
    docs,
    docs.idf,
    options.cosine,
    options.cosineWeight ?? COSINE_WEIGHT,
  );
}

/** For every source sentence, the best summary sentence and its score (the reverse direction, for coverage). */
export function alignSourceToSummary(
  summary: readonly Segment[],
  source: readonly Segment[],
  options: AlignOptions & AlignTuning = {},
): SentenceAlignment[] {
  const lengthB = options.lengthB ?? LENGTH_B;
  const sourceIndex = indexOf(source, options.tokenizer, lengthB);
  // Summary sentences are the documents; rarity is still the source's (a stem every source
  // sentence uses says little about which summary sentence covers one of them).
  const docs = buildIndex(summary, options.tokenizer, sourceIndex, lengthB);
  const cosine = options.cosine;
  return alignQueries(
    sourceIndex.stems,
    docs,
    sourceIndex.idf,
    cosine ? (sourceAt, summaryAt) => cosine(summaryAt, sourceAt) : undefined,
    options.cosineWeight ?? COSINE_WEIGHT,
  );
}
