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
import { englishWords, type Words } from './words.ts';
import { flagTallyText, tallyQualityFlags } from '../../metrics/quality-flags.ts';

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
  /** The words of the report (the page's language); default English. */
  words?: Words;
}

/** A Markdown report of the run: what was scored with what, the scores, and the calibration. */
export function runToMarkdown(data: RunData, options: MarkdownOptions = {}): string {
  const { dataset, run, results } = data;
  const w = options.words ?? englishWords;
  const lines: string[] = [];
  lines.push(`# ${w('exports.run.title', { name: cell(dataset.name) })}`, '');
  lines.push(
    `- ${w('exports.run.dataset', { name: cell(dataset.name), kind: dataset.kind, rows: dataset.rowCount })}`,
  );
  lines.push(
    `- ${w('exports.run.run', { id: cell(run.id), date: date(run.createdAt), status: run.status })}`,
  );
  const { done, total, failed } = run.counts;
  lines.push(
    `- ${failed > 0 ? w('exports.run.rowsScoredFailed', { done, total, failed }) : w('exports.run.rowsScored', { done, total })}`,
  );
  if (run.settings.task)
    lines.push(`- ${w('exports.run.task', { task: cell(run.settings.task) })}`);
  if (run.backends.judge) {
    const u = run.judgeUsage;
    const judge = cell(`${run.backends.judge.provider}/${run.backends.judge.model}`);
    lines.push(
      `- ${
        u
          ? w('exports.run.judgeUsage', {
              judge,
              calls: u.calls,
              sent: u.httpCalls,
              cached: u.cachedCalls,
              tokens: u.input + u.output,
              cost: u.cost === undefined ? w('exports.run.costUnknown') : `$${u.cost.toFixed(4)}`,
            })
          : w('exports.run.judge', { judge })
      }`,
    );
  }
  lines.push(`- ${w('exports.written', { date: date((options.now ?? new Date()).getTime()) })}`);
  if (run.message) lines.push(`- ${w('exports.run.note', { note: cell(run.message) })}`);
  lines.push('');

  lines.push(`## ${w('exports.run.scores')}`, '');
  lines.push(
    `| ${w('exports.col.metric')} | ${w('exports.col.backend')} | ${w('exports.col.mean')} | ${w('exports.col.median')} | n | n/a | ${w('exports.col.errors')} |`,
  );
  lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const s of summarizeScores(run, results)) {
    lines.push(
      `| ${cell(scoreColumnLabel(s.column, w))} | ${cell(backendsOf(run, results, s.column))} | ${num(s.mean)} | ${num(s.median)} | ${s.n} | ${s.notApplicable} | ${s.errors} |`,
    );
  }
  lines.push('');
  const flags = tallyQualityFlags(results.map((r) => r.results));
  if (flags.flags.length > 0) {
    lines.push(
      w('card.flags.runLine', { scored: flags.scored, flags: cell(flagTallyText(flags, w)) }),
      '',
    );
  }

  lines.push(`## ${w('exports.run.calibration')}`, '');
  const calibration = options.calibration ?? runCalibration(data);
  if (calibration.humanColumns.length === 0 || calibration.pairs.length === 0) {
    lines.push(w('exports.run.noHuman'));
  } else {
    lines.push(w('exports.run.pooledNote'), '');
    lines.push(
      `| ${w('exports.col.metric')} | ${w('exports.col.human')} | n | ${w('exports.col.spearman')} | ${w('exports.col.kendall')} | ${w('exports.col.pearson')} | ${w('exports.col.summaryRho')} | τ-b | r | ${w('exports.col.documents')} |`,
    );
    lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const p of calibration.pairs) {
      const s = p.summaryLevel;
      lines.push(
        `| ${cell(scoreColumnLabel(p.metric, w))} | ${cell(humanColumnLabel(p.human, w))} | ${p.pooled.n} | ${num(p.pooled.values.spearman)} | ${num(p.pooled.values.kendall)} | ${num(p.pooled.values.pearson)} | ${num(s?.values.spearman)} | ${num(s?.values.kendall)} | ${num(s?.values.pearson)} | ${s ? `${s.groupsUsed} (${s.groupsSkipped})` : '—'} |`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}
