/**
 * A run or a comparison as one self-contained HTML file, to share without a server: inline CSS
 * and inline SVG charts, no script, no font and nothing fetched (its Content-Security-Policy
 * forbids any load), so it opens offline by a double-click. Every text from the data (data-set
 * names, system names, row ids) is escaped: it is shown as text, never read as HTML.
 */
import type { Calibration } from '../calibration.ts';
import type { MetricComparison } from '../compare.ts';
import type { Leaderboard } from '../leaderboard.ts';
import type { ScoreTable } from '../run-view.ts';
import { scoreColumnLabel as metricLabel } from '../column-labels.ts';
import { pairScores, type ComparisonReport } from './comparison-report.ts';
import { COMPARE_BOOTSTRAP } from '../compare.ts';
import { fixed as num, formatP, signed } from './format.ts';
import { englishWords, type Words } from './words.ts';
import { escapeHtml } from './escape.ts';
import { forestPlot, sharedForestPlot } from './forest-plot.ts';
import { humanRefLabel } from '../human-ratings.ts';
import {
  flagLabel,
  flagTallyText,
  type FlagTally,
  type QualityFlag,
} from '../../metrics/quality-flags.ts';

export { escapeHtml };

const STYLE = `
:root { color-scheme: light dark; --bg:#f6f7f9; --panel:#fff; --ink:#1c2430; --muted:#5b6675;
  --line:#dde2e8; --accent:#2f5d8a; --up:#23784a; --down:#b3261e; }
@media (prefers-color-scheme: dark) { :root { --bg:#12161c; --panel:#1b2129; --ink:#e4e8ee;
  --muted:#9aa5b4; --line:#2d3540; --accent:#6da3d8; --up:#5cc48a; --down:#f08a80; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 1rem; background: var(--bg); color: var(--ink);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1100px; margin: 0 auto; display: flex; flex-direction: column; gap: 1rem; }
section { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 1rem;
  overflow-x: auto; }
h1 { font-size: 1.3rem; margin: 0; color: var(--accent); } h2 { font-size: 1.05rem; margin: 0 0 .5rem; }
p { margin: .2rem 0; } .muted { color: var(--muted); font-size: .85rem; }
table { border-collapse: collapse; font-size: .85rem; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.up { color: var(--up); } .down { color: var(--down); }
svg { max-width: 100%; height: auto; } svg text { fill: var(--ink); font-size: 11px; }
svg .axis { stroke: var(--muted); } svg .bar { fill: var(--accent); } svg .ci { stroke: var(--accent); stroke-width: 2; }
svg .dot { fill: var(--accent); }
.forest { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; margin: .25rem 0 .75rem; }
`;

function documentOf(title: string, body: string, w: Words): string {
  return `<!doctype html>
<html lang="${escapeHtml(w('exports.html.lang'))}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
<p class="muted">${w('exports.html.footer')}</p>
</main>
</body>
</html>
`;
}

/** A histogram of values on [min, max] in `bins` equal bins. */
export function histogramSvg(values: readonly number[], title: string, bins = 20): string {
  if (values.length === 0) return '';
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const span = max - min || 1;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor(((v - min) / span) * bins))]++;
  const top = Math.max(...counts);
  const width = 300;
  const height = 120;
  const barWidth = (width - 20) / bins;
  const bars = counts
    .map((c, i) => {
      const h = (c / top) * (height - 30);
      return `<rect class="bar" x="${(10 + i * barWidth).toFixed(1)}" y="${(height - 20 - h).toFixed(1)}" width="${(barWidth - 1).toFixed(1)}" height="${h.toFixed(1)}"><title>${c}</title></rect>`;
    })
    .join('');
  return `<svg role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg" data-chart="histogram"><title>${escapeHtml(title)}</title>${bars}<line class="axis" x1="10" x2="${width - 10}" y1="${height - 20}" y2="${height - 20}"/><text x="10" y="${height - 5}">${num(min)}</text><text x="${width - 10}" y="${height - 5}" text-anchor="end">${num(max)}</text></svg>`;
}

