/**
 * Node-only: the figures `npm run fit:quality` and `npm run validity` report for the offline
 * quality estimate's predictions on a data set, and the model as quality-weights.json stores it
 * (quality-fit.ts fits it).
 */
import type {
  DimensionModel,
  HeldOutFigure,
} from '../metrics/lexical/quality-offline/quality-model.ts';
import { summaryLevel, type PairedScore, spearman } from '../stats/correlation.ts';
import { rocAuc } from '../stats/binary-agreement.ts';
import { groupKey, type FitSample, type Model } from './quality-fit.ts';
import type { RatedDimension } from './validity/rated-sets.ts';

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
