/**
 * A batch run out of the browser (SPEC §6), three ways:
 *
 * - JSON: the data set's record and rows, the run (metrics, settings, backends, status, judge
 *   usage) and every row's results; re-importable with `parseRunExport` + `importRunExport`. Never
 *   an API key: none is stored with a run, and the export also drops credential-named fields and
 *   redacts the keys in use and well-formed key shapes in the run and results
 *   (src/lib/llm/redact.ts).
 * - CSV (papaparse): one line per row, one column per metric score, with row, id, group, system,
 *   the summary (or prediction) and the human ratings. Spreadsheet-safe: a text cell starting with
 *   = + - @ (or a tab or carriage return) is prefixed with ' so that no spreadsheet runs it as a
 *   formula (OWASP "CSV injection"); numbers are written as numbers.
 * - Markdown: the data set, date and status, the metrics with their backends, a summary table
 *   (mean, median, n per metric) and the calibration table (calibration.ts).
 *
 * One module per format in export/; this is the entry the page imports. The run view's tables
 * live in run-view.ts, the loading of a run in run-data.ts.
 */
import type { RunData } from './run-data.ts';

export { runToCsv, spreadsheetSafe, type CsvOptions } from './export/csv.ts';
export * from './export/json.ts';
export { runToMarkdown, type MarkdownOptions } from './export/markdown.ts';

/** A file name for an export: `sumlens-<data set>-<date>.<ext>`, safe on every OS. */
export function exportFileName(
  data: Pick<RunData, 'dataset' | 'run'>,
  ext: 'json' | 'csv' | 'md',
): string {
  const name = data.dataset.name
    .normalize('NFKD')
    .replace(/[^\w.-]+/gu, '-')
    .replace(/^-+|-+$/gu, '')
    .slice(0, 60);
  const day = new Date(data.run.createdAt).toISOString().slice(0, 10);
  return `sumlens-${name || 'run'}-${day}.${ext}`;
}
