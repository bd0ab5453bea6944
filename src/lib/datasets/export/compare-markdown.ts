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
import { englishWords, type Words } from './words.ts';
import { flagTallyText } from '../../metrics/quality-flags.ts';

export interface ComparisonMarkdownOptions {
  /** Pairs listed per metric under "Largest regressions"; default 5. */
  regressions?: number;
  /** The words of the report (the page's language); default English. */
  words?: Words;
}

function sideLine(name: string, s: ComparisonSide, w: Words): string {
  const values = {
    side: name,
    label: cell(s.label),
    run: cell(s.runName),
    dataset: cell(s.datasetName),
  };
  return `- ${
    s.system === undefined
      ? w('exports.compare.side', values)
      : w('exports.compare.sideSystem', { ...values, system: cell(s.system) })
  }`;
}

function metricLine(m: MetricComparison, w: Words): string {
  const label = cell(scoreColumnLabel(m.column, w));
  if (!m.comparable) {
    const why = w('exports.compare.notComparable', { a: cell(m.backendA), b: cell(m.backendB) });
    return `| ${label} | ${why} | — | — | — | — | — | — | ${m.n} |`;
  }
  const p = formatP(m.pValue);
  const pText =
    m.pMethod === 'exact'
      ? w('exports.compare.pExact', { p })
      : m.pMethod === 'approx'
        ? w('exports.compare.pApprox', { p })
        : p;
  return `| ${label} | ${cell(m.backendA)} | ${fixed(m.meanA)} | ${fixed(m.meanB)} | ${signed(m.meanDiff)} | [${signed(m.low)}, ${signed(m.high)}] | ${pText} | ${m.wins} / ${m.ties} / ${m.losses} | ${m.n} |`;
}

export function comparisonToMarkdown(
  report: ComparisonReport,
  options: ComparisonMarkdownOptions = {},
): string {
  const c = report.comparison;
  const top = options.regressions ?? 5;
  const w = options.words ?? englishWords;
  const lines: string[] = [`# ${cell(report.title)}`, ''];
  lines.push(
    sideLine(w('exports.side.a'), report.a, w),
    sideLine(w('exports.side.b'), report.b, w),
  );
  const pairs = w('exports.compare.pairs', {
    pairs: c.keys.length,
    pairing: w(`exports.pairing.${c.pairing}`),
    unpaired: c.unpaired.a + c.unpaired.b > 0 ? 'yes' : 'no',
    unpairedA: c.unpaired.a,
    unpairedB: c.unpaired.b,
    repeated: c.duplicates.a + c.duplicates.b > 0 ? 'yes' : 'no',
    repeatedA: c.duplicates.a,
    repeatedB: c.duplicates.b,
  });
  lines.push(`- ${pairs}`);
  lines.push(
    `- ${w('exports.compare.deltaNote', { resamples: COMPARE_BOOTSTRAP.resamples, seed: String(COMPARE_BOOTSTRAP.seed) })}`,
  );
  lines.push(`- ${w('exports.written', { date: utcMinute(report.createdAt) })}`, '');

  lines.push(`## ${w('exports.compare.perMetric')}`, '');
  lines.push(
    `| ${w('exports.col.metric')} | ${w('exports.col.backend')} | A | B | ${w('exports.col.deltaBA')} | ${w('exports.col.interval')} | p | W / T / L | n |`,
  );
  lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const m of c.metrics) lines.push(metricLine(m, w));
  lines.push('');
  if (c.flags && c.flags.a.flags.length + c.flags.b.flags.length > 0) {
    for (const [name, tally] of [
      [w('exports.side.a'), c.flags.a],
      [w('exports.side.b'), c.flags.b],
    ] as const) {
      const flags = cell(flagTallyText(tally, w) || w('card.flags.none'));
      lines.push(`- ${w('card.flags.compareLine', { side: name, flags })}`);
    }
    lines.push('');
  }

  lines.push(`## ${w('exports.compare.regressions')}`, '');
  const comparable = c.metrics.filter((m) => m.comparable && m.n > 0);
  const none: string[] = [];
  for (const m of comparable) {
    const worst = deltaRows(c, {
      metric: m.column,
      sort: 'regression',
      changed: false,
      filterSide: 'b',
    }).filter((r) => r.delta < 0);
    const label = cell(scoreColumnLabel(m.column, w));
    if (worst.length === 0) {
      none.push(label);
      continue;
    }
    const heading = w('exports.compare.regressionHeading', {
      metric: label,
      losses: m.losses,
      n: m.n,
      cut: worst.length > top ? 'yes' : 'no',
      top,
    });
    lines.push(`### ${heading}`, '');
    lines.push(
      `| ${w('exports.col.pair')} | ${w('exports.col.rowA')} | ${w('exports.col.rowB')} | A | B | Δ |`,
      '| --- | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const r of worst.slice(0, top)) {
      lines.push(
        `| ${cell(r.key)} | ${r.rowA} | ${r.rowB} | ${fixed(r.a)} | ${fixed(r.b)} | ${signed(r.delta)} |`,
      );
    }
    lines.push('');
  }
  if (comparable.length === 0) lines.push(w('exports.compare.noMetric'), '');
  else if (none.length > 0)
    lines.push(w('exports.compare.noRegression', { metrics: none.join(', ') }), '');
  return lines.join('\n');
}
