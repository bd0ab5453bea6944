/**
 * Node-only: how the offline quality estimate (quality-offline) is fit and validated, shared by
 * `npm run fit:quality` (which stores the weights) and `npm run validity` (which reports it).
 *
 * Per dimension, a pairwise logistic regression (src/lib/stats/pairwise-logistic.ts) on pairs of
 * summaries of ONE source whose human ratings differ: it learns to rank summaries within a source,
 * never an absolute grade, so data sets rated on different scales (SummEval's 1–5 means, FRANK's
 * 0–1 shares, SummEdits' binary labels) can be pooled. Every data-set family weighs the same in
 * the fit, whatever its number of pairs.
 *
 * Everything chosen is chosen on data the figure is not reported on:
 * - the ingredients of a dimension are picked by greedy forward selection among the candidates
 *   below (each with the direction theory gives it: a weight against its direction drops it), and
 *   the ridge penalty from LAMBDAS, by an inner validation on the training part only;
 * - faithfulness, rated in several families, is reported leave-one-family-out (the inner
 *   validation leaves out each remaining family in turn);
 * - coverage and coherence are rated only by SummEval's experts (relevance, coherence), so they
 *   are fit on SummEval dev and reported by article folds (the inner validation uses folds of the
 *   training articles).
 * Yale-LILY/ROSE, vectara/FaithBench and SummEval articles outside dev.jsonl are never read here:
 * the project is checked on them.
 */
import type { QualityDimension } from '../metrics/lexical/quality-offline/quality-model.ts';
import type {
  QualityFeatureId,
  QualityFeatures,
} from '../metrics/lexical/quality-offline/quality-features.ts';
import { fitPairwiseLogistic, type RankedPair } from '../stats/pairwise-logistic.ts';
import { dot, standardize, standardizer } from '../stats/ridge.ts';
import type { RatedDimension } from './validity/rated-sets.ts';

/** Which human rating each dimension is fit to. */
export const RATED_BY: Record<QualityDimension, RatedDimension> = {
  faithfulness: 'faithfulness',
  coverage: 'coverage',
  coherence: 'coherence',
};

type Direction = 1 | -1 | 0;

/** The candidates of each dimension and the sign theory gives each (0: either). */
export const CANDIDATES: Record<QualityDimension, Partial<Record<QualityFeatureId, Direction>>> = {
  faithfulness: {
    'fact-precision': 1,
    'facts-unfound': -1,
    'content-support': 1,
    'unsupported-sentences': -1,
    'aligned-support': 1,
    'negation-mismatch': -1,
  },
  coverage: {
    'salient-recall': 1,
    'weighted-recall': 1,
    'central-sentences': 1,
    'log-words': 1,
  },
  coherence: {
    'repeat-share': -1,
    redundancy: -1,
    'order-tau': 1,
    'cut-ending': -1,
    sentences: 0,
    'log-words': 0,
    'dangling-start': -1,
    'adjacent-overlap': 0,
    'sentence-words': 0,
  },
};

export const ARTICLE_FOLDS = 10;
/** Pairs taken from one source at most (SummEval's 12 summaries make 66). */
const MAX_PAIRS_PER_SOURCE = 30;

export interface FitSample {
  family: string;
  dataset: string;
  group: string;
  system?: string;
  features: QualityFeatures;
  human: Partial<Record<RatedDimension, number>>;
  binary: readonly RatedDimension[];
}

export interface Model {
  features: QualityFeatureId[];
  means: number[];
  sds: number[];
  weights: number[];
  lambda: number;
  spread: number;
}

const vector = (s: FitSample, ids: readonly QualityFeatureId[]) => ids.map((id) => s.features[id]);

