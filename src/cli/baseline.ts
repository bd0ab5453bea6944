/**
 * The two sides of the regression gate as compare.ts's SideData, so that the CLI and the
 * comparison view pair rows and compute intervals with the one function. The baseline is read
 * from either file a run leaves: the page's run export (format "sumlens-run") or the JSON lines of
 * an earlier `npm run score --out`; the candidate is the run under way, kept row by row as the
 * slim results the comparison reads (scores, statuses, backends, flags), not the details.
 */
import { readFileSync } from 'node:fs';
import { messageOf } from '../lib/errors.ts';
import type { CompareRow, SideData } from '../lib/datasets/compare.ts';
import { RUN_EXPORT_FORMAT, parseRunExport } from '../lib/datasets/export/json.ts';
import { scoreKey } from '../lib/datasets/calibration.ts';
import { taskColumn } from '../lib/datasets/run-view.ts';
import { qualityFlagsOf } from '../lib/metrics/quality-flags.ts';
import { DEFAULT_SETTINGS } from '../lib/metrics/settings.ts';
import type { MetricId, MetricResult, MetricStatus } from '../lib/metrics/types.ts';
import type { StoredRun, StoredRunResult, TaskRowScore } from '../lib/storage/schema.ts';
import { readReasonOf } from './outputs.ts';

export class BaselineError extends Error {}

export interface Side {
  data: SideData;
  /** What the file was, in words, for the lines that name it. */
  kind: 'run export' | 'score output';
  /** The score columns some row of the side has (a metric id, or task:NAME). */
  columns: ReadonlySet<string>;
}

/** A run record with what compare.ts reads of it (the metrics' order, the task). */
function sideRun(id: string, metrics: readonly string[], task: string | undefined): StoredRun {
  const now = Date.now();
  return {
    id,
    datasetId: id,
    datasetName: id,
    createdAt: now,
    updatedAt: now,
    metrics: metrics as MetricId[],
    settings: { metrics: DEFAULT_SETTINGS, ...(task ? { task } : {}) },
    backends: { perMetric: {} },
    status: 'done',
    counts: { total: 0, done: 0, failed: 0 },
    appVersion: 'cli',
  };
}

/** The score columns some row has (any status). */
export function columnsOf(results: readonly StoredRunResult[]): Set<string> {
  const columns = new Set<string>();
  for (const r of results) {
    for (const m of r.results) columns.add(scoreKey(m));
    if (r.task) columns.add(taskColumn(r.task.task));
  }
  return columns;
}

/** A metric as the CLI writes it in a row's line (score.ts `metricEntry`). */
export interface LineMetric {
  score: number | null;
  status: MetricStatus;
  backend: string;
  reason?: string;
  flags?: string[];
}

/** The slim result the comparison and the assertions read. */
export function slimResult(
  id: string,
  m: Omit<LineMetric, 'reason' | 'flags'> & { reason?: string | undefined; flags?: string[] },
): MetricResult {
  // Cast: a stand-in for the metric's details, holding only the flags, which is all that the
  // comparison and the assertions read of them.
  return {
    id: id as MetricId,
    status: m.status,
    score: m.score,
    explanation: m.reason ?? '',
    backend: m.backend,
    details: m.flags?.length ? { flags: m.flags.map((f) => ({ id: f, message: f })) } : {},
  } as MetricResult;
}

/** The flag ids of a result, as the CLI writes them in its line. */
export function flagsOfResult(result: MetricResult): string[] {
  return qualityFlagsOf(result).map((f) => f.id);
}

function isLineMetric(value: unknown): value is LineMetric {
  const m = value as LineMetric | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    (typeof m.score === 'number' || m.score === null) &&
    (m.status === 'ok' || m.status === 'n/a' || m.status === 'error') &&
    typeof m.backend === 'string'
  );
}

