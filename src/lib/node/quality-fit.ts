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
import type {
  DimensionModel,
  HeldOutFigure,
  QualityDimension,
} from '../metrics/lexical/quality-offline/quality-model.ts';
import type {
  QualityFeatureId,
  QualityFeatures,
} from '../metrics/lexical/quality-offline/quality-features.ts';
import { summaryLevel, type PairedScore, spearman } from '../stats/correlation.ts';
import { fitPairwiseLogistic, type RankedPair } from '../stats/pairwise-logistic.ts';
import { dot, standardize, standardizer } from '../stats/ridge.ts';
import { rocAuc } from '../stats/binary-agreement.ts';
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

/**
 * Ingredients a dimension always has: faithfulness is the fact check's by definition (the issue
 * that built it names it), and selection adds to it only what the validation supports.
 */
export const REQUIRED: Record<QualityDimension, QualityFeatureId[]> = {
  faithfulness: ['fact-precision'],
  coverage: [],
  coherence: [],
};

export const LAMBDAS = [0.01, 0.1, 1];
export const MAX_FEATURES = 4;
/** A further ingredient must lift the inner figure by this much to be kept. */
const MIN_GAIN = 0.003;
export const ARTICLE_FOLDS = 10;
const INNER_FOLDS = 5;
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

const groupKey = (s: FitSample) => `${s.family}\u0001${s.group}`;

/** Families with at least one source whose summaries are rated differently. */
function rankedPairFamilies(samples: readonly FitSample[], rated: RatedDimension): string[] {
  const ratings = new Map<string, Set<number>>();
  for (const s of samples) {
    const h = s.human[rated];
    if (h === undefined) continue;
    const key = groupKey(s);
    const set = ratings.get(key) ?? new Set<number>();
    set.add(h);
    ratings.set(key, set);
  }
  const families = new Set<string>();
  for (const s of samples) if ((ratings.get(groupKey(s))?.size ?? 0) > 1) families.add(s.family);
  return [...families].sort();
}

/**
 * Held-out parts of an inner validation: each family when several are rated (a family whose
 * sources have one summary each is judged by its pooled AUC), else folds of the sources.
 */
function innerSplits(
  train: readonly FitSample[],
  rated: RatedDimension,
): { byFamily: boolean; parts: Array<(s: FitSample) => boolean> } {
  const families = [
    ...new Set(train.filter((s) => s.human[rated] !== undefined).map((s) => s.family)),
  ].sort();
  const pairable = rankedPairFamilies(train, rated);
  // A family can be held out only when what is left still has pairs to learn from.
  const holdable = families.filter((f) => pairable.some((p) => p !== f));
  if (holdable.length >= 1 && families.length >= 2) {
    return { byFamily: true, parts: holdable.map((f) => (s: FitSample) => s.family === f) };
  }
  const part = train.filter((s) => pairable.includes(s.family));
  return {
    byFamily: false,
    parts: groupFolds(part, INNER_FOLDS).map((fold) => (s: FitSample) => fold.has(groupKey(s))),
  };
}

/** How well predictions order a held-out part: within-source concordance, else pooled AUC. */
function partFigure(
  part: readonly FitSample[],
  predictions: readonly number[],
  rated: RatedDimension,
): number | null {
  const c = concordance(part, predictions, rated);
  if (c !== null) return c;
  return setFigures('inner', part, predictions, rated).auc;
}

/**
 * The figure of models fit without each held-out part, on that part: with data sets held out, the
 * WORST one's, so an ingredient that helps one data set and hurts another is not taken (what must
 * hold is the figure on data the estimate never saw); with folds of one data set, their mean.
 */
function innerFigure(
  train: readonly FitSample[],
  rated: RatedDimension,
  ids: QualityFeatureId[],
  lambda: number,
): number {
  const figures: number[] = [];
  const { byFamily, parts } = innerSplits(train, rated);
  for (const heldOut of parts) {
    const part = train.filter(heldOut);
    const model = fit(
      train.filter((s) => !heldOut(s)),
      rated,
      ids,
      lambda,
    );
    const c = partFigure(
      part,
      part.map((s) => predict(model, s)),
      rated,
    );
    if (c !== null) figures.push(c);
  }
  if (figures.length === 0) return 0;
  // Across data sets the worst counts; across folds of one data set, the mean (less noisy).
  return byFamily ? Math.min(...figures) : figures.reduce((a, b) => a + b, 0) / figures.length;
}

