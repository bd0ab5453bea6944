/**
 * `--baseline RUN.json [--fail-on-regression METRIC,… [--margin X]]`: this run compared with an
 * earlier one by compare.ts (the comparison view's pairing, paired bootstrap interval, Wilcoxon,
 * wins/ties/losses), and gated by regression-gate.ts: a metric regressed when the 95% interval
 * of this run − baseline lies wholly below −margin. Everything that can be checked before scoring
 * is (the file, the metrics named, the margin), so a typo costs nothing.
 */
import { compareSides, type Comparison, type MetricComparison } from '../lib/datasets/compare.ts';
import type { SideData } from '../lib/datasets/compare.ts';
import {
  describeGateCheck,
  regressionGate,
  type GateCheck,
  type GateResult,
} from '../lib/datasets/regression-gate.ts';
import { METRIC_IDS } from '../lib/metrics/registry.ts';
import { columnsOf, type Side } from './baseline.ts';
import { table } from './report.ts';
import { markdownText } from './step-summary.ts';

export class GateSetupError extends Error {}

export interface GateOptions {
  baseline: string;
  /** The columns gated (a metric id, or task:NAME); empty: the comparison alone. */
  columns: string[];
  margin: number;
}

/** The options as given; refuses every combination that cannot mean anything. */
export function gateOptions(values: {
  baseline?: string | undefined;
  failOn?: string | undefined;
  margin?: string | undefined;
}): GateOptions | undefined {
  if (values.failOn !== undefined && values.baseline === undefined) {
    throw new GateSetupError(
      "--fail-on-regression needs --baseline RUN.json: the run to compare with (the page's run export, or an earlier --out file).",
    );
  }
  if (values.margin !== undefined && values.failOn === undefined) {
    throw new GateSetupError(
      '--margin is the drop --fail-on-regression tolerates: give --fail-on-regression METRIC too.',
    );
  }
  if (values.baseline === undefined) return undefined;
  const margin = values.margin === undefined ? 0 : Number(values.margin);
  if (
    values.margin !== undefined &&
    (values.margin.trim() === '' || !Number.isFinite(margin) || margin < 0)
  ) {
    throw new GateSetupError(
      `--margin ${values.margin}: give a number ≥ 0, the drop to tolerate on the metric's scale (e.g. 0.02).`,
    );
  }
  const columns = (values.failOn ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (values.failOn !== undefined && columns.length === 0) {
    throw new GateSetupError(
      '--fail-on-regression: name the metric(s), e.g. quality-offline,support.',
    );
  }
  const unknown = columns.filter(
    (c) =>
      !(METRIC_IDS as readonly string[]).includes(c) &&
      !c.startsWith('task:') &&
      !c.startsWith('geval-custom:'),
  );
  if (unknown.length > 0) {
    throw new GateSetupError(
      `--fail-on-regression: unknown metric(s) ${unknown.join(', ')}. Known: ${METRIC_IDS.join(', ')}, or task:NAME for a prediction file's task.`,
    );
  }
  return { baseline: values.baseline, columns: [...new Set(columns)], margin };
}

/** Before scoring: every gated metric must be in the baseline and in this run. */
export function checkGateColumns(
  options: GateOptions,
  baseline: Side,
  runMetrics: readonly string[],
): void {
  for (const column of options.columns) {
    if (!baseline.columns.has(column)) {
      throw new GateSetupError(
        `--fail-on-regression ${column}: the baseline ${options.baseline} did not score it (it has ${[...baseline.columns].join(', ') || 'no score'}). Gate a metric both runs score.`,
      );
    }
    const metric = column.startsWith('geval-custom:') ? 'geval-custom' : column;
    if (!column.startsWith('task:') && !runMetrics.includes(metric)) {
      throw new GateSetupError(
        `--fail-on-regression ${column}: this run does not score it; add it to --metrics (or the config's "metrics").`,
      );
    }
  }
}

export interface GateReport {
  /** For stderr. */
  text: string;
  /** For the step summary. */
  markdown: string;
  failed: boolean;
  /** For --summary-json. */
  json: object;
}

const PAIRED_BY = { id: 'by id', source: 'by source', row: 'by row number' } as const;

function num(x: number | null, digits = 4): string {
  return x === null ? '–' : Number(x.toFixed(digits)).toString();
}

function pValue(p: number | null): string {
  if (p === null) return '–';
  return p < 0.001 ? '<0.001' : p.toFixed(3);
}

function cells(m: MetricComparison): string[] {
  if (!m.comparable) {
    return [
      m.column,
      String(m.n),
      num(m.meanA),
      num(m.meanB),
      `not comparable: ${m.backendA} vs ${m.backendB}`,
      '',
      '',
      '',
    ];
  }
  return [
    m.column,
    String(m.n),
    num(m.meanA),
    num(m.meanB),
    num(m.meanDiff),
    m.low === null ? '–' : `[${num(m.low)}, ${num(m.high)}]`,
    pValue(m.pValue),
    `${m.wins}/${m.ties}/${m.losses}`,
  ];
}

const HEADER = ['metric', 'n', 'baseline', 'this run', 'Δ', '95% CI', 'p', 'W/T/L'];
const MARK: Record<GateCheck['verdict'], string> = {
  regressed: '❌',
  held: '✅',
  'not-comparable': '⚠️',
  'no-pairs': '⚠️',
  missing: '⚠️',
};

/** The metrics both runs scored, in the comparison's order. */
function shared(comparison: Comparison, a: ReadonlySet<string>, b: ReadonlySet<string>) {
  return comparison.metrics.filter((m) => a.has(m.column) && b.has(m.column));
}

export function compareWithBaseline(
  options: GateOptions,
  baseline: Side,
  candidate: SideData,
): GateReport {
  const comparison = compareSides(baseline.data, candidate);
  const metrics = shared(comparison, baseline.columns, columnsOf(candidate.results));
  const pairs = comparison.keys.length;
  const pairing = `${pairs} row pair(s) ${PAIRED_BY[comparison.pairing]} (unpaired: ${comparison.unpaired.a} baseline row(s), ${comparison.unpaired.b} of this run)`;
  const text = [
    `Against the baseline ${options.baseline} (${baseline.kind}): ${pairing}.`,
    metrics.length > 0 ? table(HEADER, metrics.map(cells)) : 'No metric is scored in both runs.',
  ];
  const markdown = [
    `### Against the baseline ${markdownText(options.baseline)}`,
    '',
    `${markdownText(pairing)}. Δ = this run − baseline, with the paired bootstrap 95% interval and the Wilcoxon signed-rank p; W/T/L = rows this run won, tied, lost.`,
    '',
    `| ${HEADER.join(' | ')} |`,
    `| --- | ${HEADER.slice(1)
      .map(() => '---:')
      .join(' | ')} |`,
    ...metrics.map((m) => `| ${cells(m).map(markdownText).join(' | ')} |`),
  ];
  let gate: GateResult | undefined;
  if (options.columns.length > 0) {
    gate = regressionGate(comparison, options.columns, options.margin);
    const lines = gate.checks.map((c) => describeGateCheck(c, options.margin));
    const regressed = gate.checks.filter((c) => c.verdict === 'regressed').length;
    const unchecked = gate.checks.filter((c) => c.verdict !== 'regressed' && c.verdict !== 'held');
    const verdict = gate.failed
      ? `Regression gate failed: ${regressed} of ${gate.checks.length} metric(s) regressed.`
      : `Regression gate passed: no regression on ${gate.checks.length - unchecked.length} of ${gate.checks.length} metric(s)${unchecked.length ? `; ${unchecked.map((c) => c.column).join(', ')} could not be checked` : ''}.`;
    text.push(
      [`Regression gate (margin ${options.margin}):`, ...lines.map((l) => `  ${l}`), verdict].join(
        '\n',
      ),
    );
    markdown.push(
      '',
      `**Regression gate** (margin ${options.margin}): ${gate.failed ? '❌ failed' : '✅ passed'}`,
      '',
      ...gate.checks.map((c, i) => `- ${MARK[c.verdict]} ${markdownText(lines[i]!)}`),
    );
  }
  return {
    text: text.join('\n\n'),
    markdown: markdown.join('\n'),
    failed: gate?.failed ?? false,
    json: {
      baseline: options.baseline,
      pairing: comparison.pairing,
      pairs,
      unpaired: comparison.unpaired,
      metrics,
      ...(gate ? { gate } : {}),
    },
  };
}