function fromScoreOutput(path: string, text: string): Side {
  const rows: CompareRow[] = [];
  const results: StoredRunResult[] = [];
  const metrics: string[] = [];
  let task: string | undefined;
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line) as Record<string, unknown>;
    } catch (error) {
      throw new BaselineError(
        `--baseline ${path}: line ${i + 1} is not JSON (${messageOf(error)}). Give the page's run export (.json) or the --out file of npm run score.`,
      );
    }
    // Bad rows ({row, error}) have nothing to compare; npm's own {"error": …} has no row.
    if (typeof value?.row !== 'number' || 'error' in value) return;
    const row: CompareRow = {
      row: value.row,
      ...(typeof value.id === 'string' ? { id: value.id } : {}),
      ...(typeof value.group === 'string' ? { group: value.group } : {}),
      ...(typeof value.system === 'string' ? { system: value.system } : {}),
    };
    const stored: StoredRunResult = {
      runId: 'baseline',
      row: value.row,
      status: 'done',
      results: [],
      finishedAt: 0,
      elapsedMs: 0,
    };
    if (value.metrics && typeof value.metrics === 'object') {
      for (const [id, m] of Object.entries(value.metrics as Record<string, unknown>)) {
        if (!isLineMetric(m)) {
          throw new BaselineError(
            `--baseline ${path}: line ${i + 1}: metric ${id} has no score, status and backend.`,
          );
        }
        if (!metrics.includes(id)) metrics.push(id);
        stored.results.push(slimResult(id, m));
      }
    } else if (typeof value.task === 'string' && typeof value.score === 'number') {
      task ??= value.task;
      stored.task = taskScore(value.task, value.score);
    } else {
      return;
    }
    rows.push(row);
    results.push(stored);
  });
  if (results.length === 0) {
    throw new BaselineError(
      `--baseline ${path}: no scored row in it. Give the page's run export (.json) or the --out file of npm run score.`,
    );
  }
  return {
    data: { datasetId: `baseline:${path}`, run: sideRun('baseline', metrics, task), rows, results },
    kind: 'score output',
    columns: columnsOf(results),
  };
}

function taskScore(task: string, score: number): TaskRowScore {
  return { task, metric: task, score, perAnswer: [] };
}

/** Reads --baseline: the page's run export or an earlier run's JSON lines, recognised by content. */
export function readBaseline(path: string): Side {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new BaselineError(`--baseline ${path}: cannot read it (${readReasonOf(error)}).`);
  }
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch {
    // Several lines: the CLI's output.
    return fromScoreOutput(path, text);
  }
  const record = whole as Record<string, unknown> | null;
  if (record && typeof record === 'object' && record.format === RUN_EXPORT_FORMAT) {
    try {
      const run = parseRunExport(text);
      return {
        // A datasetId of its own: compareSides pairs rows of two data sets by id, source or row.
        data: { datasetId: `baseline:${path}`, run: run.run, rows: run.rows, results: run.results },
        kind: 'run export',
        columns: columnsOf(run.results),
      };
    } catch (error) {
      throw new BaselineError(`--baseline ${path}: ${messageOf(error)}`);
    }
  }
  if (record && typeof record === 'object' && 'metrics' in record && 'description' in record) {
    throw new BaselineError(
      `--baseline ${path} is a --summary-json file: it holds means, and the gate compares rows. Give the --out file of that run (or the page's run export).`,
    );
  }
  // One line of output is also one JSON value.
  return fromScoreOutput(path, text);
}

/** The run under way, collected as rows are scored. */
export class CandidateSide {
  private readonly rows: CompareRow[] = [];
  private readonly results: StoredRunResult[] = [];
  private task: string | undefined;

  constructor(
    private readonly file: string,
    private readonly metrics: readonly string[],
  ) {}

  addCase(row: CompareRow, results: readonly MetricResult[]): void {
    this.add(row, {
      results: results.map((r) =>
        slimResult(r.id, {
          score: r.score,
          status: r.status,
          backend: r.backend,
          reason: r.reason,
          flags: flagsOfResult(r),
        }),
      ),
    });
  }

  addTask(row: CompareRow, task: string, score: number): void {
    this.task ??= task;
    this.add(row, { results: [], task: taskScore(task, score) });
  }

  private add(row: CompareRow, result: Pick<StoredRunResult, 'results' | 'task'>): void {
    this.rows.push({
      row: row.row,
      ...(row.id === undefined ? {} : { id: row.id }),
      ...(row.group === undefined ? {} : { group: row.group }),
      ...(row.system === undefined ? {} : { system: row.system }),
    });
    this.results.push({
      runId: 'candidate',
      row: row.row,
      status: 'done',
      finishedAt: 0,
      elapsedMs: 0,
      ...result,
    });
  }

  side(): SideData {
    return {
      datasetId: `candidate:${this.file}`,
      run: sideRun('candidate', this.metrics, this.task),
      rows: this.rows,
      results: this.results,
    };
  }
}
