/**
 * The `rouge` package 1.0.1 by pltrdy (`from rouge import Rouge`; `Rouge().get_scores(hyp, ref)`
 * with its defaults: rouge-1, rouge-2, rouge-l, exclusive=True). LongBench and TinyEval score
 * multi_news and custom_zh with its ROUGE-L F, so their published numbers only reproduce with
 * its quirks, all kept here on purpose:
 *
 * - case-sensitive, no stemming, no punctuation removal: words are what remains after splitting
 *   the text into "sentences" on '.', collapsing whitespace and splitting on single spaces (a
 *   whitespace-only "sentence" yields the empty word '');
 * - n-grams and words are *sets* (exclusive=True): repeated n-grams count once, and the ROUGE-L
 *   denominators are the numbers of *distinct* words;
 * - ROUGE-L is the summary-level union LCS, where the union is a set of word *types* built from
 *   one LCS per (reference sentence, hypothesis sentence) pair, reconstructed with pltrdy's
 *   tie-break (which LCS is picked changes which words enter the union);
 * - F = 2·P·R / (P + R + 1e-8), hence 0.999999995 for identical texts.
 *
 * pltrdy raises ValueError when, after the '.' split, the hypothesis or the reference has no
 * sentence left; `pltrdyRouge` throws `PltrdyRougeError` ('empty'), and the LongBench wrappers
 * turn that into 0 as LongBench's bare `except` does.
 *
 * Divergences: (1) pltrdy reconstructs the LCS recursively, so a sentence pair whose backtrack
 * is longer than Python's recursion limit (~1000 steps) raises RecursionError, which LongBench
 * also scores 0; we return the real score. (2) The same cell budget as rouge.ts guards the LCS
 * (`PltrdyRougeError` 'too-long'), because the Python table is O(n·m) and so is ours in time.
 * (3) `longbenchRougeZhScore` segments Chinese with the WordSegmenter it is given: jieba
 * (jieba.ts) as LongBench does, or by default the Intl.Segmenter stand-in (cjk-words.ts).
 */
import { intlWordSegmenter, type WordSegmenter } from './cjk-words.ts';
import { pySplit } from './py-compat.ts';
import { Interner, LCS_CELL_BUDGET, lcsIndices } from './lcs.ts';

export interface PltrdyScore {
  r: number;
  p: number;
  f: number;
}

export interface PltrdyRougeScores {
  'rouge-1': PltrdyScore;
  'rouge-2': PltrdyScore;
  'rouge-l': PltrdyScore;
}

export class PltrdyRougeError extends Error {
  readonly kind: 'empty' | 'too-long';

  constructor(kind: 'empty' | 'too-long', message: string) {
    super(message);
    this.name = 'PltrdyRougeError';
    this.kind = kind;
  }
}

/** `[" ".join(_.split()) for _ in text.split(".") if len(_) > 0]` */
export function pltrdySentences(text: string): string[] {
  return text
    .split('.')
    .filter((s) => s.length > 0)
    .map((s) => pySplit(s).join(' '));
}

function words(sentences: readonly string[]): string[] {
  return sentences.flatMap((s) => s.split(' '));
}

function ngramSet(tokens: readonly string[], n: number): Set<string> {
  const out = new Set<string>();
  // JSON keeps the tuple boundaries unambiguous whatever characters the words hold.
  for (let i = 0; i + n <= tokens.length; i++) out.add(JSON.stringify(tokens.slice(i, i + n)));
  return out;
}

function fScore(p: number, r: number): number {
  return 2.0 * ((p * r) / (p + r + 1e-8));
}

function rougeN(hyp: readonly string[], ref: readonly string[], n: number): PltrdyScore {
  const h = ngramSet(words(hyp), n);
  const r = ngramSet(words(ref), n);
  let overlap = 0;
  for (const g of h) if (r.has(g)) overlap++;
  const p = h.size === 0 ? 0 : overlap / h.size;
  const rec = r.size === 0 ? 0 : overlap / r.size;
  return { f: fScore(p, rec), p, r: rec };
}

