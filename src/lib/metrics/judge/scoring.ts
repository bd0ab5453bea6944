/**
 * The pure math of the LLM-judge metrics (SPEC §3). No prompts, no calls.
 *
 * - Summarization: alignment (precision: supported claims / claims, DeepEval's SummarizationMetric
 *   repaired as in the seed article), coverage (recall: importance-weighted grades, the importances
 *   DeepEval generated but never used), and their F-beta (beta < 1 weights faithfulness).
 * - G-Eval (Liu et al. 2023, arXiv:2303.16634): `score = Σ p(s)·s` over the allowed scores, with p
 *   from the score token's top log-probabilities (deepeval's calculate_weighted_summed_score, shared
 *   PROVIDERS.md §12.1–12.2: the LAST generated token equal to the raw score; entries under 1%
 *   probability and non-digit tokens dropped; renormalised over the allowed scores; the covered mass
 *   recorded and flagged under 0.5), or from n samples (empirical distribution), or one greedy
 *   reply. Every method yields a distribution, its mean and its standard deviation (the spread).
 */
import type { TokenLogprob, TopLogprob } from '../../llm/types.ts';

// ─── Summarization ────────────────────────────────────────────────────────────────────────────

/**
 * F-beta of precision p and recall r: (1 + β²)·p·r / (β²·p + r); 0 when both are 0. β < 1 weights
 * precision (here: alignment, faithfulness), β > 1 recall (coverage).
 */
export function fBeta(precision: number, recall: number, beta = 1): number {
  if (!(beta > 0)) throw new Error(`beta must be > 0, got ${beta}`);
  const b2 = beta * beta;
  const denominator = b2 * precision + recall;
  if (denominator === 0) return 0;
  return ((1 + b2) * precision * recall) / denominator;
}

export type ClaimVerdictLabel = 'supported' | 'contradicted' | 'unsupported';

export interface VerdictCounts {
  supported: number;
  contradicted: number;
  unsupported: number;
}

export function countVerdicts(verdicts: readonly ClaimVerdictLabel[]): VerdictCounts {
  const counts: VerdictCounts = { supported: 0, contradicted: 0, unsupported: 0 };
  for (const v of verdicts) counts[v]++;
  return counts;
}

/**
 * Alignment = supported / claims. With `unsupportedCountsAgainst` (the default) a claim the source
 * does not contain counts as a failure (it is fabricated); without it, unsupported claims are
 * neutral and the share is taken over supported + contradicted. null when nothing is counted.
 */
export function alignmentScore(
  counts: VerdictCounts,
  unsupportedCountsAgainst: boolean,
): number | null {
  const denominator =
    counts.supported + counts.contradicted + (unsupportedCountsAgainst ? counts.unsupported : 0);
  return denominator === 0 ? null : counts.supported / denominator;
}

/**
 * Coverage = Σ importanceᵢ·gradeᵢ/5 / Σ importanceᵢ (importance 1–5, grade 0–5, "idk" graded 0).
 * null without questions.
 */
export function coverageScore(
  items: readonly { importance: number; grade: number }[],
): number | null {
  let weighted = 0;
  let total = 0;
  for (const { importance, grade } of items) {
    weighted += (importance * grade) / 5;
    total += importance;
  }
  return total === 0 ? null : weighted / total;
}

/** Share of the counted items that pass; null when none is counted. */
export function share(passed: number, counted: number): number | null {
  return counted === 0 ? null : passed / counted;
}

// ─── G-Eval ───────────────────────────────────────────────────────────────────────────────────

export type GEvalMethod = 'logprobs' | 'sampling' | 'greedy';

export type Scale = readonly [min: number, max: number];

/** The integer scores of a scale, e.g. [1, 5] → 1, 2, 3, 4, 5. */
export function allowedScores([min, max]: Scale): number[] {
  const out: number[] = [];
  for (let s = min; s <= max; s++) out.push(s);
  return out;
}

/** A token as the score it may stand for: leading spaces and SentencePiece/BPE markers dropped. */
export function normaliseScoreToken(token: string): string {
  return token.replace(/^[\s▁Ġ]+/u, '').replace(/\s+$/u, '');
}

const NUMBER = String.raw`(\d+(?:\.\d+)?)`;
// Rules, in priority order; within a rule the LAST match counts (reasoning may cite numbers first).
const SCORE_RULES: RegExp[] = [
  // "Final score: 4", "final score = 4"
  new RegExp(String.raw`final\s+score\s*[:=]?\s*\**\s*${NUMBER}`, 'giu'),
  // "Score: 3", "a score of 4", "rating: 2", "I would give it a 4.5" (not a match result such
  // as "the score as 2-1")
  new RegExp(
    String.raw`\b(?:score|rating|rate|rated|give|gives|gave|giving|award|awarded)\b[^0-9\n]{0,24}?${NUMBER}(?![\d.]*\s*[-–]\s*\d)`,
    'giu',
  ),
  // "3/5", "3 out of 5"
  new RegExp(String.raw`${NUMBER}\s*(?:/|out\s+of)\s*\d+`, 'giu'),
  // a number at the very end: "… 2." or a bare "4"
  new RegExp(String.raw`${NUMBER}\s*\.?\s*$`, 'gu'),
];

/**
 * The score a free-text reply gives, or null. The highest-priority rule that matches decides; a
 * value outside the scale is invalid (null) rather than a reason to look for other numbers.
 * Half points ("3.5") inside the scale are kept as given.
 */
