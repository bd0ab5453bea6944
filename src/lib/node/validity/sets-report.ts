/**
 * Node-only: the validity report across every vendored human-rated data set (rated-sets.ts), the
 * second half of `npm run validity`. Per data set and metric: the summary-level Spearman and
 * Kendall τ-b (per source over its summaries, averaged where defined), the pooled Spearman, and for
 * binary labels (or one summary per source) the ROC AUC and the balanced accuracy at a threshold
 * chosen on the OTHER families, never on the set itself.
 *
 * Every row says how its figure relates to the fit:
 * - 'left-out': the quality estimate as fit without this data set (leave-one-family-out for
 *   faithfulness; article folds on SummEval dev) — what the cards quote;
 * - 'in-sample': the stored estimate, fit on everything including this set — flatters it;
 * - 'not fit': a metric nothing was fit for (the fact check's rules were written, not tuned).
 */
import { cappedScore, type GamingFlagId } from '../../metrics/lexical/quality-offline/quality.ts';
import {
  estimateDimension,
  QUALITY_DIMENSIONS,
  scoreOfEstimates,
  type QualityWeights,
} from '../../metrics/lexical/quality-offline/quality-model.ts';
import weightsJson from '../../metrics/lexical/quality-offline/quality-weights.json';
import { balancedAccuracy, bestThreshold } from '../../stats/binary-agreement.ts';
import { setFigures, type SetFigures } from '../quality-figures.ts';
import type { QualitySample } from '../quality-samples.ts';
import { heldOutPredictions } from '../quality-validation.ts';
import type { RatedDimension } from './rated-sets.ts';

export type SetsFit = 'left-out' | 'in-sample' | 'not fit';

export interface SetsValidityRow extends SetFigures {
  metric: string;
  label: string;
  fit: SetsFit;
  against: RatedDimension;
  /** Balanced accuracy at the threshold that was best on the other families (binary sets). */
  balancedAccuracy: number | null;
}

export interface SetsValidityReport {
  sets: Array<{ dataset: string; family: string; summaries: number; description: string }>;
  rows: SetsValidityRow[];
}

const WEIGHTS = weightsJson as QualityWeights;

function inSampleScore(s: QualitySample): number {
  const estimates = QUALITY_DIMENSIONS.map((d) =>
    estimateDimension(d, WEIGHTS.dimensions[d], s.features),
  );
  return cappedScore(
    scoreOfEstimates(estimates),
    s.flags.map((id) => ({ id: id as GamingFlagId })),
  );
}

interface MetricColumn {
  metric: string;
  label: string;
  fit: SetsFit;
  /** Per sample; null where the metric has no score (n/a). */
  values: Array<number | null>;
}

const round = (x: number | null) => (x === null ? null : Math.round(x * 1e4) / 1e4);

export function setsValidity(
  samples: readonly QualitySample[],
  descriptions: Readonly<Record<string, string>> = {},
): SetsValidityReport {
  const held = heldOutPredictions(samples);
  const columns: MetricColumn[] = [
    {
      metric: 'quality-offline',
      label: 'Quality estimate: faithfulness',
      fit: 'left-out',
      values: held.faithfulness,
    },
    {
      metric: 'quality-offline',
      label: 'Quality estimate: score',
      fit: 'left-out',
      values: held.score,
    },
    {
      metric: 'quality-offline',
      label: 'Quality estimate: score',
      fit: 'in-sample',
      values: samples.map(inSampleScore),
    },
    {
      metric: 'fact-check',
      label: 'Fact check (offline)',
      fit: 'not fit',
      values: samples.map((s) => s.factCheck),
    },
  ];
  const datasets = [...new Set(samples.map((s) => s.dataset))];
  const rows: SetsValidityRow[] = [];
  for (const column of columns) {
    for (const dataset of datasets) {
      const againsts: RatedDimension[] =
        dataset === 'summeval-dev' ? ['faithfulness', 'coherence', 'coverage'] : ['faithfulness'];
      for (const against of againsts) {
        const idx = samples.flatMap((s, i) =>
          s.dataset === dataset && column.values[i] !== null && s.human[against] !== undefined
            ? [i]
            : [],
        );
        if (idx.length === 0) continue;
        const part = idx.map((i) => samples[i]);
        const values = idx.map((i) => column.values[i]!);
        const figures = setFigures(dataset, part, values, against);
        let accuracy: number | null = null;
        if (figures.auc !== null) {
          const family = samples[idx[0]].family;
          const other = samples.flatMap((s, i) =>
            s.family !== family && column.values[i] !== null && s.human[against] !== undefined
              ? [i]
              : [],
          );
          const label = (i: number) =>
            samples[i].binary.includes(against)
              ? samples[i].human[against]! >= 0.5
              : samples[i].human[against]! >= 1;
          const threshold = bestThreshold(
            other.map((i) => column.values[i]!),
            other.map(label),
          );
          accuracy = balancedAccuracy(values, idx.map(label), threshold);
        }
        rows.push({
          ...figures,
          summarySpearman: round(figures.summarySpearman),
          summaryKendall: round(figures.summaryKendall),
          pooledSpearman: round(figures.pooledSpearman),
          auc: round(figures.auc),
          metric: column.metric,
          label: column.label,
          fit: column.fit,
          against,
          balancedAccuracy: round(accuracy),
        });
      }
    }
  }
  return {
    sets: datasets.map((dataset) => {
      const of = samples.filter((s) => s.dataset === dataset);
      return {
        dataset,
        family: of[0].family,
        summaries: of.length,
        description: descriptions[dataset] ?? '',
      };
    }),
    rows,
  };
}

const cell = (x: number | null) => (x === null ? '—' : x.toFixed(3));

/** The Markdown table (README and console). */
export function setsValidityMarkdown(report: SetsValidityReport): string {
  const lines = [
    '| Metric | Fit | Data set | Against | Summaries | Sources | Summary ρ | Summary τ | Pooled ρ | AUC | Bal. acc. |',
    '| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of report.rows) {
    lines.push(
      `| ${r.label} | ${r.fit} | ${r.dataset} | ${r.against} | ${r.summaries} | ${r.sources} | ${cell(r.summarySpearman)} | ${cell(r.summaryKendall)} | ${cell(r.pooledSpearman)} | ${cell(r.auc)} | ${cell(r.balancedAccuracy)} |`,
    );
  }
  return lines.join('\n');
}
