/**
 * What a person reads for a run's columns: a score column by its metric's label (the registry's,
 * "Local coherence (order model)"), never its id, and a human rating column marked as people's
 * ("coherence (human)"), so that the metric "coherence" against the rating "coherence" does not
 * read as coherence agreeing with itself. Files meant for programs as well (the CSV) pair the
 * label with the id: `Local coherence (order model) [coherence]`.
 */
import { metricInfo } from '../metrics/registry.ts';
import type { MetricId } from '../metrics/types.ts';

/** A score column's label: the metric's, a custom G-Eval criterion's, or the task's. */
export function scoreColumnLabel(column: string): string {
  if (column.startsWith('task:')) return `Task ${column.slice(5)}`;
  const custom = /^geval-custom:(.+)$/u.exec(column);
  if (custom) return `G-Eval: ${custom[1]}`;
  try {
    return metricInfo(column as MetricId).label;
  } catch {
    return column;
  }
}

/** A human rating column's label. */
export function humanColumnLabel(name: string): string {
  return `${name} (human)`;
}

/** A CSV header: the label a person reads, the id a program matches in brackets. */
export function labelledHeader(label: string, id: string): string {
  return `${label} [${id}]`;
}
