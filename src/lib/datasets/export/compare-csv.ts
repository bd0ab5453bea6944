/**
 * The comparison as CSV, two files, each one rectangular table as a spreadsheet expects (a sheet
 * does not hold two tables with different columns one above the other):
 *
 * - pairs: one line per pair: `pair` (its key: the source, record id or row number, as the
 *   summary's `pairing` says), `row A`, `row B`, then per metric its A score, B score and B − A,
 *   headed by the label a person reads and the id a program matches (`ROUGE-L: A [a:rouge-l]`,
 *   `ROUGE-L: B [b:rouge-l]`, `ROUGE-L: B - A [delta:rouge-l]`). A metric whose backends differ
 *   has its scores and an empty difference: they do not compare.
 * - summary: one line per metric: both sides' labels and backends, whether they compare, the
 *   pairing, n, the means, the mean difference with its 95% interval, the Wilcoxon p-value and its
 *   method, wins, ties and losses.
 *
 * Scores and differences keep six decimals, p-values six significant digits (format.ts); an empty
 * cell is a score that is n/a, an error or missing. Spreadsheet-safe (spreadsheet.ts).
 */
import type { MessageKey } from '../../i18n/catalog-en.ts';
import { labelledHeader, scoreColumnLabel } from '../column-labels.ts';
import { pairScores, type ComparisonReport } from './comparison-report.ts';
import { rounded, roundedP } from './format.ts';
import { csvText } from './spreadsheet.ts';
import { csvHeader, englishWords, type Words } from './words.ts';

/** One line per pair, A, B and B − A per metric. */
export function comparisonPairsCsv(report: ComparisonReport, w: Words = englishWords): string {
  const c = report.comparison;
  const fields = [
    csvHeader(w('exports.csv.pair'), 'pair'),
    csvHeader(w('exports.csv.rowA'), 'row A'),
    csvHeader(w('exports.csv.rowB'), 'row B'),
    ...c.metrics.flatMap((m) => {
      const metric = scoreColumnLabel(m.column, w);
      return [
        labelledHeader(w('exports.csv.scoreA', { metric }), `a:${m.column}`),
        labelledHeader(w('exports.csv.scoreB', { metric }), `b:${m.column}`),
        labelledHeader(w('exports.csv.delta', { metric }), `delta:${m.column}`),
      ];
    }),
  ];
  const lines = c.keys.map((key, i) => [
    key,
    c.rowsA[i],
    c.rowsB[i],
    ...c.metrics.flatMap((m) => {
      const s = pairScores(c, m, i);
      return [rounded(s.a), rounded(s.b), rounded(s.delta)];
    }),
  ]);
  return csvText(fields, lines);
}

/**
 * The summary's columns: the id a program matches, and the words a person reads (a header in
 * another language is `words [id]`; a bare letter or `n` reads the same everywhere).
 */
const SUMMARY_FIELDS: readonly (readonly [string, MessageKey | null])[] = [
  ['metric', 'exports.csv.metric'],
  ['metric id', 'exports.csv.metricId'],
  ['A', null],
  ['B', null],
  ['backend A', 'exports.csv.backendA'],
  ['backend B', 'exports.csv.backendB'],
  ['comparable', 'exports.csv.comparable'],
  ['pairing', 'exports.csv.pairing'],
  ['n', null],
  ['mean A', 'exports.csv.meanA'],
  ['mean B', 'exports.csv.meanB'],
  ['mean diff (B - A)', 'exports.csv.meanDiff'],
  ['95% low', 'exports.csv.low'],
  ['95% high', 'exports.csv.high'],
  ['Wilcoxon p', 'exports.csv.wilcoxon'],
  ['p method', 'exports.csv.pMethod'],
  ['wins', 'exports.csv.wins'],
  ['ties', 'exports.csv.ties'],
  ['losses', 'exports.csv.losses'],
];

/** One line per metric: the statistics of the view's summary table. */
export function comparisonSummaryCsv(report: ComparisonReport, w: Words = englishWords): string {
  const c = report.comparison;
  const fields = SUMMARY_FIELDS.map(([id, key]) => (key ? csvHeader(w(key), id) : id));
  const lines = c.metrics.map((m) => [
    scoreColumnLabel(m.column, w),
    m.column,
    report.a.label,
    report.b.label,
    m.backendA,
    m.backendB,
    m.comparable ? 'yes' : 'no',
    c.pairing,
    m.n,
    rounded(m.meanA),
    rounded(m.meanB),
    rounded(m.meanDiff),
    rounded(m.low),
    rounded(m.high),
    roundedP(m.pValue),
    m.pMethod ?? '',
    // Not counted where the backends differ: empty, not a zero that reads as "no wins".
    m.comparable ? m.wins : null,
    m.comparable ? m.ties : null,
    m.comparable ? m.losses : null,
  ]);
  return csvText(fields, lines);
}
