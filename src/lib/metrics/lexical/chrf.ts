/**
 * chrF (Popović 2015, "chrF: character n-gram F-score for automatic MT evaluation") as
 * sacrebleu 2.x's `CHRF` computes it with its defaults: character n-grams of orders 1..6 with
 * whitespace removed, no word n-grams (chrF, not chrF++), β = 2, case-sensitive, no eps
 * smoothing: precision and recall are averaged over the orders both sides have n-grams for,
 * then combined into F-β; 0–100 scale. With several references, the one with the best F
 * supplies the segment's statistics; corpus chrF sums statistics over segments.
 *
 * Characters are Unicode code points, as in Python (not UTF-16 units).
 */
import { pySplit } from './py-compat.ts';

export interface ChrfOptions {
  charOrder?: number;
  /** chrF++ uses 2; 0 (default) is plain chrF. */
  wordOrder?: number;
  beta?: number;
  lowercase?: boolean;
  /** Keep whitespace inside character n-grams. */
  whitespace?: boolean;
}

export interface ChrfScore {
  /** 0–100. */
  score: number;
  /** Per order: [hypothesis n-grams, reference n-grams, matches], chars first then words. */
  stats: number[];
}

const ASCII_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

function counter(items: Iterable<string>): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of items) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

function charNgrams(line: string, maxOrder: number, whitespace: boolean): Map<string, number>[] {
  const chars = Array.from(whitespace ? line : pySplit(line).join(''));
  const out: Map<string, number>[] = [];
  for (let n = 1; n <= maxOrder; n++) {
    const grams: string[] = [];
    for (let i = 0; i + n <= chars.length; i++) grams.push(chars.slice(i, i + n).join(''));
    out.push(counter(grams));
  }
  return out;
}

/** sacrebleu `CHRF._remove_punctuation`: splits one leading or trailing ASCII mark off a word. */
function wordsForChrfPlus(sentence: string): string[] {
  const out: string[] = [];
  for (const w of pySplit(sentence)) {
    const cps = Array.from(w);
    if (cps.length === 1) out.push(w);
    else if (ASCII_PUNCTUATION.has(cps[cps.length - 1])) {
      out.push(cps.slice(0, -1).join(''), cps[cps.length - 1]);
    } else if (ASCII_PUNCTUATION.has(cps[0])) out.push(cps[0], cps.slice(1).join(''));
    else out.push(w);
  }
  return out;
}

function wordNgrams(words: readonly string[], maxOrder: number): Map<string, number>[] {
  const out: Map<string, number>[] = [];
  for (let n = 1; n <= maxOrder; n++) {
    const grams: string[] = [];
    for (let i = 0; i + n <= words.length; i++) grams.push(JSON.stringify(words.slice(i, i + n)));
    out.push(counter(grams));
  }
  return out;
}

function ngrams(sentence: string, o: Required<ChrfOptions>): Map<string, number>[] {
  const s = o.lowercase ? sentence.toLowerCase() : sentence;
  const grams = charNgrams(s, o.charOrder, o.whitespace);
  if (o.wordOrder > 0) grams.push(...wordNgrams(wordsForChrfPlus(s), o.wordOrder));
  return grams;
}

function matchStats(hyp: Map<string, number>, ref: Map<string, number>): [number, number, number] {
  let match = 0;
  let hypCount = 0;
  for (const [g, c] of hyp) {
    hypCount += c;
    const r = ref.get(g);
    if (r !== undefined) match += Math.min(c, r);
  }
  let refCount = 0;
  for (const c of ref.values()) refCount += c;
  // sacrebleu does not count hypothesis n-grams of an order the reference lacks entirely.
  return [ref.size > 0 ? hypCount : 0, refCount, match];
}

function resolve(options: ChrfOptions): Required<ChrfOptions> {
  return {
    charOrder: options.charOrder ?? 6,
    wordOrder: options.wordOrder ?? 0,
    beta: options.beta ?? 2,
    lowercase: options.lowercase ?? false,
    whitespace: options.whitespace ?? false,
  };
}

/** sacrebleu `CHRF._compute_f_score` (eps_smoothing=False). */
export function chrfFromStats(stats: readonly number[], options: ChrfOptions = {}): number {
  const o = resolve(options);
  const factor = o.beta ** 2;
  let avgPrec = 0;
  let avgRec = 0;
  let effective = 0;
  for (let i = 0; i < o.charOrder + o.wordOrder; i++) {
    const [nHyp, nRef, nMatch] = stats.slice(3 * i, 3 * i + 3);
    if (nHyp > 0 && nRef > 0) {
      avgPrec += nMatch / nHyp;
      avgRec += nMatch / nRef;
      effective++;
    }
  }
  if (effective === 0) return 0;
  avgPrec /= effective;
  avgRec /= effective;
  if (avgPrec + avgRec === 0) return 0;
  return (100 * ((1 + factor) * avgPrec * avgRec)) / (factor * avgPrec + avgRec);
}

/** Best-reference statistics of one hypothesis. */
export function chrfSegmentStats(
  hypothesis: string,
  references: readonly string[],
  options: ChrfOptions = {},
): number[] {
  const o = resolve(options);
  const hyp = ngrams(hypothesis, o);
  let best: number[] = [];
  let bestF = -1;
  for (const ref of references) {
    const r = ngrams(ref, o);
    const stats = hyp.flatMap((h, i) => matchStats(h, r[i]));
    const f = chrfFromStats(stats, o);
    if (f > bestF) {
      bestF = f;
      best = stats;
    }
  }
  return best;
}

/** `sacrebleu.sentence_chrf(hypothesis, references)`. */
export function sentenceChrf(
  hypothesis: string,
  references: readonly string[],
  options: ChrfOptions = {},
): ChrfScore {
  const stats = chrfSegmentStats(hypothesis, references, options);
  return { score: chrfFromStats(stats, options), stats };
}

/** `sacrebleu.corpus_chrf`; `references[i]` holds the references of `hypotheses[i]`. */
export function corpusChrf(
  hypotheses: readonly string[],
  references: readonly (readonly string[])[],
  options: ChrfOptions = {},
): ChrfScore {
  const o = resolve(options);
  const sum = new Array<number>(3 * (o.charOrder + o.wordOrder)).fill(0);
  hypotheses.forEach((hyp, i) => {
    const stats = chrfSegmentStats(hyp, references[i], o);
    stats.forEach((v, k) => (sum[k] += v));
  });
  return { score: chrfFromStats(sum, o), stats: sum };
}
