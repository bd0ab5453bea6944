/**
 * Calibration against people (SPEC §6): for every (metric, human column) pair of a run, Spearman ρ,
 * Kendall τ-b and Pearson r,
 *
 * - pooled ("dataset level"): one correlation over every row that has both values;
 * - summary level: one correlation per source document (the row's `group`) over that document's
 *   summaries, then the plain mean over the documents where it is defined, as the G-Eval
 *   (Liu et al. 2023, §3.1) and UniEval (Zhong et al. 2022, §4.1) papers report SummEval. Documents
 *   with fewer than two rows or a constant side (every summary rated alike) have no correlation:
 *   they are skipped and counted, like scipy's NaN followed by a nan-aware mean.
 *
 * The statistics themselves are src/lib/stats/correlation.ts (average ranks for ties, τ-b),
 * checked there against scipy; this module only pairs the values up.
 */
import {
  CORRELATION_METHODS,
  datasetLevel,
  summaryLevel,
  type CorrelationMethod,
  type PairedScore,
} from '../stats/correlation.ts';
import type { MetricResult } from '../metrics/types.ts';
import type { DatasetRow } from '../rows/formats.ts';

/** One scored row: metric scores by key (see `scoreKey`) and human ratings by column. */
export interface CalibrationRow {
  row: number;
  /** Source document id, for summary-level figures; rows without one count only pooled. */
  group?: string;
  scores: Record<string, number | null>;
  human: Record<string, number>;
}

export type MethodValues = Record<CorrelationMethod, number | null>;

export interface PooledCalibration {
  /** Rows with both a metric score and a human rating. */
  n: number;
  values: MethodValues;
}

export interface SummaryLevelCalibration {
  values: MethodValues;
  /** Rows in the groups used. */
  n: number;
  /** Groups whose correlation was defined and averaged. */
  groupsUsed: number;
  /** Groups left out (fewer than two rows, or a constant side). */
  groupsSkipped: number;
  /** Rows with both values but no group (only in the pooled figure). */
  ungroupedRows: number;
}

export interface CalibrationPair {
  metric: string;
  human: string;
  pooled: PooledCalibration;
  /** Null when no row has a group. */
  summaryLevel: SummaryLevelCalibration | null;
  /** Rows with a human rating but no score for this metric (n/a or error). */
  missingScores: number;
}

export interface Calibration {
  /** Metric keys in first-seen order. */
  metrics: string[];
  /** Human columns in first-seen order. */
  humanColumns: string[];
  /** One entry per (metric, human column), metric-major. */
  pairs: CalibrationPair[];
}

function emptyValues(): MethodValues {
  return { pearson: null, spearman: null, kendall: null };
}

function usable(v: number | null | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** Every (metric, human) pair of these rows, both levels and all three methods. */
export function calibrate(rows: readonly CalibrationRow[]): Calibration {
  const metrics = new Set<string>();
  const humanColumns = new Set<string>();
  for (const r of rows) {
    for (const k of Object.keys(r.scores)) metrics.add(k);
    for (const k of Object.keys(r.human)) humanColumns.add(k);
  }
  const pairs: CalibrationPair[] = [];
  for (const metric of metrics) {
    for (const human of humanColumns) {
      pairs.push(calibratePair(rows, metric, human));
    }
  }
  return { metrics: [...metrics], humanColumns: [...humanColumns], pairs };
}

/** One (metric, human column) pair. */
export function calibratePair(
  rows: readonly CalibrationRow[],
  metric: string,
  human: string,
): CalibrationPair {
  const all: PairedScore[] = [];
  const grouped: PairedScore[] = [];
  let missingScores = 0;
  for (const r of rows) {
    const h = r.human[human];
    if (!usable(h)) continue;
    const m = r.scores[metric];
    if (!usable(m)) {
      missingScores++;
      continue;
    }
    const pair = { group: r.group ?? '', metric: m, human: h };
    all.push(pair);
    if (r.group !== undefined) grouped.push(pair);
  }
  const pooled: PooledCalibration = { n: all.length, values: emptyValues() };
  for (const method of CORRELATION_METHODS) {
    pooled.values[method] = datasetLevel(method, all).value;
  }
  let summary: SummaryLevelCalibration | null = null;
  if (grouped.length > 0) {
    summary = {
      values: emptyValues(),
      n: 0,
      groupsUsed: 0,
      groupsSkipped: 0,
      ungroupedRows: all.length - grouped.length,
    };
    for (const method of CORRELATION_METHODS) {
      const s = summaryLevel(method, grouped);
      summary.values[method] = s.value;
      // Defined for one method iff for all (both sides non-constant, two rows or more).
      summary.n = s.n;
      summary.groupsUsed = s.groupsUsed;
      summary.groupsSkipped = s.groupsSkipped;
    }
  }
  return { metric, human, pooled, summaryLevel: summary, missingScores };
}

export interface ScatterPoint {
  /** The metric score. */
  x: number;
  /** The human rating. */
  y: number;
  row: number;
  group?: string;
}

/** The rows that have both values, for a metric-vs-human scatter plot. */
export function scatterPoints(
  rows: readonly CalibrationRow[],
  metric: string,
  human: string,
): ScatterPoint[] {
  const points: ScatterPoint[] = [];
  for (const r of rows) {
    const x = r.scores[metric];
    const y = r.human[human];
    if (!usable(x) || !usable(y)) continue;
    points.push({ x, y, row: r.row, ...(r.group === undefined ? {} : { group: r.group }) });
  }
  return points;
}

/**
 * The column a result fills: its metric id, except user-defined G-Eval criteria, which share the
 * id 'geval-custom' and are told apart by name ('geval-custom:Tone').
 */
export function scoreKey(result: Pick<MetricResult, 'id' | 'details'>): string {
  if (result.id === 'geval-custom') {
    const criterion = (result.details as { criterion?: unknown } | null)?.criterion;
    if (typeof criterion === 'string' && criterion !== '') return `geval-custom:${criterion}`;
  }
  return result.id;
}

/** A row's scores by key: the score when 'ok', else null. */
export function scoresOf(results: readonly MetricResult[]): Record<string, number | null> {
  const scores: Record<string, number | null> = {};
  for (const r of results) scores[scoreKey(r)] = r.status === 'ok' ? r.score : null;
  return scores;
}

/** Joins a data set's rows with a run's results (by row number) for `calibrate`. */
export function calibrationRows(
  rows: Iterable<Pick<DatasetRow, 'row' | 'group' | 'human'>>,
  results: Iterable<{ row: number; results: readonly MetricResult[] }>,
): CalibrationRow[] {
  const byRow = new Map<number, readonly MetricResult[]>();
  for (const r of results) byRow.set(r.row, r.results);
  const out: CalibrationRow[] = [];
  for (const row of rows) {
    const scored = byRow.get(row.row);
    if (!scored) continue;
    out.push({
      row: row.row,
      ...(row.group === undefined ? {} : { group: row.group }),
      scores: scoresOf(scored),
      human: row.human,
    });
  }
  return out;
}
