/**
 * The CSV run export: one line per row, one column per score, spreadsheet-safe (spreadsheet.ts).
 */
import { englishWords, type Words } from './words.ts';
import type { StoredRunResult } from '../../storage/schema.ts';
import { scoreKey } from '../calibration.ts';
import { isCaseRow } from '../../rows/formats.ts';
import type { RunData } from '../run-data.ts';
import { scoreColumns, taskColumn } from '../run-view.ts';
import { humanColumnLabel, labelledHeader, scoreColumnLabel } from '../column-labels.ts';
import { csvText } from './spreadsheet.ts';
import { flagIdsText, qualityFlagsIn } from '../../metrics/quality-flags.ts';

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

export interface CsvOptions {
  /** Include the summary (or prediction) text; default true. */
  texts?: boolean;
  /** The words of the score and rating headers (the page's language); default English. */
  words?: Words;
}

/**
 * One line per data-set row (rows without results have empty score cells), columns: row, id,
 * group, system, status, summary, one per human rating (`coherence (human) [human:coherence]`),
 * one per metric score (`Local coherence (order model) [coherence]`: the label a person reads,
 * the id a program matches in brackets), the quality estimate's flag ids (`Flags [flags]`, only
 * when a row carries one: `lead-copy; one-sentence`), error.
 */
export function runToCsv(data: RunData, options: CsvOptions = {}): string {
  const texts = options.texts ?? true;
  const words = options.words ?? englishWords;
  const byRow = new Map(data.results.map((r) => [r.row, r]));
  const metrics = scoreColumns(data.run, data.results);
  const humans = humanColumnsOf(data);
  const flags = new Map(data.results.map((r) => [r.row, flagIdsText(qualityFlagsIn(r.results))]));
  const flagged = [...flags.values()].some((f) => f !== '');
  const fields = [
    'row',
    'id',
    'group',
    'system',
    'status',
    ...(texts ? ['summary'] : []),
    ...humans.map((h) => labelledHeader(humanColumnLabel(h, words), `human:${h}`)),
    ...metrics.map((m) => labelledHeader(scoreColumnLabel(m, words), m)),
    ...(flagged ? [labelledHeader(words('card.flags.column'), 'flags')] : []),
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
      ...(flagged ? [flags.get(row.row) ?? ''] : []),
      errors.join('; '),
    ]);
  }
  return csvText(fields, lines);
}
