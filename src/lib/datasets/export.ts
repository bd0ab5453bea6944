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
 */
import { messageOf } from '../errors.ts';
import Papa from 'papaparse';
import { z } from 'zod';
import { metricInfo } from '../metrics/registry.ts';
import { METRIC_IDS, type MetricId, type MetricResult } from '../metrics/types.ts';
import { AUTH_HEADERS, redactValue } from '../llm/redact.ts';
import { getDataset, iterateDatasetRows, saveDataset } from '../storage/datasets.ts';
import { getRun, iterateRunResults, restoreRun } from '../storage/runs.ts';
import type { StoredDataset, StoredRun, StoredRunResult } from '../storage/schema.ts';
import { RUN_STATUSES } from '../storage/schema.ts';
import {
  calibrate,
  calibrationRows,
  scoreKey,
  type Calibration,
  type CalibrationRow,
} from './calibration.ts';
import { DATASET_KINDS, isCaseRow, type DatasetRow } from '../rows/formats.ts';

export const RUN_EXPORT_FORMAT = 'sumlens-run';
export const RUN_EXPORT_VERSION = 1;

/** Everything a run is: enough to rebuild its data set, its record and its results elsewhere. */
export interface RunExport {
  format: typeof RUN_EXPORT_FORMAT;
  version: typeof RUN_EXPORT_VERSION;
  exportedAt: string;
  appVersion: string;
  dataset: StoredDataset;
  rows: DatasetRow[];
  run: StoredRun;
  results: StoredRunResult[];
}

export interface RunData {
  dataset: StoredDataset;
  rows: DatasetRow[];
  run: StoredRun;
  results: StoredRunResult[];
}

/**
 * Rows (or results) per IndexedDB read when the page loads a run: each read's values are
 * deserialised on the page's thread in one go, so small reads keep every step short (the rows
 * carry whole source texts).
 */
export const RUN_READ_BATCH = 50;

/** Reads a run, its data set's rows and its results from IndexedDB, `RUN_READ_BATCH` at a time. */
export async function loadRunData(runId: string): Promise<RunData> {
  const run = await getRun(runId);
  if (!run) throw new Error(`Run ${runId} does not exist.`);
  const dataset = await getDataset(run.datasetId);
  if (!dataset) {
    throw new Error(
      `The data set of this run ("${run.datasetName}") was deleted: nothing to export.`,
    );
  }
  const rows: DatasetRow[] = [];
  for await (const row of iterateDatasetRows(dataset.id, RUN_READ_BATCH)) rows.push(row);
  const results: StoredRunResult[] = [];
  for await (const result of iterateRunResults(runId, RUN_READ_BATCH)) results.push(result);
  return { dataset, rows, run, results };
}

// ---- JSON ----

const CREDENTIAL_FIELD = new RegExp(
  `^(?:api[-_]?key|apikey|secret|password|access[-_]?token|${AUTH_HEADERS.join('|')})$`,
  'iu',
);

/** A deep copy without credential-named fields, key-shaped strings redacted. */
function scrub<T>(value: T, secrets: readonly string[]): T {
  const drop = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(drop);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) {
        if (!CREDENTIAL_FIELD.test(k)) out[k] = drop(inner);
      }
      return out;
    }
    return v;
  };
  return redactValue(drop(value), secrets) as T;
}

export interface JsonExportOptions {
  appVersion?: string;
  /**
   * Literal secrets to redact wherever they appear: the keys the page holds (`KeyStore.held()`).
   * Besides these, only well-formed key shapes are redacted (src/lib/llm/redact.ts), so claims and
   * quotes that mention "sk-learn" or "bearer bonds" export as written.
   */
  secrets?: readonly string[];
  now?: Date;
}

/** The export object; rows are the user's data and are kept as they are. */
export function runExport(data: RunData, options: JsonExportOptions = {}): RunExport {
  const secrets = options.secrets ?? [];
  return {
    format: RUN_EXPORT_FORMAT,
    version: RUN_EXPORT_VERSION,
    exportedAt: (options.now ?? new Date()).toISOString(),
    appVersion: options.appVersion ?? data.run.appVersion,
    dataset: scrub(data.dataset, secrets),
    rows: data.rows,
    run: scrub(data.run, secrets),
    results: scrub(data.results, secrets),
  };
}

export function runToJson(data: RunData, options: JsonExportOptions = {}): string {
  return JSON.stringify(runExport(data, options));
}

