/**
 * The summary the CLI prints at the end (stderr) and writes with `--summary-json`: per metric the
 * mean of the rows it scored, and for a TinyEval task the task score (mean × 100, 2 decimals) as
 * TinyEval's eval.py prints it.
 */
import type { MetricResult } from '../lib/metrics/types.ts';
import type { TinyEvalTask, TinyEvalTaskScore } from '../lib/datasets/tinyeval.ts';
import { summariseTask } from '../lib/datasets/tinyeval.ts';
import type { WordSegmenter } from '../lib/metrics/lexical/cjk-words.ts';

export interface MetricSummary {
  /** Mean score over the rows where it scored ('ok'); null when none did. */
  mean: number | null;
  /** Rows that scored. */
  n: number;
  /** Rows where it did not apply (e.g. no reference). */
  na: number;
  errors: number;
}

export interface RunSummary {
  file: string;
  format: string;
  kind: string;
  description: string;
  rows: number;
  badRows: number;
  /** Rows scored with at least one metric in error (their lines say which and why). */
  rowsWithErrors: number;
  metrics: Record<string, MetricSummary>;
  /** The TinyEval task score, when rows were predictions. */
  task?: Omit<TinyEvalTaskScore, 'perRow'>;
  /** eval.py's result.json: `{task: score}`. */
  result?: Record<string, number>;
  /** Mean human ratings per column, when the file has them. */
  human?: Record<string, { mean: number; n: number }>;
  warnings: string[];
}

/** Collects results as rows stream past. */
export class RunAccumulator {
  private readonly metrics = new Map<
    string,
    { total: number; n: number; na: number; errors: number }
  >();
  private readonly human = new Map<string, { total: number; n: number }>();
  private readonly taskScores: number[] = [];
  rows = 0;
  badRows = 0;
  rowsWithErrors = 0;

  addMetric(result: Pick<MetricResult, 'id' | 'status' | 'score'>): void {
    const m = this.metrics.get(result.id) ?? { total: 0, n: 0, na: 0, errors: 0 };
    if (result.status === 'ok' && result.score !== null) {
      m.total += result.score;
      m.n++;
    } else if (result.status === 'n/a') {
      m.na++;
    } else {
      m.errors++;
    }
    this.metrics.set(result.id, m);
  }

  addHuman(ratings: Record<string, number>): void {
    for (const [k, v] of Object.entries(ratings)) {
      const h = this.human.get(k) ?? { total: 0, n: 0 };
      h.total += v;
      h.n++;
      this.human.set(k, h);
    }
  }

  addTaskScore(score: number): void {
    this.taskScores.push(score);
  }

  summary(
    base: Pick<RunSummary, 'file' | 'format' | 'kind' | 'description' | 'warnings'>,
    task?: TinyEvalTask,
    segmenter?: WordSegmenter,
  ): RunSummary {
    const metrics: Record<string, MetricSummary> = {};
    for (const [id, m] of this.metrics) {
      metrics[id] = { mean: m.n > 0 ? m.total / m.n : null, n: m.n, na: m.na, errors: m.errors };
    }
    const out: RunSummary = {
      ...base,
      rows: this.rows,
      badRows: this.badRows,
      rowsWithErrors: this.rowsWithErrors,
      metrics,
    };
    if (task) {
      const { perRow: _perRow, ...score } = summariseTask(
        task,
        this.taskScores,
        segmenter ? { segmenter } : {},
      );
      out.task = score;
      out.result = { [task.id]: score.score };
    }
    if (this.human.size > 0) {
      out.human = {};
      for (const [k, h] of this.human) out.human[k] = { mean: h.total / h.n, n: h.n };
    }
    return out;
  }
}

/** Python's float repr for a rounded score: 52 → "52.0", 23.66 → "23.66". */
export function pyFloat(x: number): string {
  return Number.isInteger(x) ? x.toFixed(1) : String(x);
}

/** Columns padded to their widest cell, the first left-aligned, the rest right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The human-readable summary table. */
export function formatSummary(s: RunSummary): string {
  const parts: string[] = [`${s.description} [${s.format}]`];
  if (s.task) {
    parts.push(
      table(
        ['task', 'metric', 'n', 'score'],
        [[s.task.task, s.task.metric, String(s.task.n), pyFloat(s.task.score)]],
      ),
    );
    const seg = s.task.segmenter ? ` (Chinese words: ${s.task.segmenter})` : '';
    const result = Object.entries(s.result ?? {})
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyFloat(v)}`)
      .join(', ');
    parts.push(`eval.py result: {${result}}${seg}`);
  }
  const metricRows = Object.entries(s.metrics).map(([id, m]) => [
    id,
    m.mean === null ? '–' : m.mean.toFixed(4),
    String(m.n),
    String(m.na),
    String(m.errors),
  ]);
  if (metricRows.length > 0)
    parts.push(table(['metric', 'mean', 'n', 'n/a', 'errors'], metricRows));
  if (s.human) {
    parts.push(
      table(
        ['human rating', 'mean', 'n'],
        Object.entries(s.human).map(([k, h]) => [k, h.mean.toFixed(3), String(h.n)]),
      ),
    );
  }
  const withErrors = s.rowsWithErrors ? `, ${s.rowsWithErrors} with a metric in error` : '';
  parts.push(
    `${s.rows} row(s) scored${withErrors}, ${s.badRows} bad row(s)${s.badRows ? ' (listed in the output with their row numbers)' : ''}`,
  );
  for (const w of s.warnings) parts.push(`warning: ${w}`);
  return parts.join('\n\n');
}