/** True when every weight has the sign its candidate was given (or any sign was allowed). */
function directionsHold(model: Model, dimension: QualityDimension): boolean {
  return model.features.every((id, j) => {
    const direction = CANDIDATES[dimension][id] ?? 0;
    return direction === 0 || Math.sign(model.weights[j]) === direction;
  });
}

export interface Selection {
  features: QualityFeatureId[];
  lambda: number;
  innerFigure: number;
}

/** Greedy forward selection of ingredients and penalty, on `train` only. */
export function select(train: readonly FitSample[], dimension: QualityDimension): Selection {
  const rated = RATED_BY[dimension];
  const candidates = Object.keys(CANDIDATES[dimension]) as QualityFeatureId[];
  const required = REQUIRED[dimension];
  let best: Selection = { features: [...required], lambda: LAMBDAS[0], innerFigure: 0.5 };
  if (required.length > 0) {
    for (const lambda of LAMBDAS) {
      const figure = innerFigure(train, rated, required, lambda);
      if (best.innerFigure === 0.5 || figure > best.innerFigure) {
        best = { features: [...required], lambda, innerFigure: figure };
      }
    }
  }
  while (best.features.length < MAX_FEATURES) {
    let round: Selection | null = null;
    for (const id of candidates) {
      if (best.features.includes(id)) continue;
      const ids = [...best.features, id];
      for (const lambda of LAMBDAS) {
        if (!directionsHold(fit(train, rated, ids, lambda), dimension)) continue;
        const figure = innerFigure(train, rated, ids, lambda);
        if (!round || figure > round.innerFigure) {
          round = { features: ids, lambda, innerFigure: figure };
        }
      }
    }
    if (!round || round.innerFigure < best.innerFigure + MIN_GAIN) break;
    best = round;
  }
  return best;
}

export function fitSelected(
  train: readonly FitSample[],
  dimension: QualityDimension,
  selection: Selection = select(train, dimension),
): Model {
  return fit(train, RATED_BY[dimension], selection.features, selection.lambda);
}

/** The figures of one dimension's predictions on one data set (graded or binary). */
export interface SetFigures {
  dataset: string;
  summaries: number;
  summarySpearman: number | null;
  summaryKendall: number | null;
  sources: number;
  pooledSpearman: number | null;
  auc: number | null;
}

export function setFigures(
  dataset: string,
  samples: readonly FitSample[],
  predictions: readonly number[],
  rated: RatedDimension,
): SetFigures {
  const pairs: PairedScore[] = [];
  const labels: boolean[] = [];
  const scores: number[] = [];
  const binary = samples.some((s) => s.binary.includes(rated));
  samples.forEach((s, i) => {
    const h = s.human[rated];
    if (h === undefined) return;
    pairs.push({ group: groupKey(s), metric: predictions[i], human: h });
    scores.push(predictions[i]);
    // A graded set with one summary per source is judged as "fully consistent or not".
    labels.push(binary ? h >= 0.5 : h >= 1);
  });
  const spearmanLevel = summaryLevel('spearman', pairs);
  const kendallLevel = summaryLevel('kendall', pairs);
  const oneSummaryPerSource = spearmanLevel.groupsUsed === 0;
  return {
    dataset,
    summaries: pairs.length,
    summarySpearman: spearmanLevel.value,
    summaryKendall: kendallLevel.value,
    sources: spearmanLevel.groupsUsed,
    pooledSpearman: spearman(
      pairs.map((p) => p.metric),
      pairs.map((p) => p.human),
    ),
    auc: binary || oneSummaryPerSource ? rocAuc(scores, labels) : null,
  };
}

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

/** The figure a card quotes from a SetFigures: summary-level Spearman where defined, else AUC. */
export function headline(figures: SetFigures, against: string): HeldOutFigure | null {
  if (figures.summarySpearman !== null && figures.sources >= 5) {
    return {
      dataset: figures.dataset,
      against,
      measure: 'summary-spearman',
      value: figures.summarySpearman,
    };
  }
  if (figures.auc !== null)
    return { dataset: figures.dataset, against, measure: 'auc', value: figures.auc };
  return null;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function storedModel(model: Model, fitOn: string, heldOut: HeldOutFigure[]): DimensionModel {
  return {
    features: model.features,
    means: model.means.map(round6),
    sds: model.sds.map(round6),
    weights: model.weights.map(round6),
    lambda: model.lambda,
    spread: round6(model.spread),
    fitOn,
    heldOut: heldOut.map((h) => ({ ...h, value: round6(h.value) })),
  };
}