const metricResultSchema = z.looseObject({
  id: z.enum(METRIC_IDS),
  status: z.enum(['ok', 'n/a', 'error']),
  score: z.number().nullable(),
  explanation: z.string(),
  backend: z.string(),
  details: z.unknown(),
});

const rowSchema = z.looseObject({
  row: z.number().int(),
  kind: z.enum(DATASET_KINDS),
  input: z.looseObject({}),
  human: z.record(z.string(), z.number()),
  group: z.string().optional(),
});

const runResultSchema = z.looseObject({
  row: z.number().int(),
  status: z.enum(['done', 'failed']),
  results: z.array(metricResultSchema),
  finishedAt: z.number(),
  elapsedMs: z.number(),
});

export const runExportSchema = z.object({
  format: z.literal(RUN_EXPORT_FORMAT),
  version: z.literal(RUN_EXPORT_VERSION),
  exportedAt: z.string(),
  appVersion: z.string(),
  dataset: z.looseObject({
    id: z.string().min(1),
    name: z.string(),
    createdAt: z.number(),
    kind: z.enum(DATASET_KINDS),
    mapping: z.looseObject({}),
    rowCount: z.number().int().min(0),
    humanColumns: z.array(z.string()),
    problems: z.looseObject({ count: z.number().int().min(0), examples: z.array(z.unknown()) }),
  }),
  rows: z.array(rowSchema),
  run: z.looseObject({
    id: z.string().min(1),
    datasetId: z.string().min(1),
    datasetName: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    metrics: z.array(z.enum(METRIC_IDS)),
    settings: z.looseObject({ metrics: z.looseObject({}) }),
    backends: z.looseObject({ perMetric: z.record(z.string(), z.array(z.string())) }),
    status: z.enum(RUN_STATUSES),
    counts: z.object({
      total: z.number().int().min(0),
      done: z.number().int().min(0),
      failed: z.number().int().min(0),
    }),
    appVersion: z.string(),
  }),
  results: z.array(runResultSchema),
});

/** Parses and checks an export file; throws with the first problem in words. */
export function parseRunExport(text: string): RunExport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`This file is not JSON: ${messageOf(error)}`, { cause: error });
  }
  if ((json as { format?: unknown } | null)?.format !== RUN_EXPORT_FORMAT) {
    throw new Error(
      'This JSON file is not a SumLens run export (its "format" is not "sumlens-run").',
    );
  }
  const parsed = runExportSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `This run export cannot be imported: ${issue?.path.join('.') || 'the file'} ${issue?.message ?? 'is invalid'}.`,
    );
  }
  const data = parsed.data as unknown as RunExport;
  const rowNumbers = new Set(data.rows.map((r) => r.row));
  const orphan = data.results.find((r) => !rowNumbers.has(r.row));
  if (orphan) throw new Error(`This run export has results for row ${orphan.row}, which it lacks.`);
  return data;
}

export interface ImportOptions {
  /** New ids for the data set and the run (default), or the exported ones (which must be free). */
  keepIds?: boolean;
  newId?: () => string;
}

/** Stores an export as a new data set with its run and results; returns the stored records. */
export async function importRunExport(
  data: RunExport,
  options: ImportOptions = {},
): Promise<{ dataset: StoredDataset; run: StoredRun }> {
  const newId = options.newId ?? (() => crypto.randomUUID());
  const datasetId = options.keepIds ? data.dataset.id : newId();
  const runId = options.keepIds ? data.run.id : newId();
  const { rowCount: _rowCount, ...meta } = data.dataset;
  const dataset = await saveDataset({ ...meta, id: datasetId }, data.rows);
  const run = await restoreRun(
    { ...data.run, id: runId, datasetId },
    data.results.map((r) => ({ ...r, runId })),
  );
  return { dataset, run };
}

// ---- Columns shared by CSV and Markdown ----

/** The score columns of a run, in the run's metric order, then any others seen in results. */
export function scoreColumns(run: StoredRun, results: readonly StoredRunResult[]): string[] {
  const keys = new Set<string>();
  const tasks = new Set<string>();
  for (const r of results) {
    for (const m of r.results) keys.add(scoreKey(m));
    if (r.task) tasks.add(taskColumn(r.task.task));
  }
  return orderColumns(run, keys, tasks);
}

/**
 * The column order from the score keys and task columns seen (each in first-seen order): the
 * run's metrics (custom criteria in place of 'geval-custom'), its task, then the rest.
 */
