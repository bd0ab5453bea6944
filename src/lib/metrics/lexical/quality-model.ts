/**
 * The offline quality estimate's model: per human dimension, a ridge combination of standardised
 * lexical features (quality-features.ts), fit by scripts/fit-quality.ts and stored in
 * quality-weights.json. Kept apart from the metric so the fit script can run before any weights
 * exist.
 */
import type { QualityFeatureId, QualityFeatures } from './quality-features.ts';

export const QUALITY_DIMENSIONS = ['coherence', 'consistency'] as const;
export type QualityDimension = (typeof QUALITY_DIMENSIONS)[number];

export interface DimensionModel {
  features: QualityFeatureId[];
  /** Training means and standard deviations of the features, for standardising. */
  means: number[];
  sds: number[];
  weights: number[];
  /** Mean expert rating (1–5) of the training summaries: the estimate of an average summary. */
  intercept: number;
  lambda: number;
  /** Standard deviation of the estimate over the dev summaries. */
  spread: number;
  /** Summary-level Spearman, cross-validated over article folds, and of the final fit on dev. */
  cvSummarySpearman: number;
  inSampleSummarySpearman: number;
}

export interface QualityWeights {
  dataset: string;
  cv: string;
  dimensions: Record<QualityDimension, DimensionModel>;
}

export interface Contribution {
  feature: QualityFeatureId;
  value: number;
  /** (value − training mean) / training sd. */
  standardized: number;
  weight: number;
  /** weight × standardized: how far this feature moves the estimate, in rating points. */
  contribution: number;
}

export interface DimensionEstimate {
  dimension: QualityDimension;
  /** On the experts' 1–5 scale; only its order among summaries of one source means much. */
  estimate: number;
  /** (estimate − intercept) / spread: dev standard deviations above the average dev summary. */
  standardized: number;
  contributions: Contribution[];
  cvSummarySpearman: number;
  inSampleSummarySpearman: number;
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
    return { feature, value, standardized, weight, contribution: weight * standardized };
  });
  const shift = contributions.reduce((sum, c) => sum + c.contribution, 0);
  return {
    dimension,
    estimate: model.intercept + shift,
    standardized: shift / model.spread,
    contributions,
    cvSummarySpearman: model.cvSummarySpearman,
    inSampleSummarySpearman: model.inSampleSummarySpearman,
  };
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

/**
 * The shown score: the mean of the dimensions' standardised estimates, through the normal
 * distribution function, so 0.5 is an average SummEval dev summary and each dimension weighs the
 * same however spread out its estimate is (the consistency estimate moves far less in rating
 * points than the coherence one). Read it as a percentile-like position, not a grade.
 */
export function scoreOfEstimates(
  estimates: readonly Pick<DimensionEstimate, 'standardized'>[],
): number {
  const mean = estimates.reduce((sum, e) => sum + e.standardized, 0) / estimates.length;
  return normalCdf(mean);
}
