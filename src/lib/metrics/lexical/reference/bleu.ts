/**
 * BLEU (Papineni et al. 2002) as sacrebleu 2.x computes it (Post 2018, "A Call for Clarity in
 * Reporting BLEU Scores"): signature `nrefs:N|case:mixed|eff:no|tok:13a|smooth:exp`.
 *
 * - Tokenizer 13a (mteval-v13a): unescape a few HTML entities, split off most ASCII punctuation
 *   and symbols, periods and commas unless next to a digit, and a dash after a digit.
 * - Per segment: clipped n-gram matches (n = 1..4) against the per-n-gram maximum count over the
 *   references; the reference length is the closest one to the hypothesis length (shorter wins
 *   ties).
 * - Corpus BLEU: statistics summed over segments, then brevity penalty × geometric mean of the
 *   precisions; 'exp' smoothing (sacrebleu's default; mteval's: the k-th zero-match order gets
 *   precision 100 / (2^k · total)); no effective order.
 * - Sentence BLEU: `sacrebleu.sentence_bleu` defaults, 'exp' smoothing with effective order (a
 *   short hypothesis is not zeroed for lacking 4-grams).
 * Scores are on sacrebleu's 0–100 scale.
 *
 * Divergence: `tokenize: 'intl-segmenter'` is ours, for text without spaces between words (13a
 * leaves a Chinese sentence as one token, so BLEU is ~0): Intl.Segmenter words and punctuation
 * marks become tokens. sacrebleu's own answer is tokenize='zh' (one token per Chinese character),
 * which we do not implement.
 */
import { splitTokens } from '../../text/tokenize.ts';
import { pyRstrip, pySplit } from '../py-compat.ts';

export type BleuTokenize = '13a' | 'none' | 'intl-segmenter';
export type BleuSmoothMethod = 'none' | 'floor' | 'add-k' | 'exp';

export interface BleuOptions {
  tokenize?: BleuTokenize;
  lowercase?: boolean;
  smoothMethod?: BleuSmoothMethod;
  /** floor: default 0.1; add-k: default 1. */
  smoothValue?: number;
  /** Geometric mean over the orders the hypothesis has n-grams for (sentence BLEU default). */
  effectiveOrder?: boolean;
  maxNgramOrder?: number;
  /** Words and punctuation for 'intl-segmenter' (the case's tokenizer); default Intl.Segmenter. */
  segment?: (text: string) => string[];
}

export interface BleuScore {
  /** 0–100. */
  score: number;
  /** Clipped matches per order. */
  counts: number[];
  /** Hypothesis n-grams per order. */
  totals: number[];
  /** Per-order precisions in percent, after smoothing. */
  precisions: number[];
  /** Brevity penalty. */
  bp: number;
  sysLen: number;
  refLen: number;
}

/** Segment statistics: [sysLen, refLen, ...counts, ...totals]. */
export type BleuStats = number[];

const SMOOTH_DEFAULTS: Record<BleuSmoothMethod, number | undefined> = {
  none: undefined,
  floor: 0.1,
  'add-k': 1,
  exp: undefined,
};

const PUNCT_13A = /([\x7b-\x7e\x5b-\x60\x20-\x26\x28-\x2b\x3a-\x40\x2f])/gu;
const PERIOD_COMMA_AFTER_NON_DIGIT = /([^0-9])([.,])/gu;
const PERIOD_COMMA_BEFORE_NON_DIGIT = /([.,])([^0-9])/gu;
const DASH_AFTER_DIGIT = /([0-9])(-)/gu;

/** sacrebleu `Tokenizer13a`. */
export function tokenize13a(line: string): string {
  let s = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
  if (s.includes('&')) {
    s = s
      .replaceAll('&quot;', '"')
      .replaceAll('&amp;', '&')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>');
  }
  s = ` ${s} `
    .replace(PUNCT_13A, ' $1 ')
    .replace(PERIOD_COMMA_AFTER_NON_DIGIT, '$1 $2 ')
    .replace(PERIOD_COMMA_BEFORE_NON_DIGIT, ' $1 $2')
    .replace(DASH_AFTER_DIGIT, '$1 $2 ');
  return pySplit(s).join(' ');
}

function segmenterTokenize(line: string, segment?: (text: string) => string[]): string {
  const normalized = line.normalize('NFKC');
  return (segment ? segment(normalized) : splitTokens(normalized).map((t) => t.text)).join(' ');
}

function preprocess(sentence: string, options: BleuOptions): string {
  const s = options.lowercase ? sentence.toLowerCase() : sentence;
  const tokenize = options.tokenize ?? '13a';
  const stripped = pyRstrip(s);
  if (tokenize === '13a') return tokenize13a(stripped);
  if (tokenize === 'intl-segmenter') return segmenterTokenize(stripped, options.segment);
  return stripped;
}

