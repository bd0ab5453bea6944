/**
 * The Markdown run report: the data set, date and status, the metrics with their backends, a
 * summary table (mean, median, n per metric) and the calibration table (calibration.ts).
 */
import type { MetricId, MetricResult } from '../../metrics/types.ts';
import type { StoredRun, StoredRunResult } from '../../storage/schema.ts';
import { scoreKey, type Calibration } from '../calibration.ts';
import { humanColumnLabel, scoreColumnLabel } from '../column-labels.ts';
import type { RunData } from '../run-data.ts';
import { runCalibration, summarizeScores } from '../run-view.ts';
import { fixed as num, markdownCell as cell, utcMinute as date } from './format.ts';

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
      `| ${cell(scoreColumnLabel(s.column))} | ${cell(backendsOf(run, results, s.column))} | ${num(s.mean)} | ${num(s.median)} | ${s.n} | ${s.notApplicable} | ${s.errors} |`,
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
        `| ${cell(scoreColumnLabel(p.metric))} | ${cell(humanColumnLabel(p.human))} | ${p.pooled.n} | ${num(p.pooled.values.spearman)} | ${num(p.pooled.values.kendall)} | ${num(p.pooled.values.pearson)} | ${num(s?.values.spearman)} | ${num(s?.values.kendall)} | ${num(s?.values.pearson)} | ${s ? `${s.groupsUsed} (${s.groupsSkipped})` : '—'} |`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}
