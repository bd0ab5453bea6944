/**
 * The Markdown comparison report, to paste into a pull request or a notebook: what was compared
 * and how the rows were paired, the per-metric table of the view (means, mean difference B − A
 * with its 95% interval, the Wilcoxon p-value and its method, wins/ties/losses) and, per comparable
 * metric, the pairs that lost most, worst first (the view's "worst regression first").
 */
import { COMPARE_BOOTSTRAP, type MetricComparison } from '../compare.ts';
import { deltaRows } from '../compare-view.ts';
import { scoreColumnLabel } from '../column-labels.ts';
import type { ComparisonReport, ComparisonSide } from './comparison-report.ts';
import { fixed, formatP, markdownCell as cell, signed, utcMinute } from './format.ts';

export interface ComparisonMarkdownOptions {
  /** Pairs listed per metric under "Largest regressions"; default 5. */
  regressions?: number;
}

const PAIRING: Record<ComparisonReport['comparison']['pairing'], string> = {
  source: 'source',
  id: 'record id',
  row: 'row number',
};

function sideLine(name: string, s: ComparisonSide): string {
  const system = s.system === undefined ? '' : `, system ${cell(s.system)}`;
  return `- ${name}: ${cell(s.label)} (run ${cell(s.runName)}, data set ${cell(s.datasetName)}${system})`;
}

function metricLine(m: MetricComparison): string {
  const label = cell(scoreColumnLabel(m.column));
  if (!m.comparable) {
    const why = `not comparable: backend ${cell(m.backendA)} vs ${cell(m.backendB)}`;
    return `| ${label} | ${why} | — | — | — | — | — | — | ${m.n} |`;
  }
  const method =
    m.pMethod === 'exact' ? ' (exact)' : m.pMethod === 'approx' ? ' (normal approx.)' : '';
  return `| ${label} | ${cell(m.backendA)} | ${fixed(m.meanA)} | ${fixed(m.meanB)} | ${signed(m.meanDiff)} | [${signed(m.low)}, ${signed(m.high)}] | ${formatP(m.pValue)}${method} | ${m.wins} / ${m.ties} / ${m.losses} | ${m.n} |`;
}

export function comparisonToMarkdown(
  report: ComparisonReport,
  options: ComparisonMarkdownOptions = {},
): string {
  const c = report.comparison;
  const top = options.regressions ?? 5;
  const lines: string[] = [`# ${cell(report.title)}`, ''];
  lines.push(sideLine('A (baseline)', report.a), sideLine('B (candidate)', report.b));
  const unpaired =
    c.unpaired.a + c.unpaired.b > 0
      ? `; without a partner: ${c.unpaired.a} in A, ${c.unpaired.b} in B`
      : '';
  const duplicates =
    c.duplicates.a + c.duplicates.b > 0
      ? `; left out as repeated keys: ${c.duplicates.a} in A, ${c.duplicates.b} in B`
      : '';
  lines.push(`- Pairs: ${c.keys.length} by ${PAIRING[c.pairing]}${unpaired}${duplicates}`);
  lines.push(
    `- Δ is B − A per pair: its mean with a paired bootstrap 95% interval (${COMPARE_BOOTSTRAP.resamples.toLocaleString('en-US')} resamples, seed ${COMPARE_BOOTSTRAP.seed}), the two-sided Wilcoxon signed-rank p-value, and B's wins / ties / losses`,
  );
  lines.push(`- Report written ${utcMinute(report.createdAt)}`, '');

  lines.push('## Per metric', '');
  lines.push('| Metric | Backend | A | B | Δ (B − A) | 95% interval | p | W / T / L | n |');
  lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const m of c.metrics) lines.push(metricLine(m));
  lines.push('');

  lines.push('## Largest regressions', '');
  const comparable = c.metrics.filter((m) => m.comparable && m.n > 0);
  const none: string[] = [];
  for (const m of comparable) {
    const worst = deltaRows(c, {
      metric: m.column,
      sort: 'regression',
      changed: false,
      filterSide: 'b',
    }).filter((r) => r.delta < 0);
    const label = cell(scoreColumnLabel(m.column));
    if (worst.length === 0) {
      none.push(label);
      continue;
    }
    const shown = worst.length > top ? `, the ${top} largest` : '';
    lines.push(`### ${label}: ${m.losses} of ${m.n} pairs lower in B${shown}`, '');
    lines.push(
      '| Pair | Row A | Row B | A | B | Δ |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const r of worst.slice(0, top)) {
      lines.push(
        `| ${cell(r.key)} | ${r.rowA} | ${r.rowB} | ${fixed(r.a)} | ${fixed(r.b)} | ${signed(r.delta)} |`,
      );
    }
    lines.push('');
  }
  if (comparable.length === 0)
    lines.push(
      'No metric has pairs to compare: none with one backend and scores on both sides.',
      '',
    );
  else if (none.length > 0) lines.push(`No pair scores lower in B on ${none.join(', ')}.`, '');
  return lines.join('\n');
}
