/**
 * A comparison as its exports read it (HTML, JSON, CSV and Markdown, one module each beside this):
 * the two sides named, the comparison's numbers, and each pair's scores in a column with their
 * difference. Only a comparable column has differences: scores of different backends do not
 * compare, so a file never shows one, as the view never does.
 */
import { redactor } from '../../llm/redact.ts';
import type { Comparison, MetricComparison } from '../compare.ts';
import type { Leaderboard } from '../leaderboard.ts';
import { englishWords, type Words } from './words.ts';

/** One side: a run, or one system of a run. */
export interface ComparisonSide {
  /** What the view calls the side: data set, date, and the system when it is one. */
  label: string;
  runId: string;
  runName: string;
  datasetId: string;
  datasetName: string;
  runCreatedAt: number;
  system?: string;
}

export interface ComparisonReport {
  title: string;
  a: ComparisonSide;
  b: ComparisonSide;
  comparison: Comparison;
  /** Side A's systems ranked, where its rows hold several per source. */
  leaderboard: Leaderboard | null;
  /** The column the view shows (the leaderboard's, in the HTML page). */
  metric?: string;
  createdAt: number;
}

export function comparisonTitle(labelA: string, labelB: string, w: Words = englishWords): string {
  return w('exports.compare.title', { a: labelA, b: labelB });
}

export interface PairScores {
  a: number | null;
  b: number | null;
  /** b − a; null when a side has no score or the column is not comparable. */
  delta: number | null;
}

/** Pair `i`'s scores in one column (a score that is n/a, an error or missing is null). */
export function pairScores(
  comparison: Comparison,
  metric: MetricComparison,
  i: number,
): PairScores {
  const a = comparison.valuesA.get(metric.column)?.[i] ?? Number.NaN;
  const b = comparison.valuesB.get(metric.column)?.[i] ?? Number.NaN;
  const both = Number.isFinite(a) && Number.isFinite(b);
  return {
    a: Number.isFinite(a) ? a : null,
    b: Number.isFinite(b) ? b : null,
    delta: metric.comparable && both ? b - a : null,
  };
}

/**
 * The report with the page's keys and well-formed key shapes redacted from every text it carries
 * (names, labels, pair keys, backends): no key is stored with a run, and this keeps one that a
 * person pasted into a data set's name out of the files too (src/lib/llm/redact.ts).
 */
export function redactReport(
  report: ComparisonReport,
  secrets: readonly string[],
): ComparisonReport {
  const clean = redactor(secrets);
  const side = (s: ComparisonSide): ComparisonSide => ({
    ...s,
    label: clean(s.label),
    runName: clean(s.runName),
    datasetName: clean(s.datasetName),
    ...(s.system === undefined ? {} : { system: clean(s.system) }),
  });
  const c = report.comparison;
  return {
    ...report,
    title: clean(report.title),
    a: side(report.a),
    b: side(report.b),
    comparison: {
      ...c,
      keys: c.keys.map(clean),
      metrics: c.metrics.map((m) => ({
        ...m,
        backendA: clean(m.backendA),
        backendB: clean(m.backendB),
      })),
    },
    leaderboard: report.leaderboard && {
      ...report.leaderboard,
      systems: report.leaderboard.systems.map(clean),
      columns: report.leaderboard.columns.map((col) => ({
        ...col,
        entries: col.entries.map((e) => ({
          ...e,
          system: clean(e.system),
          backend: clean(e.backend),
        })),
      })),
    },
  };
}
