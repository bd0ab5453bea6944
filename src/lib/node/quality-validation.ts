/**
 * Node-only: the quality estimate's predictions on data it was not fit on, shared by
 * `npm run fit:quality` (which prints them and stores the headline figures with the weights) and
 * `npm run validity` (which reports them per data set next to the in-sample ones).
 * - Faithfulness, leave-one-family-out: every family's summaries scored by a model whose
 *   ingredients, penalty and weights never saw that family.
 * - SummEval dev by article folds: every dimension (faithfulness also trained on the other
 *   families), and the score with its guards.
 * - The score on the other families: left-out faithfulness with the coverage and coherence models
 *   fit on SummEval dev (which never saw those families either).
 */
import {
  QUALITY_DIMENSIONS,
  normalCdf,
  type HeldOutFigure,
  type QualityDimension,
} from '../metrics/lexical/quality-offline/quality-model.ts';
import { cappedScore, type GamingFlagId } from '../metrics/lexical/quality-offline/quality.ts';
import { ARTICLE_FOLDS, foldPredictions, predict, RATED_BY } from './quality-fit.ts';
import { fitSelected, select } from './quality-select.ts';
import { headline, setFigures, type SetFigures } from './quality-figures.ts';
import type { QualitySample } from './quality-samples.ts';

export interface HeldOutPredictions {
  /** Per sample (same order as the samples): the left-out faithfulness estimate. */
  faithfulness: number[];
  /** Per sample: the left-out score (SummEval dev by folds, other families as described above). */
  score: number[];
  /** SummEval dev rows' indices among the samples, and their per-dimension fold predictions. */
  dev: { indices: number[]; byDimension: Record<QualityDimension, number[]> };
  /** Faithfulness figures per data set, and one headline per family. */
  figures: SetFigures[];
  heldOut: HeldOutFigure[];
  /** The ingredients chosen without each family. */
  selections: Array<{ family: string; features: string[]; lambda: number; inner: number }>;
}

const scoreOf = (standardized: readonly number[], flags: readonly string[]) =>
  cappedScore(
    normalCdf(standardized.reduce((a, b) => a + b, 0) / standardized.length),
    flags.map((id) => ({ id: id as GamingFlagId })),
  );

export function heldOutPredictions(samples: readonly QualitySample[]): HeldOutPredictions {
  const rated = RATED_BY.faithfulness;
  const faithfulness = new Array<number>(samples.length).fill(Number.NaN);
  const figures: SetFigures[] = [];
  const heldOut: HeldOutFigure[] = [];
  const selections: HeldOutPredictions['selections'] = [];
  const families = [
    ...new Set(samples.filter((s) => s.human[rated] !== undefined).map((s) => s.family)),
  ];
  for (const family of families) {
    const train = samples.filter((s) => s.family !== family);
    const selection = select(train, 'faithfulness');
    const model = fitSelected(train, 'faithfulness', selection);
    selections.push({
      family,
      features: selection.features,
      lambda: selection.lambda,
      inner: selection.innerFigure,
    });
    samples.forEach((s, i) => {
      if (s.family === family) faithfulness[i] = predict(model, s);
    });
    const left = samples.filter((s) => s.family === family);
    const leftPredictions = samples.flatMap((s, i) =>
      s.family === family ? [faithfulness[i]] : [],
    );
    for (const dataset of [...new Set(left.map((s) => s.dataset))]) {
      const part = left.flatMap((s, k) => (s.dataset === dataset ? [k] : []));
      figures.push(
        setFigures(
          dataset,
          part.map((k) => left[k]),
          part.map((k) => leftPredictions[k]),
          rated,
        ),
      );
    }
    const h = headline(setFigures(family, left, leftPredictions, rated), 'faithfulness');
    if (h) heldOut.push(h);
  }

  const devIndices = samples.flatMap((s, i) => (s.dataset === 'summeval-dev' ? [i] : []));
  const dev = devIndices.map((i) => samples[i]);
  const others = samples.filter((s) => s.family !== 'summeval');
  const byDimension = {} as Record<QualityDimension, number[]>;
  for (const dimension of QUALITY_DIMENSIONS) {
    byDimension[dimension] = foldPredictions(
      dev,
      ARTICLE_FOLDS,
      (train) => fitSelected(train, dimension),
      dimension === 'faithfulness' ? others : [],
    );
  }

  const coverage = fitSelected(dev, 'coverage');
  const coherence = fitSelected(dev, 'coherence');
  const score = samples.map((s, i) =>
    s.family === 'summeval'
      ? Number.NaN
      : scoreOf([faithfulness[i], predict(coverage, s), predict(coherence, s)], s.flags),
  );
  devIndices.forEach((i, k) => {
    score[i] = scoreOf(
      QUALITY_DIMENSIONS.map((d) => byDimension[d][k]),
      samples[i].flags,
    );
  });
  return {
    faithfulness,
    score,
    dev: { indices: devIndices, byDimension },
    figures,
    heldOut,
    selections,
  };
}
