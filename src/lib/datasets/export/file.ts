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
 *   (mean, median, n per metric) and the calibration table (../calibration.ts).
 *
 * A comparison of two runs (or two systems of one) exports as JSON, a pairs CSV and a summary CSV,
 * Markdown and HTML (compare-*.ts, html.ts), built on the page from the numbers the compare view
 * holds, after the page's keys are redacted from every text (comparison-report.ts).
 *
 * One module per format beside this one; this module picks the format and names the file, for the
 * page and the calibration worker (which builds the CSV and Markdown files next to the run's rows,
 * `exportFile`). The run view's tables live in ../run-view.ts, the loading of a run in
 * ../run-data.ts.
 */
import type { Calibration } from '../calibration.ts';
import type { RunData } from '../run-data.ts';
import { runToCsv } from './csv.ts';
import { runToJson } from './json.ts';
import { runToMarkdown } from './markdown.ts';
import { redactReport, type ComparisonReport } from './comparison-report.ts';
import { comparisonToJson } from './compare-json.ts';
import { comparisonPairsCsv, comparisonSummaryCsv } from './compare-csv.ts';
import { comparisonToMarkdown } from './compare-markdown.ts';
import { comparisonToHtml } from './html.ts';
import type { Words } from './words.ts';

export type ExportFormat = 'json' | 'csv' | 'md';

const MIME_TYPES: Record<ExportFormat | 'html', string> = {
  json: 'application/json',
  csv: 'text/csv',
  md: 'text/markdown',
  html: 'text/html',
};

export interface ExportFileOptions {
  /** JSON: the keys the page holds, redacted wherever they appear (so built on the page). */
  secrets?: readonly string[];
  /** Markdown: the calibration already computed for the run view (else computed here). */
  calibration?: Calibration;
  /** The words of the Markdown report and the CSV's headers (the page's language); default English. */
  words?: Words;
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
        ? runToCsv(data, options.words ? { words: options.words } : {})
        : runToMarkdown(data, {
            ...(options.calibration ? { calibration: options.calibration } : {}),
            ...(options.words ? { words: options.words } : {}),
          });
  return {
    text,
    fileName: exportFileName(data, format),
    type: `${MIME_TYPES[format]};charset=utf-8`,
  };
}

/** A name safe on every OS: letters, digits, `.`, `_` and `-`, at most `max` characters. */
function fileStem(text: string, max = 60): string {
  return text
    .normalize('NFKD')
    .replace(/[^\w.-]+/gu, '-')
    .replace(/^-+|-+$/gu, '')
    .slice(0, max);
}

/** A file name for an export: `sumlens-<data set>-<date>.<ext>`, safe on every OS. */
export function exportFileName(
  data: Pick<RunData, 'dataset' | 'run'>,
  ext: ExportFormat | 'html',
): string {
  const day = new Date(data.run.createdAt).toISOString().slice(0, 10);
  return `sumlens-${fileStem(data.dataset.name) || 'run'}-${day}.${ext}`;
}

/** The comparison's files: the pairs and the summary are two CSV files (export/compare-csv.ts). */
export const COMPARISON_FORMATS = ['json', 'csv', 'summary-csv', 'md', 'html'] as const;
export type ComparisonFormat = (typeof COMPARISON_FORMATS)[number];

/**
 * A comparison's file name: `sumlens-comparison-<run A>[-<system>]-vs-<run B>[-<system>]-<date>`,
 * B's run left out when both sides are systems of one run.
 */
export function comparisonFileName(report: ComparisonReport, format: ComparisonFormat): string {
  const { a, b } = report;
  const sideA = [a.runName, a.system];
  const sideB = b.runId === a.runId ? [b.system] : [b.runName, b.system];
  const stem = (parts: (string | undefined)[]) =>
    fileStem(parts.filter((p) => p !== undefined).join('-'), 40) || 'run';
  const day = new Date(report.createdAt).toISOString().slice(0, 10);
  const ext = format === 'summary-csv' ? 'summary.csv' : format;
  return `sumlens-comparison-${stem(sideA)}-vs-${stem(sideB)}-${day}.${ext}`;
}

/**
 * A comparison exported as one file. `secrets`: the keys the page holds, redacted with the key
 * shapes from every text the file carries (names, labels, pair keys, backends).
 */
export function comparisonFile(
  report: ComparisonReport,
  format: ComparisonFormat,
  options: { secrets?: readonly string[]; words?: Words } = {},
): { text: string; fileName: string; type: string } {
  const clean = redactReport(report, options.secrets ?? []);
  const words = options.words;
  const text =
    format === 'json'
      ? comparisonToJson(clean)
      : format === 'csv'
        ? comparisonPairsCsv(clean, words)
        : format === 'summary-csv'
          ? comparisonSummaryCsv(clean, words)
          : format === 'md'
            ? comparisonToMarkdown(clean, words ? { words } : {})
            : comparisonToHtml(clean, words);
  const mime = MIME_TYPES[format === 'summary-csv' ? 'csv' : format];
  return { text, fileName: comparisonFileName(clean, format), type: `${mime};charset=utf-8` };
}