function orderColumns(
  run: StoredRun,
  keys: ReadonlySet<string>,
  tasks: ReadonlySet<string>,
): string[] {
  const columns: string[] = [];
  const seen = new Set<string>();
  const add = (key: string) => {
    if (!seen.has(key)) {
      seen.add(key);
      columns.push(key);
    }
  };
  const customSeen = [...keys].filter((key) => key.startsWith('geval-custom:'));
  for (const id of run.metrics) {
    if (id === 'geval-custom' && customSeen.length > 0) customSeen.forEach(add);
    else add(id);
  }
  if (run.settings.task) add(taskColumn(run.settings.task));
  keys.forEach(add);
  tasks.forEach(add);
  return columns;
}

function taskColumn(task: string): string {
  return `task:${task}`;
}

/** A row's scores by column (null: n/a, error or missing). */
function rowScores(result: StoredRunResult | undefined): Map<string, number | null> {
  const scores = new Map<string, number | null>();
  if (!result) return scores;
  for (const m of result.results) scores.set(scoreKey(m), m.status === 'ok' ? m.score : null);
  if (result.task) scores.set(taskColumn(result.task.task), result.task.score);
  return scores;
}

function humanColumnsOf(data: Pick<RunData, 'dataset' | 'rows'>): string[] {
  const seen = new Set(data.dataset.humanColumns);
  for (const r of data.rows) for (const k of Object.keys(r.human)) seen.add(k);
  return [...seen];
}

// ---- CSV ----

/** Cells a spreadsheet would read as a formula (OWASP: = + - @, tab, carriage return). */
const FORMULA_START = /^[=+\-@\t\r]/u;

