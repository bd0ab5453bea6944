/**
 * Node-only: which ingredients and ridge penalty each dimension of the offline quality estimate
 * gets, chosen by greedy forward selection with an inner validation on the training part only
 * (quality-fit.ts has the fit itself and the rules it follows).
 */
import type { QualityDimension } from '../metrics/lexical/quality-offline/quality-model.ts';
import type { QualityFeatureId } from '../metrics/lexical/quality-offline/quality-features.ts';
import {
  CANDIDATES,
  concordance,
  fit,
  groupFolds,
  groupKey,
  predict,
  RATED_BY,
  type FitSample,
  type Model,
} from './quality-fit.ts';
import { setFigures } from './quality-figures.ts';
import type { RatedDimension } from './validity/rated-sets.ts';

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
const INNER_FOLDS = 5;

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