/** A tally of flags as escaped text ('' without flags). */
function flagsCell(tally: FlagTally | undefined, w: Words, form: 'count' | 'share'): string {
  return escapeHtml(flagTallyText(tally, w, form));
}

/** A row's flags by their short names, escaped. */
function rowFlagsCell(flags: readonly QualityFlag[] | undefined, w: Words): string {
  return escapeHtml((flags ?? []).map((f) => flagLabel(f.id, w)).join('; '));
}

function leaderboardHtml(board: Leaderboard, column: string, w: Words): string {
  const col = board.columns.find((c) => c.column === column) ?? board.columns[0];
  if (!col) return '';
  const flagged = col.entries.some((e) => (e.flags?.flags.length ?? 0) > 0);
  // People's mean beside the metric's, for the reference that matches best (human-ratings.ts).
  const human = board.human;
  const humanIndex = human ? human.refs.findIndex((r) => r.key === human.best) : -1;
  const humanRef = human?.refs[humanIndex];
  const humanMeans = new Map(human?.means.map((m) => [m.system, m.values[humanIndex]]) ?? []);
  const rows = col.entries
    .map(
      (e) =>
        `<tr><td class="n">${e.rank ?? '—'}</td><td>${escapeHtml(e.system)}</td><td class="n">${num(e.mean)}</td><td class="n">[${num(e.low)}, ${num(e.high)}]</td><td class="n">${e.n}</td>${humanRef ? `<td class="n">${num(humanMeans.get(e.system), 2)}</td>` : ''}${flagged ? `<td>${flagsCell(e.flags, w, 'share')}</td>` : ''}</tr>`,
    )
    .join('');
  const items = col.entries
    .filter((e) => e.mean !== null && e.low !== null && e.high !== null)
    .map((e) => ({ label: e.system, mean: e.mean!, low: e.low!, high: e.high! }));
  const title = w('exports.html.systemsBy', { metric: metricLabel(col.column, w) });
  const note = w('exports.html.leaderboardNote', {
    systems: board.systems.length,
    sources: board.sharedSources,
  });
  const mixed = col.mixedBackends ? ` ${w('exports.html.mixedBackends')}` : '';
  const agreement = human?.agreement.find((a) => a.column === col.column && a.human === human.best);
  const tauLine =
    humanRef && agreement
      ? `<p data-tau="${agreement.tau ?? ''}">${escapeHtml(
          w('views.board.tauLine', {
            metric: metricLabel(col.column, w),
            human: humanRefLabel(humanRef, w),
            tau: signed(agreement.tau, 2),
            n: agreement.n,
          }),
        )}</p>`
      : '';
  const humanHead = humanRef ? `<th>${escapeHtml(humanRefLabel(humanRef, w))}</th>` : '';
  return `<section><h2>${escapeHtml(title)}</h2><p class="muted">${escapeHtml(note + mixed)}</p>${tauLine}${sharedForestPlot(items, title)}<table data-table="leaderboard"><thead><tr><th>#</th><th>${w('exports.col.system')}</th><th>${w('exports.col.mean')}</th><th>${w('exports.col.interval')}</th><th>n</th>${humanHead}${flagged ? `<th>${escapeHtml(w('card.flags.column'))}</th>` : ''}</tr></thead><tbody>${rows}</tbody></table></section>`;
}

function metricRow(m: MetricComparison, w: Words): string {
  const label = escapeHtml(metricLabel(m.column, w));
  if (!m.comparable) {
    return `<tr><td>${label}</td><td colspan="6">${escapeHtml(w('exports.html.notComparable', { a: m.backendA, b: m.backendB }))}</td></tr>`;
  }
  const cls = m.low !== null && m.low > 0 ? 'up' : m.high !== null && m.high < 0 ? 'down' : '';
  return `<tr><td>${label}</td><td class="n">${num(m.meanA)}</td><td class="n">${num(m.meanB)}</td><td class="n ${cls}">${signed(m.meanDiff)} [${signed(m.low)}, ${signed(m.high)}]</td><td class="n">${formatP(m.pValue)}</td><td class="n">${m.wins}/${m.ties}/${m.losses}</td><td class="n">${m.n}</td></tr>`;
}

