/**
 * The JSON comparison export, for programs: both sides (run, data set, system), how the rows were
 * paired and how many had no partner, per metric the statistics the view shows (means, mean
 * difference B − A, its paired bootstrap 95% interval, the Wilcoxon p-value and its method, wins,
 * ties and losses, both backends and whether they compare), and per pair its key, its row on each
 * side and each column's scores and difference. Scores and differences keep six decimals,
 * p-values six significant digits (format.ts). No API key: the entry (file.ts) redacts the
 * page's keys and key shapes from every text first, as the run export does.
 */
import { COMPARE_BOOTSTRAP, type MetricComparison } from '../compare.ts';
import { scoreColumnLabel } from '../column-labels.ts';
import { pairScores, type ComparisonReport, type ComparisonSide } from './comparison-report.ts';
import { rounded, roundedP } from './format.ts';
import type { FlagTally } from '../../metrics/quality-flags.ts';

export const COMPARISON_EXPORT_FORMAT = 'sumlens-comparison';
export const COMPARISON_EXPORT_VERSION = 1;

export interface ComparisonExportSide {
  label: string;
  runId: string;
  runName: string;
  datasetId: string;
  datasetName: string;
  runCreatedAt: string;
  /** The side's system when it is one system of a run; else null. */
  system: string | null;
}

/** A metric's comparison as computed, with its label; wins, ties and losses are null when the
 * backends differ (then no difference, interval or p-value is given either). */
export interface ComparisonExportMetric extends Omit<MetricComparison, 'wins' | 'ties' | 'losses'> {
  label: string;
  wins: number | null;
  ties: number | null;
  losses: number | null;
}

export interface ComparisonExportPair {
  key: string;
  rowA: number;
  rowB: number;
  /** By column: each side's score (null when n/a, an error or missing) and b − a. */
  scores: Record<string, { a: number | null; b: number | null; delta: number | null }>;
}

export interface ComparisonExport {
  format: typeof COMPARISON_EXPORT_FORMAT;
  version: typeof COMPARISON_EXPORT_VERSION;
  exportedAt: string;
  a: ComparisonExportSide;
  b: ComparisonExportSide;
  pairing: 'source' | 'row' | 'id';
  pairs: number;
  /** Rows of a side without a partner, and rows whose key another row of the side already had. */
  unpaired: { a: number; b: number };
  duplicates: { a: number; b: number };
  statistics: {
    difference: 'B − A';
    interval: {
      level: 0.95;
      method: 'paired bootstrap, percentile';
      resamples: number;
      seed: number;
    };
    test: 'Wilcoxon signed-rank, two-sided';
  };
  metrics: ComparisonExportMetric[];
  rows: ComparisonExportPair[];
  /** Per side, how many paired rows carry each flag of the quality estimate; only with flags. */
  qualityFlags?: { a: FlagTally; b: FlagTally };
}

function side(s: ComparisonSide): ComparisonExportSide {
  return {
    label: s.label,
    runId: s.runId,
    runName: s.runName,
    datasetId: s.datasetId,
    datasetName: s.datasetName,
    runCreatedAt: new Date(s.runCreatedAt).toISOString(),
    system: s.system ?? null,
  };
}

export function comparisonExport(report: ComparisonReport): ComparisonExport {
  const c = report.comparison;
  return {
    format: COMPARISON_EXPORT_FORMAT,
    version: COMPARISON_EXPORT_VERSION,
    exportedAt: new Date(report.createdAt).toISOString(),
    a: side(report.a),
    b: side(report.b),
    pairing: c.pairing,
    pairs: c.keys.length,
    unpaired: { ...c.unpaired },
    duplicates: { ...c.duplicates },
    statistics: {
      difference: 'B − A',
      interval: {
        level: 0.95,
        method: 'paired bootstrap, percentile',
        resamples: COMPARE_BOOTSTRAP.resamples,
        seed: COMPARE_BOOTSTRAP.seed,
      },
      test: 'Wilcoxon signed-rank, two-sided',
    },
    metrics: c.metrics.map((m) => ({
      column: m.column,
      label: scoreColumnLabel(m.column),
      backendA: m.backendA,
      backendB: m.backendB,
      comparable: m.comparable,
      n: m.n,
      meanA: rounded(m.meanA),
      meanB: rounded(m.meanB),
      meanDiff: rounded(m.meanDiff),
      low: rounded(m.low),
      high: rounded(m.high),
      pValue: roundedP(m.pValue),
      pMethod: m.pMethod,
      wins: m.comparable ? m.wins : null,
      ties: m.comparable ? m.ties : null,
      losses: m.comparable ? m.losses : null,
    })),
    rows: c.keys.map((key, i) => ({
      key,
      rowA: c.rowsA[i]!,
      rowB: c.rowsB[i]!,
      scores: Object.fromEntries(
        c.metrics.map((m) => {
          const s = pairScores(c, m, i);
          return [m.column, { a: rounded(s.a), b: rounded(s.b), delta: rounded(s.delta) }];
        }),
      ),
    })),
    ...(c.flags && c.flags.a.flags.length + c.flags.b.flags.length > 0
      ? { qualityFlags: { a: c.flags.a, b: c.flags.b } }
      : {}),
  };
}

export function comparisonToJson(report: ComparisonReport): string {
  return JSON.stringify(comparisonExport(report));
}
