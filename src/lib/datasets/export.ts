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
 * One module per format in export/; this is the entry the page and the calibration worker (which
 * builds the CSV and Markdown files next to the run's rows, `exportFile`) import. The run view's tables live in
 * run-view.ts, the loading of a run in run-data.ts.
 */
import type { Calibration } from './calibration.ts';
import type { RunData } from './run-data.ts';
import { runToCsv } from './export/csv.ts';
import { runToJson } from './export/json.ts';
import { runToMarkdown } from './export/markdown.ts';

export { runToCsv, spreadsheetSafe, type CsvOptions } from './export/csv.ts';
export * from './export/json.ts';
export { runToMarkdown, type MarkdownOptions } from './export/markdown.ts';

export type ExportFormat = 'json' | 'csv' | 'md';

const MIME_TYPES: Record<ExportFormat, string> = {
  json: 'application/json',
  csv: 'text/csv',
  md: 'text/markdown',
};

export interface ExportFileOptions {
  /** JSON: the keys the page holds, redacted wherever they appear (so built on the page). */
  secrets?: readonly string[];
  /** Markdown: the calibration already computed for the run view (else computed here). */
  calibration?: Calibration;
}

/** A run exported as one file: its text, name and MIME type. */
export function exportFile(
  data: RunData,
  format: ExportFormat,
  options: ExportFileOptions = {},
): { text: string; fileName: string; type: string } {
  const text =
    format === 'json'
      ? runToJson(data, { secrets: options.secrets ?? [] })
      : format === 'csv'
        ? runToCsv(data)
        : runToMarkdown(data, options.calibration ? { calibration: options.calibration } : {});
  return {
    text,
    fileName: exportFileName(data, format),
    type: `${MIME_TYPES[format]};charset=utf-8`,
  };
}

/** A file name for an export: `sumlens-<data set>-<date>.<ext>`, safe on every OS. */
export function exportFileName(
  data: Pick<RunData, 'dataset' | 'run'>,
  ext: ExportFormat | 'html',
): string {
  const name = data.dataset.name
    .normalize('NFKD')
    .replace(/[^\w.-]+/gu, '-')
    .replace(/^-+|-+$/gu, '')
    .slice(0, 60);
  const day = new Date(data.run.createdAt).toISOString().slice(0, 10);
  return `sumlens-${name || 'run'}-${day}.${ext}`;
}