export function comparisonToHtml(report: ComparisonReport, w: Words = englishWords): string {
  const c = report.comparison;
  const comparable = c.metrics.filter((m) => m.comparable && m.meanDiff !== null);
  const plotted = comparable.map((m) => ({
    label: metricLabel(m.column, w),
    mean: m.meanDiff!,
    low: m.low!,
    high: m.high!,
  }));
  const head = comparable
    .map(
      (m) => `<th>${escapeHtml(w('exports.col.delta', { metric: metricLabel(m.column, w) }))}</th>`,
    )
    .join('');
  const rows = c.keys
    .map((key, i) => {
      const cells = comparable
        .map((m) => {
          const d = pairScores(c, m, i).delta ?? Number.NaN;
          return `<td class="n ${d > 0 ? 'up' : d < 0 ? 'down' : ''}">${signed(d)}</td>`;
        })
        .join('');
      return `<tr><td>${escapeHtml(key)}</td><td class="n">${c.rowsA[i]}</td><td class="n">${c.rowsB[i]}</td>${cells}</tr>`;
    })
    .join('\n');
  const side = (name: string, label: string) =>
    escapeHtml(w('exports.html.side', { side: name, label }));
  const flagLines =
    c.flags && c.flags.a.flags.length + c.flags.b.flags.length > 0
      ? (
          [
            [w('exports.side.a'), c.flags.a],
            [w('exports.side.b'), c.flags.b],
          ] as const
        )
          .map(
            ([name, tally]) =>
              `<p data-flags="${name === w('exports.side.a') ? 'a' : 'b'}">${escapeHtml(w('card.flags.compareLine', { side: name, flags: flagTallyText(tally, w) || w('card.flags.none') }))}</p>`,
          )
          .join('')
      : '';
  const pairsNote = w('exports.html.pairsNote', {
    pairs: c.keys.length,
    pairing: w(`exports.pairing.${c.pairing}`),
    a: c.unpaired.a,
    b: c.unpaired.b,
    date: new Date(report.createdAt).toISOString(),
  });
  const perMetricNote = w('exports.html.perMetricNote', {
    resamples: COMPARE_BOOTSTRAP.resamples,
    seed: String(COMPARE_BOOTSTRAP.seed),
  });
  const body = `<section><h1>${escapeHtml(report.title)}</h1>
<p>${side(w('exports.side.a'), report.a.label)}</p><p>${side(w('exports.side.b'), report.b.label)}</p>
<p class="muted">${escapeHtml(pairsNote)}</p></section>
<section><h2>${w('exports.html.perMetric')}</h2><p class="muted">${escapeHtml(perMetricNote)}</p>${plotted.length > 0 ? `<p class="muted">${escapeHtml(w('views.export.ownAxis'))}</p>` : ''}
${forestPlot(plotted, w('exports.html.diffChart'))}
<table data-table="metrics"><thead><tr><th>${w('exports.col.metric')}</th><th>A</th><th>B</th><th>${w('exports.col.deltaInterval')}</th><th>p</th><th>W/T/L</th><th>n</th></tr></thead><tbody>${c.metrics.map((m) => metricRow(m, w)).join('')}</tbody></table>${flagLines}</section>
${report.leaderboard ? leaderboardHtml(report.leaderboard, report.metric ?? '', w) : ''}
<section><h2>${w('exports.html.rows')}</h2><table data-table="rows"><thead><tr><th>${w('exports.col.pair')}</th><th>${w('exports.col.rowA')}</th><th>${w('exports.col.rowB')}</th>${head}</tr></thead><tbody>
${rows}
</tbody></table></section>`;
  return documentOf(report.title, body, w);
}

export interface RunReport {
  title: string;
  datasetName: string;
  createdAt: number;
  status: string;
  table: ScoreTable;
  calibration?: Calibration;
  leaderboard?: Leaderboard | null;
}