export function parseScoreFromText(text: string, [min, max]: Scale): number | null {
  for (const rule of SCORE_RULES) {
    const matches = [...text.matchAll(rule)];
    const last = matches[matches.length - 1];
    if (!last) continue;
    const value = Number(last[1]);
    return Number.isFinite(value) && value >= min && value <= max ? value : null;
  }
  return null;
}

export interface DistributionBar {
  score: number;
  p: number;
}

export interface ScoreDistribution {
  method: GEvalMethod;
  /** One bar per allowed score (p may be 0), plus any half-point value a reply gave. */
  distribution: DistributionBar[];
  /** Σ p·s, on the criterion's scale. */
  mean: number;
  /** √Σ p·(s − mean)², the spread of the distribution (0 for one greedy reply). */
  std: number;
  /** logprobs: probability mass the allowed score tokens held before renormalising. */
  coveredMass: number | null;
  /** logprobs: covered mass under 0.5 (other tokens competed; treat the score with care). */
  lowCoverage: boolean;
  /** sampling: replies that gave no valid score (left out of the distribution). */
  invalidSamples?: number;
  /** sampling: the parsed score of each reply, in order (null where none was valid). */
  samples?: (number | null)[];
  /** logprobs: the top alternatives at the score token, as returned. */
  scoreTokenTop?: TopLogprob[];
  /** logprobs: index of the score token in the generated tokens. */
  scoreTokenIndex?: number;
}

/** Mean and spread of a set of weighted values; bars for every allowed score plus extra values. */
function summarise(
  weights: Map<number, number>,
  scale: Scale,
): Pick<ScoreDistribution, 'distribution' | 'mean' | 'std'> {
  let total = 0;
  for (const w of weights.values()) total += w;
  const scores = new Set([...allowedScores(scale), ...weights.keys()]);
  const distribution = [...scores]
    .sort((a, b) => a - b)
    .map((score) => ({ score, p: (weights.get(score) ?? 0) / total }));
  const mean = distribution.reduce((s, b) => s + b.p * b.score, 0);
  const variance = distribution.reduce((s, b) => s + b.p * (b.score - mean) ** 2, 0);
  return { distribution, mean, std: Math.sqrt(Math.max(0, variance)) };
}

/** Probabilities under 1% are dropped (deepeval; also removes OpenAI's −9999 "not in top 20"). */
export const MIN_LOGPROB = Math.log(0.01);

/** Covered mass under this is flagged (PROVIDERS.md §12.2). */
export const LOW_COVERAGE = 0.5;

/**
 * Probability-weighted score from the generated tokens' top log-probabilities. The position is the
 * LAST generated token equal to the raw score (the integer the reply states); its alternatives are
 * kept when they are one allowed score each and at least 1% likely, merged per score (" 4" and "4"),
 * and renormalised. Returns null when the raw score is not an integer, no token matches it, or
 * nothing survives: the caller then falls back to the raw score (greedy).
 */
export function weightFromLogprobs(
  tokens: readonly TokenLogprob[],
  rawScore: number | null,
  scale: Scale,
): ScoreDistribution | null {
  if (rawScore === null || !Number.isInteger(rawScore)) return null;
  const allowed = new Set(allowedScores(scale));
  const wanted = String(rawScore);
  let index = -1;
  for (let i = tokens.length - 1; i >= 0; i--) {
    if (normaliseScoreToken(tokens[i].token) === wanted) {
      index = i;
      break;
    }
  }
  if (index < 0) return null;
  const top = tokens[index].top.length > 0 ? tokens[index].top : [tokens[index]];
  const weights = new Map<number, number>();
  let mass = 0;
  for (const alt of top) {
    if (!(alt.logprob >= MIN_LOGPROB)) continue;
    const t = normaliseScoreToken(alt.token);
    if (!/^\d+$/u.test(t)) continue;
    const score = Number(t);
    if (!allowed.has(score)) continue;
    const p = Math.exp(alt.logprob);
    weights.set(score, (weights.get(score) ?? 0) + p);
    mass += p;
  }
  if (mass <= 0) return null;
  return {
    method: 'logprobs',
    ...summarise(weights, scale),
    coveredMass: Math.min(1, mass),
    lowCoverage: mass < LOW_COVERAGE,
    scoreTokenTop: tokens[index].top,
    scoreTokenIndex: index,
  };
}

/** Empirical distribution of n sampled scores (null entries are replies without a valid score). */
export function fromSamples(
  samples: readonly (number | null)[],
  scale: Scale,
): ScoreDistribution | null {
  const weights = new Map<number, number>();
  let valid = 0;
  for (const s of samples) {
    if (s === null) continue;
    weights.set(s, (weights.get(s) ?? 0) + 1);
    valid++;
  }
  if (valid === 0) return null;
  return {
    method: 'sampling',
    ...summarise(weights, scale),
    coveredMass: null,
    lowCoverage: false,
    invalidSamples: samples.length - valid,
    samples: [...samples],
  };
}

/** One greedy reply: all the mass on its score. */
export function greedyScore(score: number, scale: Scale): ScoreDistribution {
  return {
    method: 'greedy',
    ...summarise(new Map([[score, 1]]), scale),
    coveredMass: null,
    lowCoverage: false,
  };
}

/** A score on [min, max] mapped to [0, 1]. */
export function toUnit(score: number, [min, max]: Scale): number {
  return max === min ? 1 : (score - min) / (max - min);
}
