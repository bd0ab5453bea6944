/**
 * The offline quality estimate's model: per dimension (faithfulness, coverage, coherence), a
 * linear score of standardised signals (quality-features.ts) whose weights were fit by
 * scripts/fit-quality.ts on pairs of summaries of one source (pairwise logistic regression), and
 * stored in quality-weights.json with the figures each dimension reached on data it was not fit
 * on. Kept apart from the metric so the fit script can run before any weights exist.
 */
import type { QualityFeatureId, QualityFeatures } from './quality-features.ts';

export const QUALITY_DIMENSIONS = ['faithfulness', 'coverage', 'coherence'] as const;
export type QualityDimension = (typeof QUALITY_DIMENSIONS)[number];

/** One figure a dimension's estimate reached on a data set it was not fit on. */
export interface HeldOutFigure {
  /** Data set (or family) left out, e.g. 'frank', 'summeval-dev (10 article folds)'. */
  dataset: string;
  /** Human dimension it was compared with there. */
  against: string;
  /** 'summary-spearman' (per source, averaged) or 'auc' (binary labels, pooled). */
  measure: 'summary-spearman' | 'auc';
  value: number;
}

export interface DimensionModel {
  features: QualityFeatureId[];
  /** Training means and standard deviations of the features, for standardising. */
  means: number[];
  sds: number[];
  weights: number[];
  lambda: number;
  /** Standard deviation of w·z over the training summaries: the estimate's unit. */
  spread: number;
  /** What it was fit on (data sets, pairs). */
  fitOn: string;
  /** Figures reached where the model had not seen the data (leave-one-data-set-out or folds). */
  heldOut: HeldOutFigure[];
}

export interface QualityWeights {
  method: string;
  dimensions: Record<QualityDimension, DimensionModel>;
}

export interface Contribution {
  feature: QualityFeatureId;
  value: number;
  /** (value − training mean) / training sd. */
  standardized: number;
  weight: number;
  /** weight × standardized / spread: how far this feature moves the estimate, in its unit. */
  contribution: number;
}

export interface DimensionEstimate {
  dimension: QualityDimension;
  /** Training standard deviations above the average training summary. */
  standardized: number;
  /** Φ(standardized): the share of training summaries this one would outrank. */
  estimate: number;
  contributions: Contribution[];
  heldOut: HeldOutFigure[];
}

/** The standard normal distribution function (Abramowitz & Stegun 7.1.26, error below 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t *
    (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

export function estimateDimension(
  dimension: QualityDimension,
  model: DimensionModel,
  features: QualityFeatures,
): DimensionEstimate {
  const contributions = model.features.map((feature, j) => {
    const value = features[feature];
    const standardized = (value - model.means[j]) / model.sds[j];
    const weight = model.weights[j];
    return {
      feature,
      value,
      standardized,
      weight,
      contribution: (weight * standardized) / model.spread,
    };
  });
  const standardized = contributions.reduce((sum, c) => sum + c.contribution, 0);
  return {
    dimension,
    standardized,
    estimate: normalCdf(standardized),
    contributions,
    heldOut: model.heldOut,
  };
}

/**
 * The shown score before the guards: the mean of the dimensions' standardised estimates through
 * the normal distribution function, so 0.5 is an average training summary and every dimension
 * weighs the same. Read it as a position among summaries, not a grade.
 */
export function scoreOfEstimates(
  estimates: readonly Pick<DimensionEstimate, 'standardized'>[],
): number {
  const mean = estimates.reduce((sum, e) => sum + e.standardized, 0) / estimates.length;
  return normalCdf(mean);
}
