/**
 * ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum (Lin 2004, "ROUGE: A Package for Automatic Evaluation
 * of Summaries"), computed as Google's `rouge_score` 0.1.2 (`rouge_scorer.RougeScorer`) computes
 * them: target = reference, prediction = summary; precision, recall and F1 per type.
 *
 * - Tokenizer: rouge_score's DefaultTokenizer: lower-case, every run of [^a-z0-9] becomes a space,
 *   split, Porter-stem (NLTK flavour, see porter-stemmer.ts) tokens longer than 3 characters when
 *   stemming, keep tokens matching ^[a-z0-9]+$.
 * - ROUGE-N: clipped n-gram counts; P = overlap / max(#prediction n-grams, 1), R likewise.
 * - ROUGE-L: LCS of the two whole token sequences.
 * - ROUGE-Lsum: summary-level LCS. Each text is split into sentences on "\n" (rouge_score's
 *   default; text without newlines is one sentence, so Lsum equals L); for every reference
 *   sentence the union of its LCS positions with each summary sentence is counted, each token
 *   at most as often as it occurs in both texts. `lsumSplitSentences: true` splits with
 *   `splitSentences` (Intl.Segmenter) instead, our stand-in for rouge_score's
 *   `split_summaries=True` (which calls nltk.sent_tokenize): scores then follow the common
 *   "sent_tokenize, join with newlines, score rougeLsum" recipe closely but not bit for bit.
 *
 * Deliberate divergences:
 * - Non-Latin scripts. rouge_score's tokenizer deletes every character outside [a-z0-9], so any
 *   Chinese, Japanese, Korean, Cyrillic, Greek, Arabic... text scores 0 against anything. When
 *   such letters make up at least a tenth (`NON_LATIN_SHARE_FOR_SEGMENTER`) of either text's
 *   letters and digits, both texts are tokenised instead with Intl.Segmenter words (NFKC,
 *   lower-cased, word-like segments only; ASCII words are still stemmed when stemming). Below
 *   that share (an English summary quoting one Greek letter or one Chinese name) we keep
 *   rouge_score's tokenizer so that English scores stay identical to the tool people compare
 *   against. Latin letters with diacritics stay with rouge_score's tokenizer, mangled exactly as
 *   rouge_score mangles them. Chinese words come from the `wordSegmenter` option (jieba when
 *   loaded, see jieba.ts; by default the Intl.Segmenter stand-in of cjk-words.ts), keeping the
 *   segments that hold a letter or digit.
 *   The result says which tokenizer ran; scores of the two never compare.
 * - Cost guard. rouge_score fills a full n·m table in Python, which on a 1 MB text never ends.
 *   When target tokens × prediction tokens exceeds `LCS_CELL_BUDGET` (2·10⁷ cells, about 4,500 ×
 *   4,500 tokens, under a second in a worker), ROUGE-L and ROUGE-Lsum are 'n/a' with the reason;
 *   ROUGE-1/2 are linear and always computed. For Lsum the cells of all sentence pairs add up to
 *   the same product, so the same guard applies.
 */
import { reasoned, type MessageRef } from '../../../i18n/message.ts';
import { guessLocale, splitSentences } from '../../text/tokenize.ts';
import { intlWordSegmenter, usesWordSegmenter, type WordSegmenter } from '../cjk-words.ts';
import { Interner, LCS_CELL_BUDGET, lcsIndices, lcsLength } from '../lcs.ts';
import {
  ZERO,
  chooseRougeTokenizer,
  fmeasure,
  rougeScoreTokenize,
  segmenterTokenize,
  sharedStemmer,
} from './rouge-tokenize.ts';

export { LCS_CELL_BUDGET } from '../lcs.ts';

export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

export type RougeType = 'rouge1' | 'rouge2' | 'rougeL' | 'rougeLsum';

export type RougeTokenizerKind = 'rouge_score' | 'intl-segmenter';

/** An LCS-based score, or why it was not computed. */
export type RougeLcsOutcome =
  | {
      status: 'ok';
      score: RougeScore;
      /** LCS length (L) or union-LCS hits (Lsum). */
      hits: number;
    }
  | { status: 'n/a'; reason: string; reasonRef: MessageRef; cells: number; budget: number };

export interface RougeOptions {
  /** Porter-stem tokens longer than 3 characters (rouge_score `use_stemmer`); default false. */
  useStemmer?: boolean;
  /** 'auto' (default) picks Intl.Segmenter for non-Latin text, see the file header. */
  tokenizer?: 'auto' | RougeTokenizerKind;
  /**
   * Lsum sentences: false (default) splits on newlines as rouge_score does; true splits with
   * Intl.Segmenter sentences, like rouge_score's `split_summaries=True`.
   */
  lsumSplitSentences?: boolean;
  /** Maximum target × prediction tokens for the LCS scores; default LCS_CELL_BUDGET. */
  lcsCellBudget?: number;
  /** Chinese words when the segmenter tokenizer runs; default Intl.Segmenter. */
  wordSegmenter?: WordSegmenter;
  /** Segmenter locale (the case's language); default guessed from both texts' script. */
  segmenterLocale?: string;
}