export function runToHtml(report: RunReport, w: Words = englishWords): string {
  const t = report.table;
  const summary = t.summary
    .map(
      (s) =>
        `<tr><td>${escapeHtml(metricLabel(s.column, w))}</td><td class="n">${num(s.mean)}</td><td class="n">${num(s.median)}</td><td class="n">${s.n}</td><td class="n">${s.notApplicable}</td><td class="n">${s.errors}</td></tr>`,
    )
    .join('');
  const charts = t.columns
    .map((column) => {
      const values = Array.from(t.values.get(column) ?? []).filter(Number.isFinite);
      if (values.length === 0) return '';
      const label = metricLabel(column, w);
      return `<figure style="margin:0"><figcaption class="muted">${escapeHtml(label)}</figcaption>${histogramSvg(values, w('exports.html.distributionOf', { metric: label }))}</figure>`;
    })
    .join('');
  const calibration = report.calibration
    ? `<section><h2>${w('exports.html.calibration')}</h2><table data-table="calibration"><thead><tr><th>${w('exports.col.metric')}</th><th>${w('exports.col.human')}</th><th>n</th><th>${w('exports.col.datasetLevel')}</th><th>${w('exports.col.summaryLevel')}</th></tr></thead><tbody>${report.calibration.pairs
        .map(
          (p) =>
            `<tr><td>${escapeHtml(metricLabel(p.metric, w))}</td><td>${escapeHtml(p.human)}</td><td class="n">${p.pooled.n}</td><td class="n">${num(p.pooled.values.spearman)}</td><td class="n">${num(p.summaryLevel?.values.spearman)}</td></tr>`,
        )
        .join('')}</tbody></table></section>`
    : '';
  const flagged = (t.flagTally?.flags.length ?? 0) > 0;
  const head =
    t.columns.map((c) => `<th>${escapeHtml(metricLabel(c, w))}</th>`).join('') +
    (flagged ? `<th>${escapeHtml(w('card.flags.column'))}</th>` : '');
  const rows = t.rows
    .map(
      (row, i) =>
        `<tr><td class="n">${t.failed[i] ? escapeHtml(w('exports.html.failedRow', { row })) : row}</td>${t.columns.map((c) => `<td class="n">${num(t.values.get(c)?.[i])}</td>`).join('')}${flagged ? `<td>${rowFlagsCell(t.flags?.get(i), w)}</td>` : ''}</tr>`,
    )
    .join('\n');
  const flagLine =
    flagged && t.flagTally
      ? `<p data-flags="run">${escapeHtml(w('card.flags.runLine', { scored: t.flagTally.scored, flags: flagTallyText(t.flagTally, w) }))}</p>`
      : '';
  const runLine = w('exports.html.runLine', {
    dataset: report.datasetName,
    date: new Date(report.createdAt).toISOString(),
    status: report.status,
    rows: t.rows.length,
  });
  const body = `<section><h1>${escapeHtml(report.title)}</h1><p>${escapeHtml(runLine)}</p></section>
<section><h2>${w('exports.html.summary')}</h2><table data-table="summary"><thead><tr><th>${w('exports.col.metric')}</th><th>${w('exports.col.mean')}</th><th>${w('exports.col.median')}</th><th>n</th><th>n/a</th><th>${w('exports.col.errors')}</th></tr></thead><tbody>${summary}</tbody></table>${flagLine}</section>
<section><h2>${w('exports.html.distributions')}</h2><div style="display:flex;flex-wrap:wrap;gap:.75rem">${charts}</div></section>
${calibration}
${report.leaderboard ? leaderboardHtml(report.leaderboard, t.columns[0] ?? '', w) : ''}
<section><h2>${w('exports.html.rows')}</h2><table data-table="rows"><thead><tr><th>${w('exports.col.row')}</th>${head}</tr></thead><tbody>
${rows}
</tbody></table></section>`;
  return documentOf(report.title, body, w);
}
