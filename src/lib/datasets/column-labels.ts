/**
 * What a person reads for a run's columns: a score column by its metric's label ("Local
 * coherence"), never its id, and a human rating column marked as people's ("coherence (human)"),
 * so that the metric "coherence" against the rating "coherence" does not read as coherence
 * agreeing with itself. Files meant for programs as well (the CSV) pair the label with the id:
 * `Local coherence [coherence]`. The words are the page's (`t`) or an export's; English by default.
 */
import { en, type MessageKey } from '../i18n/catalog-en.ts';
import { englishWords, type Words } from './export/words.ts';

const isKey = (key: string): key is MessageKey => key in en;

/** A score column's label: the metric's, a custom G-Eval criterion's, or the task's. */
export function scoreColumnLabel(column: string, words: Words = englishWords): string {
  if (column.startsWith('task:')) return words('datasets.column.task', { task: column.slice(5) });
  const custom = /^geval-custom:(.+)$/u.exec(column);
  if (custom) return words('datasets.column.gevalCustom', { name: custom[1]! });
  const key = `card.metric.${column}.label`;
  return isKey(key) ? words(key) : column;
}

/** A human rating column's label. */
export function humanColumnLabel(name: string, words: Words = englishWords): string {
  return words('datasets.column.human', { name });
}

/** A CSV header: the label a person reads, the id a program matches in brackets. */
export function labelledHeader(label: string, id: string): string {
  return `${label} [${id}]`;
}