/** Pairs of summaries of one source with different ratings, each family weighing 1 in total. */
function rankedPairs(
  train: readonly FitSample[],
  rated: RatedDimension,
  rows: (s: FitSample) => number[],
): RankedPair[] {
  const byGroup = new Map<string, FitSample[]>();
  for (const s of train) {
    if (s.human[rated] === undefined) continue;
    const key = `${s.family}\u0001${s.group}`;
    const list = byGroup.get(key);
    if (list) list.push(s);
    else byGroup.set(key, [s]);
  }
  const pairs: Array<RankedPair & { family: string }> = [];
  for (const list of byGroup.values()) {
    const vectors = list.map(rows);
    const inGroup: Array<[number, number]> = [];
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        if (list[i].human[rated] !== list[j].human[rated]) inGroup.push([i, j]);
      }
    }
    // A source with many summaries would otherwise outweigh the rest of its family; an even
    // stride keeps the choice deterministic.
    const stride = Math.max(1, inGroup.length / MAX_PAIRS_PER_SOURCE);
    for (let k = 0; k < inGroup.length; k += stride) {
      const [i, j] = inGroup[Math.floor(k)];
      const [better, worse] = list[i].human[rated]! > list[j].human[rated]! ? [i, j] : [j, i];
      pairs.push({
        difference: vectors[better].map((v, c) => v - vectors[worse][c]),
        weight: 1,
        family: list[i].family,
      });
    }
  }
  const perFamily = new Map<string, number>();
  for (const p of pairs) perFamily.set(p.family, (perFamily.get(p.family) ?? 0) + 1);
  return pairs.map((p) => ({ difference: p.difference, weight: 1 / perFamily.get(p.family)! }));
}

export function fit(
  train: readonly FitSample[],
  rated: RatedDimension,
  ids: QualityFeatureId[],
  lambda: number,
): Model {
  const raw = train.map((s) => vector(s, ids));
  const stats = standardizer(raw);
  const pairs = rankedPairs(train, rated, (s) => standardize(vector(s, ids), stats));
  const weights =
    pairs.length > 0 ? fitPairwiseLogistic(pairs, ids.length, lambda) : ids.map(() => 0);
  const shifts = raw.map((r) => dot(weights, standardize(r, stats)));
  const spread = standardizer(shifts.map((v) => [v])).sds[0];
  return { features: ids, ...stats, weights, lambda, spread };
}

/** The estimate in training standard deviations from the average training summary. */
export function predict(model: Model, s: FitSample): number {
  return dot(model.weights, standardize(vector(s, model.features), model)) / model.spread;
}

/**
 * Within-source concordance: the share of pairs of summaries of one source with different
 * ratings that the predictions order the same way (ties half). One figure for graded and binary
 * sets alike, used to choose; the reports use the usual ones.
 */
export function concordance(
  samples: readonly FitSample[],
  predictions: readonly number[],
  rated: RatedDimension,
): number | null {
  const byGroup = new Map<string, number[]>();
  samples.forEach((s, i) => {
    if (s.human[rated] === undefined) return;
    const key = `${s.family}\u0001${s.group}`;
    const list = byGroup.get(key);
    if (list) list.push(i);
    else byGroup.set(key, [i]);
  });
  let agree = 0;
  let total = 0;
  for (const list of byGroup.values()) {
    for (let a = 0; a < list.length; a++) {
      for (let b = a + 1; b < list.length; b++) {
        const i = list[a];
        const j = list[b];
        const h = samples[i].human[rated]! - samples[j].human[rated]!;
        if (h === 0) continue;
        const p = predictions[i] - predictions[j];
        total++;
        agree += p === 0 ? 0.5 : Math.sign(p) === Math.sign(h) ? 1 : 0;
      }
    }
  }
  return total > 0 ? agree / total : null;
}

/** Articles dealt into `k` folds in sorted-id order (the ids are hashes: no order in them). */
export function groupFolds(samples: readonly FitSample[], k: number): Set<string>[] {
  const ids = [...new Set(samples.map((s) => `${s.family}\u0001${s.group}`))].sort();
  const folds = Array.from({ length: k }, () => new Set<string>());
  ids.forEach((id, i) => folds[i % k].add(id));
  return folds;
}

/** One source of one family: pairs, folds and figures never cross it. */
export const groupKey = (s: FitSample) => `${s.family}\u0001${s.group}`;

/** Out-of-fold predictions over group folds of `samples`, each fold by a model fit without it. */
export function foldPredictions(
  samples: readonly FitSample[],
  k: number,
  fitFold: (train: FitSample[]) => Model,
  extraTrain: readonly FitSample[] = [],
): number[] {
  const out = new Array<number>(samples.length);
  for (const fold of groupFolds(samples, k)) {
    const model = fitFold([...extraTrain, ...samples.filter((s) => !fold.has(groupKey(s)))]);
    samples.forEach((s, i) => {
      if (fold.has(groupKey(s))) out[i] = predict(model, s);
    });
  }
  return out;
}
