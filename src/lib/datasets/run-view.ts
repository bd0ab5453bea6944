/**
 * A run's scores as the run view, the CSV and the Markdown report read them: the score columns in
 * the run's order, one table of values per column with its summary, the human ratings lined up
 * with it, the values a chart takes, the rows' sort order, and the numbers calibration is computed
 * from. The run view's model (`runView`) is built in the calibration worker, next to the rows and
 * results it reads, and only these numbers cross to the page.
 */
import type { StoredRun, StoredRunResult } from '../storage/schema.ts';
import {
  calibrate,
  calibrationRows,
  scoreKey,
  type Calibration,
  type CalibrationRow,
} from './calibration.ts';
import type { RatedRow } from './run-data.ts';
import {
  qualityFlagsIn,
  tallyQualityFlags,
  type FlagTally,
  type QualityFlag,
} from '../metrics/quality-flags.ts';

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

export function taskColumn(task: string): string {
  return `task:${task}`;
}

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
  values: Map<string, Float64Array<ArrayBuffer>>;
  summary: ScoreSummary[];
  /** The quality estimate's flags by result index, only for results that carry some. */
  flags?: Map<number, QualityFlag[]>;
  /** How many rows carry each flag, of the rows whose quality estimate was scored. */
  flagTally?: FlagTally;
}

export function scoreTable(run: StoredRun, results: readonly StoredRunResult[]): ScoreTable {
  const n = results.length;
  const values = new Map<string, Float64Array<ArrayBuffer>>();
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
  const flags = new Map<number, QualityFlag[]>();
  for (let i = 0; i < n; i++) {
    const r = results[i];
    rows[i] = r.row;
    failed[i] = r.status === 'failed';
    const flagged = qualityFlagsIn(r.results);
    if (flagged.length > 0) flags.set(i, flagged);
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
  const flagTally = tallyQualityFlags(results.map((r) => r.results));
  return { columns, rows, failed, values, summary, flags, flagTally };
}

/** A column's finite values, in result order (a histogram's input). */
export function finiteValues(table: ScoreTable, column: string): number[] {
  const out: number[] = [];
  for (const v of table.values.get(column) ?? []) if (Number.isFinite(v)) out.push(v);
  return out;
}

/** The indexes where both columns are finite, as points. */
function finitePairs(
  xs: Float64Array | undefined,
  ys: Float64Array | undefined,
): { x: number; y: number }[] {
  if (!xs || !ys) return [];
  const out: { x: number; y: number }[] = [];
  for (let i = 0; i < xs.length; i++) {
    if (Number.isFinite(xs[i]) && Number.isFinite(ys[i])) out.push({ x: xs[i], y: ys[i] });
  }
  return out;
}

/** The results with finite values in both columns, as points (a scatter plot's input). */
export function valuePairs(table: ScoreTable, x: string, y: string): { x: number; y: number }[] {
  return finitePairs(table.values.get(x), table.values.get(y));
}

/**
 * What the run view shows, without a text: the score table, per human column the rating of each
 * result's row (NaN where the row has none, or is not in the data set), and each result's row id
 * and system ('' where it has none), index i being the table's. Typed arrays, so that posting it
 * from the worker is a copy of memory.
 */
export interface RunView {
  table: ScoreTable;
  ratings: Map<string, Float64Array<ArrayBuffer>>;
  ids: string[];
  systems: string[];
}

export function runView(
  run: StoredRun,
  rows: Iterable<RatedRow>,
  results: readonly StoredRunResult[],
): RunView {
  const table = scoreTable(run, results);
  const indexOf = new Map(table.rows.map((row, i) => [row, i]));
  const ratings = new Map<string, Float64Array<ArrayBuffer>>();
  const ids = new Array<string>(table.rows.length).fill('');
  const systems = new Array<string>(table.rows.length).fill('');
  for (const row of rows) {
    const i = indexOf.get(row.row);
    if (i === undefined) continue;
    if (row.id !== undefined) ids[i] = row.id;
    if (row.system !== undefined) systems[i] = row.system;
    for (const [column, rating] of Object.entries(row.human)) {
      let values = ratings.get(column);
      if (!values) {
        values = new Float64Array(table.rows.length).fill(Number.NaN);
        ratings.set(column, values);
      }
      values[i] = rating;
    }
  }
  return { table, ratings, ids, systems };
}

/** The results with a finite score and rating, as points (the metric-against-human scatter). */
export function ratingPairs(
  view: RunView,
  metric: string,
  human: string,
): { x: number; y: number }[] {
  return finitePairs(view.table.values.get(metric), view.ratings.get(human));
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
export function calibrationInput(data: {
  rows: Iterable<RatedRow>;
  results: readonly StoredRunResult[];
}): CalibrationRow[] {
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
export function runCalibration(data: Parameters<typeof calibrationInput>[0]): Calibration {
  return calibrate(calibrationInput(data));
}