function rougeLSummaryLevel(
  hyp: readonly string[],
  ref: readonly string[],
  budget: number,
): PltrdyScore {
  const hypWords = words(hyp);
  const refWords = words(ref);
  const cells = hypWords.length * refWords.length;
  if (cells > budget) {
    throw new PltrdyRougeError(
      'too-long',
      `ROUGE-L skipped: ${cells.toExponential(1)} LCS cells exceed the limit of ${budget.toExponential(1)}.`,
    );
  }
  const m = new Set(refWords).size;
  const n = new Set(hypWords).size;
  const interner = new Interner();
  const hypIds = hyp.map((s) => interner.intern(s.split(' ')));
  const union = new Set<string>();
  for (const refSentence of ref) {
    const refTokens = refSentence.split(' ');
    const refIds = interner.intern(refTokens);
    for (const h of hypIds) {
      for (const idx of lcsIndices(refIds, h, 'pltrdy')) union.add(refTokens[idx]);
    }
  }
  const llcs = union.size;
  const r = llcs / m;
  const p = llcs / n;
  return { f: fScore(p, r), p, r };
}

/** `Rouge().get_scores(hyp, ref)[0]` of pltrdy `rouge` 1.0.1. */
export function pltrdyRouge(
  hyp: string,
  ref: string,
  options: { lcsCellBudget?: number } = {},
): PltrdyRougeScores {
  const hypSentences = pltrdySentences(hyp);
  const refSentences = pltrdySentences(ref);
  if (hypSentences.length === 0) throw new PltrdyRougeError('empty', 'Hypothesis is empty.');
  if (refSentences.length === 0) throw new PltrdyRougeError('empty', 'Reference is empty.');
  return {
    'rouge-1': rougeN(hypSentences, refSentences, 1),
    'rouge-2': rougeN(hypSentences, refSentences, 2),
    'rouge-l': rougeLSummaryLevel(
      hypSentences,
      refSentences,
      options.lcsCellBudget ?? LCS_CELL_BUDGET,
    ),
  };
}

/**
 * LongBench/TinyEval `rouge_score(prediction, ground_truth)`: pltrdy ROUGE-L F, 0 where pltrdy
 * raises on empty input. A 'too-long' error is rethrown: LongBench has no such limit, so a 0
 * would be a made-up score.
 */
export function longbenchRougeScore(prediction: string, groundTruth: string): number {
  try {
    return pltrdyRouge(prediction, groundTruth)['rouge-l'].f;
  } catch (err) {
    if (err instanceof PltrdyRougeError && err.kind === 'empty') return 0;
    throw err;
  }
}

export interface RougeZhOptions {
  /** Chinese word segmenter; default Intl.Segmenter (`intlWordSegmenter`). */
  segmenter?: WordSegmenter;
  /** Words of your own instead (e.g. recorded jieba tokens); overrides `segmenter`. */
  tokens?: { prediction: readonly string[]; groundTruth: readonly string[] };
}

/**
 * LongBench/TinyEval `rouge_zh_score`: `" ".join(jieba.cut(text, cut_all=False))` on both texts,
 * then `rouge_score`. All words are joined, whitespace ones included, as LongBench does (pltrdy
 * splits on '.' before it collapses spaces, so dropping them could change an edge case).
 */
export function longbenchRougeZhScore(
  prediction: string,
  groundTruth: string,
  options: RougeZhOptions = {},
): number {
  const segmenter = options.segmenter ?? intlWordSegmenter;
  const p = options.tokens?.prediction ?? segmenter.cut(prediction);
  const g = options.tokens?.groundTruth ?? segmenter.cut(groundTruth);
  return longbenchRougeScore(p.join(' '), g.join(' '));
}
