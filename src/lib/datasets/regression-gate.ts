/**
 * The regression gate: candidate B regressed on a metric when the paired 95% bootstrap interval of
 * B − A (compare.ts, the comparison view's own statistics) lies wholly below −margin. An interval
 * that straddles it is "no evidence of a regression", not a pass on faith: the line says how
 * many pairs it rests on. The CLI (`--fail-on-regression`) and the comparison view read this one
 * function, so both say the same about the same two runs.
 */
import type { Comparison, MetricComparison } from './compare.ts';

export type GateVerdict = 'regressed' | 'held' | 'not-comparable' | 'no-pairs' | 'missing';

export interface GateCheck {
  column: string;
  verdict: GateVerdict;
  n: number;
  meanDiff: number | null;
  low: number | null;
  high: number | null;
}

export interface GateResult {
  margin: number;
  checks: GateCheck[];
  /** True when any checked column regressed. A column that cannot be checked does not fail. */
  failed: boolean;
}

function checkColumn(metric: MetricComparison | undefined, column: string, margin: number) {
  const base = { column, n: metric?.n ?? 0 };
  if (!metric)
    return { ...base, verdict: 'missing', meanDiff: null, low: null, high: null } as const;
  const figures = { meanDiff: metric.meanDiff, low: metric.low, high: metric.high };
  if (!metric.comparable) return { ...base, ...figures, verdict: 'not-comparable' } as const;
  if (metric.n === 0 || metric.high === null) {
    return { ...base, ...figures, verdict: 'no-pairs' } as const;
  }
  return { ...base, ...figures, verdict: metric.high < -margin ? 'regressed' : 'held' } as const;
}

/**
 * The gate over `columns` (score columns as the comparison names them: a metric id, or
 * `task:NAME`). A column the comparison lacks is 'missing', which the CLI refuses before scoring.
 */
export function regressionGate(
  comparison: Pick<Comparison, 'metrics'>,
  columns: readonly string[],
  margin = 0,
): GateResult {
  const checks: GateCheck[] = columns.map((column) =>
    checkColumn(
      comparison.metrics.find((m) => m.column === column),
      column,
      margin,
    ),
  );
  return { margin, checks, failed: checks.some((c) => c.verdict === 'regressed') };
}

/** One English line per check: what the CLI prints and the view's tooltip repeats. */
export function describeGateCheck(check: GateCheck, margin: number): string {
  const interval =
    check.low === null || check.high === null
      ? ''
      : ` (Δ ${fmt(check.meanDiff)}, 95% CI [${fmt(check.low)}, ${fmt(check.high)}], n = ${check.n})`;
  // "−0" reads as a typo: with no margin the floor is plain 0.
  const floor = margin === 0 ? '0' : `−${margin}`;
  switch (check.verdict) {
    case 'regressed':
      return `${check.column}: regressed${interval}: the whole interval is below ${floor}.`;
    case 'held':
      return `${check.column}: no regression${interval}: the interval reaches ${floor} or above.`;
    case 'not-comparable':
      return `${check.column}: not comparable: the two runs scored it with different backends.`;
    case 'no-pairs':
      return `${check.column}: no pair of rows has a score on both sides.`;
    case 'missing':
      return `${check.column}: not a score column of both runs.`;
  }
}

function fmt(x: number | null): string {
  return x === null ? '–' : Number(x.toFixed(4)).toString();
}