/** A text cell made safe for spreadsheets: a leading ' stops formula evaluation. */
export function spreadsheetSafe(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export interface CsvOptions {
  /** Include the summary (or prediction) text; default true. */
  texts?: boolean;
}

/**
 * One line per data-set row (rows without results have empty score cells), columns: row, id,
 * group, system, status, summary, `human:<name>` per rating, one per metric score, error.
 */
export function runToCsv(data: RunData, options: CsvOptions = {}): string {
  const texts = options.texts ?? true;
  const byRow = new Map(data.results.map((r) => [r.row, r]));
  const metrics = scoreColumns(data.run, data.results);
  const humans = humanColumnsOf(data);
  const fields = [
    'row',
    'id',
    'group',
    'system',
    'status',
    ...(texts ? ['summary'] : []),
    ...humans.map((h) => `human:${h}`),
    ...metrics,
    'error',
  ];
  const lines: unknown[][] = [];
  for (const row of data.rows) {
    const result = byRow.get(row.row);
    const scores = rowScores(result);
    const text = isCaseRow(row) ? row.input.summary : row.input.prediction;
    const errors = (result?.results ?? [])
      .filter((m) => m.status === 'error')
      .map((m) => `${scoreKey(m)}: ${m.reason ?? m.explanation}`);
    if (result?.error) errors.unshift(result.error);
    lines.push([
      row.row,
      row.id ?? '',
      row.group ?? '',
      row.system ?? '',
      result?.status ?? 'pending',
      ...(texts ? [text] : []),
      ...humans.map((h) => row.human[h] ?? null),
      ...metrics.map((m) => scores.get(m) ?? null),
      errors.join('; '),
    ]);
  }
  return Papa.unparse(
    {
      fields: fields.map(spreadsheetSafe),
      data: lines.map((cells) =>
        cells.map((c) => (typeof c === 'string' ? spreadsheetSafe(c) : c)),
      ),
    },
    // Formula cells are escaped above (papaparse's own `escapeFormulae` misses multi-line cells).
    { newline: '\r\n', quotes: false },
  );
}

// ---- Markdown ----

export interface ScoreSummary {
  column: string;
  /** Rows with a score. */
  n: number;
  mean: number | null;
  median: number | null;
  notApplicable: number;
  errors: number;
}

function median(sorted: readonly number[]): number | null {
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Mean, median and counts per score column. */
export function summarizeScores(
  run: StoredRun,
  results: readonly StoredRunResult[],
): ScoreSummary[] {
  return scoreTable(run, results).summary;
}

// ---- The run view's table ----

/**
 * A run's scores by column, for the page's run view, built in one pass over the results: stored
 * results are large nested objects, and a view that walked them again for each chart, the table
 * and the summary spent about 100 ms of one task on it for 1,000 rows. Index i is the i-th result.
 */
export interface ScoreTable {
  columns: string[];
  /** The data-set row number of each result. */
  rows: number[];
  /** Whether the result's scoring failed as a whole. */
  failed: boolean[];
  /** Per column, each result's score when 'ok' (the task score for task columns), else NaN. */
  values: Map<string, Float64Array>;
  summary: ScoreSummary[];
}

export function scoreTable(run: StoredRun, results: readonly StoredRunResult[]): ScoreTable {
  const n = results.length;
  const values = new Map<string, Float64Array>();
  const tallies = new Map<string, { values: number[]; notApplicable: number; errors: number }>();
  const keys = new Set<string>();
  const tasks = new Set<string>();
  const column = (key: string) => {
    let v = values.get(key);
    if (!v) values.set(key, (v = new Float64Array(n).fill(Number.NaN)));
    return v;
  };
  const tally = (key: string) => {
    let t = tallies.get(key);
    if (!t) tallies.set(key, (t = { values: [], notApplicable: 0, errors: 0 }));
    return t;
  };
  const rows = new Array<number>(n);
  const failed = new Array<boolean>(n);
  for (let i = 0; i < n; i++) {
    const r = results[i];
    rows[i] = r.row;
    failed[i] = r.status === 'failed';
    if (r.task) {
      const key = taskColumn(r.task.task);
      tasks.add(key);
      column(key)[i] = r.task.score;
      tally(key).values.push(r.task.score);
    }
    for (const m of r.results) {
      const key = scoreKey(m);
      keys.add(key);
      column(key)[i] = m.status === 'ok' && m.score !== null ? m.score : Number.NaN;
      const t = tally(key);
      if (m.status === 'ok' && m.score !== null && Number.isFinite(m.score)) t.values.push(m.score);
      else if (m.status === 'n/a') t.notApplicable++;
      else t.errors++;
    }
  }
  const columns = orderColumns(run, keys, tasks);
  const summary = columns.map((key) => {
    const t = tallies.get(key) ?? { values: [], notApplicable: 0, errors: 0 };
    const sorted = t.values.sort((a, b) => a - b);
    const mean = sorted.length > 0 ? sorted.reduce((s, v) => s + v, 0) / sorted.length : null;
    return {
      column: key,
      n: sorted.length,
      mean,
      median: median(sorted),
      notApplicable: t.notApplicable,
      errors: t.errors,
    };
  });
  return { columns, rows, failed, values, summary };
}

/** A column's finite values, in result order (a histogram's input). */
export function finiteValues(table: ScoreTable, column: string): number[] {
  const out: number[] = [];
  for (const v of table.values.get(column) ?? []) if (Number.isFinite(v)) out.push(v);
  return out;
}

/** The results with finite values in both columns, as points (a scatter plot's input). */
export function valuePairs(table: ScoreTable, x: string, y: string): { x: number; y: number }[] {
  const xs = table.values.get(x);
  const ys = table.values.get(y);
  if (!xs || !ys) return [];
  const out: { x: number; y: number }[] = [];
  for (let i = 0; i < xs.length; i++) {
    if (Number.isFinite(xs[i]) && Number.isFinite(ys[i])) out.push({ x: xs[i], y: ys[i] });
  }
  return out;
}

/**
 * Result indexes ordered by a column ('row' for the row number), rows without a value last when
 * descending and first when ascending; ties keep result order.
 */
export function sortedIndexes(table: ScoreTable, column: string, descending: boolean): number[] {
  const order = Array.from({ length: table.rows.length }, (_, i) => i);
  const values = column === 'row' ? undefined : table.values.get(column);
  if (column !== 'row' && !values) return order;
  const key = values
    ? Float64Array.from(values, (v) => (Number.isNaN(v) ? -Infinity : v))
    : Float64Array.from(table.rows);
  // -Infinity − -Infinity is NaN: such ties fall through to the result order too.
  return order.sort((a, b) => (descending ? key[b] - key[a] : key[a] - key[b]) || a - b);
}

/**
 * What a run's calibration is computed from: its scored rows' numbers, without texts (light
 * enough to post to the calibration worker).
 */
export function calibrationInput(data: Pick<RunData, 'rows' | 'results'>): CalibrationRow[] {
  const rows = calibrationRows(data.rows, data.results);
  // Prediction rows: the task score counts as a metric too.
  const byRow = new Map(data.results.map((r) => [r.row, r]));
  for (const row of rows) {
    const task = byRow.get(row.row)?.task;
    if (task) row.scores[taskColumn(task.task)] = task.score;
  }
  return rows;
}

/** A run's calibration against its data set's human columns (the page computes it in a worker). */
export function runCalibration(data: RunData): Calibration {
  return calibrate(calibrationInput(data));
}

function cell(text: string): string {
  return text.replace(/\\/gu, '\\\\').replace(/\|/gu, '\\|').replace(/\r?\n/gu, ' ');
}

function num(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value)
    ? '—'
    : value.toFixed(digits);
}

function metricLabel(column: string): string {
  if (column.startsWith('task:')) return `Task ${column.slice(5)}`;
  const custom = /^geval-custom:(.+)$/u.exec(column);
  if (custom) return `G-Eval: ${custom[1]}`;
  try {
    return metricInfo(column as MetricId).label;
  } catch {
    return column;
  }
}

function backendsOf(run: StoredRun, results: readonly StoredRunResult[], column: string): string {
  const seen = new Set<string>();
  for (const r of results) {
    for (const m of r.results as MetricResult[]) if (scoreKey(m) === column) seen.add(m.backend);
  }
  if (seen.size === 0 && !column.includes(':')) {
    for (const b of run.backends.perMetric[column as MetricId] ?? []) seen.add(b);
  }
  if (seen.size === 0 && column.startsWith('task:')) {
    const task = results.find((r) => r.task)?.task;
    if (task) seen.add(`TinyEval ${task.metric}${task.segmenter ? ` (${task.segmenter})` : ''}`);
  }
  return [...seen].join(', ') || '—';
}

export interface MarkdownOptions {
  /** Date of the report; default now. */
  now?: Date;
  /** The run's calibration when already computed (the page's, from its worker); else computed. */
  calibration?: Calibration;
}

/** A Markdown report of the run: what was scored with what, the scores, and the calibration. */
export function runToMarkdown(data: RunData, options: MarkdownOptions = {}): string {
  const { dataset, run, results } = data;
  const lines: string[] = [];
  const date = (t: number) => new Date(t).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  lines.push(`# SumLens run report: ${cell(dataset.name)}`, '');
  lines.push(`- Data set: ${cell(dataset.name)} (${dataset.kind}, ${dataset.rowCount} rows)`);
  lines.push(`- Run: ${run.id}, started ${date(run.createdAt)}, ${run.status}`);
  lines.push(
    `- Rows scored: ${run.counts.done} of ${run.counts.total}${run.counts.failed > 0 ? ` (${run.counts.failed} failed)` : ''}`,
  );
  if (run.settings.task) lines.push(`- Task: ${cell(run.settings.task)}`);
  if (run.backends.judge) {
    const u = run.judgeUsage;
    const usage = u
      ? `: ${u.calls} calls (${u.httpCalls} sent, ${u.cachedCalls} from cache), ${u.input + u.output} tokens, cost ${u.cost === undefined ? 'unknown' : `$${u.cost.toFixed(4)}`}`
      : '';
    lines.push(`- Judge: ${run.backends.judge.provider}/${cell(run.backends.judge.model)}${usage}`);
  }
  lines.push(`- Report written ${date((options.now ?? new Date()).getTime())}`);
  if (run.message) lines.push(`- Note: ${cell(run.message)}`);
  lines.push('');

  lines.push('## Scores', '');
  lines.push('| Metric | Backend | Mean | Median | n | n/a | Errors |');
  lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const s of summarizeScores(run, results)) {
    lines.push(
      `| ${cell(metricLabel(s.column))} | ${cell(backendsOf(run, results, s.column))} | ${num(s.mean)} | ${num(s.median)} | ${s.n} | ${s.notApplicable} | ${s.errors} |`,
    );
  }
  lines.push('');

  lines.push('## Calibration against human ratings', '');
  const calibration = options.calibration ?? runCalibration(data);
  if (calibration.humanColumns.length === 0 || calibration.pairs.length === 0) {
    lines.push('The data set has no human ratings: no calibration.');
  } else {
    lines.push(
      'Pooled: one correlation over every row. Summary level: per source document, then averaged (G-Eval, UniEval); documents with a constant side are skipped.',
      '',
    );
    lines.push(
      '| Metric | Human | n | Spearman ρ | Kendall τ-b | Pearson r | Summary-level ρ | τ-b | r | Documents used (skipped) |',
    );
    lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const p of calibration.pairs) {
      const s = p.summaryLevel;
      lines.push(
        `| ${cell(metricLabel(p.metric))} | ${cell(p.human)} | ${p.pooled.n} | ${num(p.pooled.values.spearman)} | ${num(p.pooled.values.kendall)} | ${num(p.pooled.values.pearson)} | ${num(s?.values.spearman)} | ${num(s?.values.kendall)} | ${num(s?.values.pearson)} | ${s ? `${s.groupsUsed} (${s.groupsSkipped})` : '—'} |`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}

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
