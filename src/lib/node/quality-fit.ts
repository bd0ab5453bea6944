/**
 * Node-only: how the offline quality estimate (quality-offline) is fit and cross-validated on
 * SummEval dev, shared by `npm run fit:quality` (which stores the weights) and `npm run validity`
 * (which reports the cross-validated figures next to the in-sample ones).
 *
 * Per human dimension, a ridge regression of the mean expert rating on a few lexical features
 * (src/lib/metrics/lexical/quality-features.ts), chosen beforehand from what the project had
 * measured, not searched here. The features are standardised with the training rows' statistics
 * and the fit is made within articles (src/lib/stats/ridge.ts). Cross-validation is GROUPED BY
 * ARTICLE: 10 folds of articles; within each training part the ridge penalty is chosen by an
 * inner 5-fold article CV; held-out articles are predicted by a model that never saw them. The
 * figure is the summary-level Spearman (per article over its summaries, then averaged), the
 * calibration code's `summaryLevel`.
 */
import { summaryLevel, type PairedScore } from '../stats/correlation.ts';
import {
  centreWithinGroups,
  dot,
  ridgeWeights,
  standardize,
  standardizer,
} from '../stats/ridge.ts';
import {
  qualityFeatures,
  type QualityFeatureId,
  type QualityFeatures,
} from '../metrics/lexical/quality-features.ts';
import type { DimensionModel, QualityDimension } from '../metrics/lexical/quality-model.ts';
import { expertMeans, type DevRow } from './validity/summeval.ts';

// Consistency first used the three features the prototype had; adding the fragment density
// (Newsroom's other copying measure) lifted its CV figure from 0.440 to 0.456, where a novel-word
// rate, a novel-content-stem rate or the sentence count did not (0.429–0.438): four sets tried.
export const FEATURE_SETS: Record<QualityDimension, QualityFeatureId[]> = {
  coherence: [
    'repeat-share',
    'sentences',
    'salient-recall',
    'bigram-logprob',
    'longest-copy-share',
    'rouge2-lead3',
  ],
  consistency: ['novel-4gram-rate', 'verbatim-share', 'repeat-share', 'fragment-density'],
};

export const LAMBDAS = [0.001, 0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30];
export const OUTER_FOLDS = 10;
export const INNER_FOLDS = 5;

export interface Sample {
  group: string;
  features: QualityFeatures;
  human: Record<QualityDimension, number>;
}

export interface Model {
  features: QualityFeatureId[];
  means: number[];
  sds: number[];
  weights: number[];
  intercept: number;
  lambda: number;
  /** Standard deviation of the estimate over the training rows, for the standardised score. */
  spread: number;
}

const vector = (s: Sample, ids: readonly QualityFeatureId[]) => ids.map((id) => s.features[id]);

export function fit(
  train: readonly Sample[],
  dimension: QualityDimension,
  ids: QualityFeatureId[],
  lambda: number,
): Model {
  const raw = train.map((s) => vector(s, ids));
  const stats = standardizer(raw);
  const groups = train.map((s) => s.group);
  const x = centreWithinGroups(
    raw.map((r) => standardize(r, stats)),
    groups,
  );
  const y = centreWithinGroups(
    train.map((s) => [s.human[dimension]]),
    groups,
  ).map((r) => r[0]);
  const intercept = train.reduce((sum, s) => sum + s.human[dimension], 0) / train.length;
  const weights = ridgeWeights(x, y, lambda);
  const shifts = raw.map((r) => dot(weights, standardize(r, stats)));
  const spreadOf = standardizer(shifts.map((v) => [v])).sds[0];
  return { features: ids, ...stats, weights, intercept, lambda, spread: spreadOf };
}

export function predict(model: Model, s: Sample): number {
  const z = standardize(vector(s, model.features), model);
  return model.intercept + dot(model.weights, z);
}

/** The estimate in training standard deviations from the average summary (what the score maps). */
export function predictStandardized(model: Model, s: Sample): number {
  return (predict(model, s) - model.intercept) / model.spread;
}

export function summarySpearman(
  samples: readonly Sample[],
  predictions: readonly number[],
  dimension: QualityDimension,
): number {
  const pairs: PairedScore[] = samples.map((s, i) => ({
    group: s.group,
    metric: predictions[i],
    human: s.human[dimension],
  }));
  return summaryLevel('spearman', pairs).value ?? Number.NaN;
}

/** Articles dealt into `k` folds in sorted-id order (the ids are hashes: no order in them). */
function articleFolds(samples: readonly Sample[], k: number): Set<string>[] {
  const ids = [...new Set(samples.map((s) => s.group))].sort();
  const folds = Array.from({ length: k }, () => new Set<string>());
  ids.forEach((id, i) => folds[i % k].add(id));
  return folds;
}

/** Out-of-fold predictions of `fitFold` over article folds, in the samples' order. */
export function crossPredict(
  samples: readonly Sample[],
  k: number,
  fitFold: (train: Sample[]) => Model,
  output: (model: Model, s: Sample) => number = predict,
): number[] {
  const out = new Array<number>(samples.length);
  for (const fold of articleFolds(samples, k)) {
    const model = fitFold(samples.filter((s) => !fold.has(s.group)));
    samples.forEach((s, i) => {
      if (fold.has(s.group)) out[i] = output(model, s);
    });
  }
  return out;
}

/** The penalty an article-grouped CV on `train` prefers. */
export function chooseLambda(
  train: readonly Sample[],
  dimension: QualityDimension,
  ids: QualityFeatureId[],
): number {
  let best = { lambda: LAMBDAS[0], rho: -Infinity };
  for (const lambda of LAMBDAS) {
    const rho = summarySpearman(
      train,
      crossPredict(train, INNER_FOLDS, (t) => fit(t, dimension, ids, lambda)),
      dimension,
    );
    if (rho > best.rho) best = { lambda, rho };
  }
  return best.lambda;
}

export function devSamples(dev: readonly DevRow[]): Sample[] {
  return dev.map((row) => {
    const human = expertMeans(row);
    return {
      group: row.id,
      features: qualityFeatures(row.text, row.decoded),
      human: { coherence: human.coherence, consistency: human.consistency },
    };
  });
}

/**
 * Out-of-fold estimates of one dimension, each article's by a model fit without it: on the 1–5
 * scale, or standardised by the training fold's spread (the scale the card's score averages).
 */
export function crossValidatedEstimates(
  samples: readonly Sample[],
  dimension: QualityDimension,
  output: (model: Model, s: Sample) => number = predict,
): number[] {
  const ids = FEATURE_SETS[dimension];
  return crossPredict(
    samples,
    OUTER_FOLDS,
    (train) => fit(train, dimension, ids, chooseLambda(train, dimension, ids)),
    output,
  );
}

/** The stored model of one dimension: fit on every sample, penalty chosen by CV over them all. */
export function finalModel(
  samples: readonly Sample[],
  dimension: QualityDimension,
): DimensionModel {
  const ids = FEATURE_SETS[dimension];
  const model = fit(samples, dimension, ids, chooseLambda(samples, dimension, ids));
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  return {
    features: ids,
    means: model.means.map(round),
    sds: model.sds.map(round),
    weights: model.weights.map(round),
    intercept: round(model.intercept),
    lambda: model.lambda,
    spread: round(model.spread),
    cvSummarySpearman: round(
      summarySpearman(samples, crossValidatedEstimates(samples, dimension), dimension),
    ),
    inSampleSummarySpearman: round(
      summarySpearman(
        samples,
        samples.map((s) => predict(model, s)),
        dimension,
      ),
    ),
  };
}