/** n-grams of orders 1..maxOrder, keyed by the space-joined tokens. */
function ngramCounts(tokens: readonly string[], maxOrder: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let n = 1; n <= maxOrder; n++) {
    for (let i = 0; i + n <= tokens.length; i++) {
      // Tokens never contain spaces (they come from a whitespace split), so ' ' is a safe glue.
      const key = tokens.slice(i, i + n).join(' ');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

/** sacrebleu `_get_closest_ref_len`. */
function closestRefLen(hypLen: number, refLens: readonly number[]): number {
  let closestDiff = -1;
  let closestLen = -1;
  for (const refLen of refLens) {
    const diff = Math.abs(hypLen - refLen);
    if (closestDiff === -1 || diff < closestDiff) {
      closestDiff = diff;
      closestLen = refLen;
    } else if (diff === closestDiff && refLen < closestLen) {
      closestLen = refLen;
    }
  }
  return closestLen;
}

/** Statistics of one hypothesis against its references. */
export function bleuSegmentStats(
  hypothesis: string,
  references: readonly string[],
  options: BleuOptions = {},
): BleuStats {
  const order = options.maxNgramOrder ?? 4;
  const refNgrams = new Map<string, number>();
  const refLens: number[] = [];
  for (const ref of references) {
    const tokens = pySplit(preprocess(ref, options));
    refLens.push(tokens.length);
    for (const [gram, count] of ngramCounts(tokens, order)) {
      if (count > (refNgrams.get(gram) ?? 0)) refNgrams.set(gram, count);
    }
  }
  const hypTokens = pySplit(preprocess(hypothesis, options));
  const hypLen = hypTokens.length;
  const correct = new Array<number>(order).fill(0);
  const total = new Array<number>(order).fill(0);
  for (const [gram, count] of ngramCounts(hypTokens, order)) {
    const n = gram.split(' ').length - 1;
    total[n] += count;
    const refCount = refNgrams.get(gram);
    if (refCount !== undefined) correct[n] += Math.min(count, refCount);
  }
  return [hypLen, closestRefLen(hypLen, refLens), ...correct, ...total];
}

function myLog(x: number): number {
  return x === 0 ? -9999999999 : Math.log(x);
}

/** sacrebleu `BLEU.compute_bleu`. */
export function bleuFromStats(stats: BleuStats, options: BleuOptions = {}): BleuScore {
  const order = options.maxNgramOrder ?? 4;
  const smoothMethod = options.smoothMethod ?? 'exp';
  const smoothValue = options.smoothValue ?? SMOOTH_DEFAULTS[smoothMethod] ?? 0;
  const sysLen = stats[0];
  const refLen = stats[1];
  const counts = stats.slice(2, 2 + order);
  const totals = stats.slice(2 + order, 2 + 2 * order);

  let bp = 1;
  if (sysLen < refLen) bp = sysLen > 0 ? Math.exp(1 - refLen / sysLen) : 0;

  const precisions = new Array<number>(order).fill(0);
  if (!counts.some((c) => c !== 0)) {
    return { score: 0, counts, totals, precisions, bp, sysLen, refLen };
  }

  let smoothMteval = 1;
  let effOrder = order;
  for (let n = 1; n <= order; n++) {
    if (smoothMethod === 'add-k' && n > 1) {
      counts[n - 1] += smoothValue;
      totals[n - 1] += smoothValue;
    }
    if (totals[n - 1] === 0) break;
    if (options.effectiveOrder) effOrder = n;
    if (counts[n - 1] === 0) {
      if (smoothMethod === 'exp') {
        smoothMteval *= 2;
        precisions[n - 1] = 100 / (smoothMteval * totals[n - 1]);
      } else if (smoothMethod === 'floor') {
        precisions[n - 1] = (100 * smoothValue) / totals[n - 1];
      }
    } else {
      precisions[n - 1] = (100 * counts[n - 1]) / totals[n - 1];
    }
  }
  let logSum = 0;
  for (let i = 0; i < effOrder; i++) logSum += myLog(precisions[i]);
  return {
    score: bp * Math.exp(logSum / effOrder),
    counts,
    totals,
    precisions,
    bp,
    sysLen,
    refLen,
  };
}

/**
 * `sacrebleu.sentence_bleu(hypothesis, references)`: 13a, 'exp' smoothing, effective order.
 */
export function sentenceBleu(
  hypothesis: string,
  references: readonly string[],
  options: BleuOptions = {},
): BleuScore {
  const opts: BleuOptions = { effectiveOrder: true, smoothMethod: 'exp', ...options };
  return bleuFromStats(bleuSegmentStats(hypothesis, references, opts), opts);
}

/**
 * `sacrebleu.corpus_bleu`. Note the shape: `references[i]` holds the references of
 * `hypotheses[i]` (sacrebleu takes reference *streams*, i.e. the transpose).
 */
export function corpusBleu(
  hypotheses: readonly string[],
  references: readonly (readonly string[])[],
  options: BleuOptions = {},
): BleuScore {
  if (hypotheses.length !== references.length) {
    throw new Error(
      `corpusBleu: ${hypotheses.length} hypotheses but ${references.length} reference sets`,
    );
  }
  const opts: BleuOptions = { effectiveOrder: false, smoothMethod: 'exp', ...options };
  const order = opts.maxNgramOrder ?? 4;
  const sum = new Array<number>(2 + 2 * order).fill(0);
  hypotheses.forEach((hyp, i) => {
    const stats = bleuSegmentStats(hyp, references[i], opts);
    for (let k = 0; k < sum.length; k++) sum[k] += stats[k];
  });
  return bleuFromStats(sum, opts);
}