export interface RougeResult {
  rouge1: RougeScore;
  rouge2: RougeScore;
  rougeL: RougeLcsOutcome;
  rougeLsum: RougeLcsOutcome;
  tokenizer: RougeTokenizerKind;
  /** The Chinese word segmenter that ran (segmenter tokenizer on Chinese text), else null. */
  wordSegmenter: WordSegmenter | null;
  stemmed: boolean;
  targetTokens: number;
  predictionTokens: number;
  lsumSentenceSplit: 'newline' | 'intl-segmenter';
  targetSentences: number;
  predictionSentences: number;
  /**
   * Milliseconds each part took: the whole-text tokenization that ROUGE-1, -2 and -L share, the
   * per-sentence tokenization only Lsum needs, and each type's own counting.
   */
  timings: RougeTimings;
}

export interface RougeTimings {
  tokenizeMs: number;
  lsumTokenizeMs: number;
  rouge1Ms: number;
  rouge2Ms: number;
  rougeLMs: number;
  rougeLsumMs: number;
}

function ngramCounts(ids: Int32Array, n: number): Map<number | string, number> {
  const counts = new Map<number | string, number>();
  for (let i = 0; i + n <= ids.length; i++) {
    // Ids are dense (< 2^26 for any text that fits in memory), so a bigram fits one float.
    const key: number | string =
      n === 1
        ? ids[i]
        : n === 2
          ? ids[i] * 67_108_864 + ids[i + 1]
          : Array.from(ids.subarray(i, i + n)).join(',');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * `_score_ngrams` over ids of one interner (`vocabulary` of them). Unigrams count in an array
 * indexed by id rather than a Map: ROUGE-1 of 600 pairs spent most of its time hashing.
 */
function rougeNFromIds(t: Int32Array, p: Int32Array, n: number, vocabulary: number): RougeScore {
  let overlap = 0;
  if (n === 1) {
    const counts = new Int32Array(vocabulary);
    for (let i = 0; i < p.length; i++) counts[p[i]]++;
    for (let i = 0; i < t.length; i++) {
      // Each target occurrence takes one prediction occurrence while any is left: min(count, count).
      if (counts[t[i]] > 0) {
        counts[t[i]]--;
        overlap++;
      }
    }
  } else {
    const tc = ngramCounts(t, n);
    const pc = ngramCounts(p, n);
    for (const [gram, count] of tc) overlap += Math.min(count, pc.get(gram) ?? 0);
  }
  const targetCount = Math.max(t.length - n + 1, 0);
  const predictionCount = Math.max(p.length - n + 1, 0);
  const precision = overlap / Math.max(predictionCount, 1);
  const recall = overlap / Math.max(targetCount, 1);
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

function overBudget(cells: number, budget: number, what: string): RougeLcsOutcome {
  // Exponent notation is the one a person can compare at this size; it reads the same everywhere.
  const reason = reasoned('lexical.rouge.overBudget', {
    what,
    cells: cells.toExponential(1),
    budget: budget.toExponential(1),
  });
  return { status: 'n/a', ...reason, cells, budget };
}

function rougeLFromIds(t: Int32Array, p: Int32Array, budget: number): RougeLcsOutcome {
  if (t.length === 0 || p.length === 0) {
    return { status: 'ok', score: { ...ZERO }, hits: 0 };
  }
  const cells = t.length * p.length;
  if (cells > budget) return overBudget(cells, budget, 'ROUGE-L');
  const lcs = lcsLength(t, p);
  const precision = lcs / p.length;
  const recall = lcs / t.length;
  return {
    status: 'ok',
    score: { precision, recall, fmeasure: fmeasure(precision, recall) },
    hits: lcs,
  };
}

/** rouge_score `_summary_level_lcs` (ROUGE-Lsum) over tokenised sentences, with the cost guard. */
export function rougeLsumFromSentences(
  targetSentences: readonly (readonly string[])[],
  predictionSentences: readonly (readonly string[])[],
  budget = LCS_CELL_BUDGET,
): RougeLcsOutcome {
  const m = targetSentences.reduce((s, x) => s + x.length, 0);
  const n = predictionSentences.reduce((s, x) => s + x.length, 0);
  if (m === 0 || n === 0) return { status: 'ok', score: { ...ZERO }, hits: 0 };
  const cells = m * n;
  if (cells > budget) return overBudget(cells, budget, 'ROUGE-Lsum');

  const interner = new Interner();
  const refs = targetSentences.map((s) => interner.intern(s));
  const cans = predictionSentences.map((s) => interner.intern(s));
  // Token counts cap the hits, so a token the union finds in several sentences counts only as
  // often as it really occurs in both texts.
  const countsR = new Map<number, number>();
  const countsC = new Map<number, number>();
  for (const s of refs) for (const t of s) countsR.set(t, (countsR.get(t) ?? 0) + 1);
  for (const s of cans) for (const t of s) countsC.set(t, (countsC.get(t) ?? 0) + 1);

  let hits = 0;
  for (const r of refs) {
    const union = new Set<number>();
    for (const c of cans) for (const idx of lcsIndices(r, c, 'rouge_score')) union.add(idx);
    for (const idx of [...union].sort((a, b) => a - b)) {
      const t = r[idx];
      const cr = countsR.get(t) ?? 0;
      const cc = countsC.get(t) ?? 0;
      if (cc > 0 && cr > 0) {
        hits++;
        countsC.set(t, cc - 1);
        countsR.set(t, cr - 1);
      }
    }
  }
  const recall = hits / m;
  const precision = hits / n;
  return {
    status: 'ok',
    score: { precision, recall, fmeasure: fmeasure(precision, recall) },
    hits,
  };
}

/** Sentences for Lsum: non-empty newline-separated lines (rouge_score) or segmenter sentences. */
export function lsumSentences(text: string, splitSentencesWithSegmenter: boolean): string[] {
  if (splitSentencesWithSegmenter) return splitSentences(text).map((s) => s.text);
  return text.split('\n').filter((line) => line.length > 0);
}

/** All four ROUGE types for one (target = reference, prediction = summary) pair. */
export function rouge(target: string, prediction: string, options: RougeOptions = {}): RougeResult {
  const stemmed = options.useStemmer ?? false;
  const budget = options.lcsCellBudget ?? LCS_CELL_BUDGET;
  const tokenizer =
    options.tokenizer === undefined || options.tokenizer === 'auto'
      ? chooseRougeTokenizer(target, prediction)
      : options.tokenizer;
  // One locale for both texts, so the same word segments the same way on both sides.
  const locale =
    tokenizer === 'intl-segmenter'
      ? (options.segmenterLocale ?? guessLocale(`${target}\n${prediction}`))
      : undefined;
  const stem = stemmed ? sharedStemmer : undefined;
  const wordSegmenter =
    tokenizer === 'intl-segmenter' && usesWordSegmenter(locale)
      ? (options.wordSegmenter ?? intlWordSegmenter)
      : null;
  const tokenize = (text: string): string[] =>
    tokenizer === 'rouge_score'
      ? rougeScoreTokenize(text, stem)
      : segmenterTokenize(text, locale, stem, wordSegmenter ?? undefined);

  let clock = performance.now();
  const lap = (): number => {
    const at = performance.now();
    const ms = at - clock;
    clock = at;
    return ms;
  };
  const targetTokens = tokenize(target);
  const predictionTokens = tokenize(prediction);
  // One interner for the pair: ROUGE-1, -2 and -L compare the same integer ids.
  const interner = new Interner();
  const targetIds = interner.intern(targetTokens);
  const predictionIds = interner.intern(predictionTokens);
  const tokenizeMs = lap();
  const rouge1 = rougeNFromIds(targetIds, predictionIds, 1, interner.size);
  const rouge1Ms = lap();
  const rouge2 = rougeNFromIds(targetIds, predictionIds, 2, interner.size);
  const rouge2Ms = lap();
  const rougeL = rougeLFromIds(targetIds, predictionIds, budget);
  const rougeLMs = lap();
  const splitWithSegmenter = options.lsumSplitSentences ?? false;
  // Split on newlines, a text without one is one sentence holding all its tokens; with both
  // texts so, the summary-level LCS is the LCS itself (every LCS token occurs in both texts, so
  // the count cap never bites) and Lsum equals L exactly, as rouge_score's own numbers show.
  const oneLineEach =
    !splitWithSegmenter &&
    rougeL.status === 'ok' &&
    !target.includes('\n') &&
    !prediction.includes('\n');
  const targetSents = oneLineEach
    ? [targetTokens].slice(0, target.length > 0 ? 1 : 0)
    : lsumSentences(target, splitWithSegmenter).map(tokenize);
  const predictionSents = oneLineEach
    ? [predictionTokens].slice(0, prediction.length > 0 ? 1 : 0)
    : lsumSentences(prediction, splitWithSegmenter).map(tokenize);
  const lsumTokenizeMs = lap();
  const rougeLsum = oneLineEach
    ? rougeL
    : rougeLsumFromSentences(targetSents, predictionSents, budget);
  const rougeLsumMs = lap();

  return {
    rouge1,
    rouge2,
    rougeL,
    rougeLsum,
    tokenizer,
    wordSegmenter,
    stemmed,
    targetTokens: targetTokens.length,
    predictionTokens: predictionTokens.length,
    lsumSentenceSplit: splitWithSegmenter ? 'intl-segmenter' : 'newline',
    targetSentences: targetSents.length,
    predictionSentences: predictionSents.length,
    timings: { tokenizeMs, lsumTokenizeMs, rouge1Ms, rouge2Ms, rougeLMs, rougeLsumMs },
  };
}
