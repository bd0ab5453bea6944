/**
 * The constructors of results without a score. Kept apart from types.ts because types.ts re-exports
 * the id lists from the registry, which imports every metric module: a module importing a value
 * from types.ts would close an import cycle.
 */
import type { MetricId, MetricResult, ScoredResult, UnscoredResult } from './types.ts';

export function notApplicable<K extends MetricId>(
  id: K,
  backend: string,
  reason: string,
  details: unknown,
): UnscoredResult<K> {
  return { id, status: 'n/a', score: null, explanation: reason, reason, backend, details };
}

export function failed<K extends MetricId>(
  id: K,
  backend: string,
  reason: string,
  details: unknown,
): UnscoredResult<K> {
  return { id, status: 'error', score: null, explanation: reason, reason, backend, details };
}

/** `result` with the backend's notes appended (none: unchanged). */
export function withNotes<R extends MetricResult>(
  result: R,
  notes: readonly string[] | undefined,
): R {
  if (!notes || notes.length === 0) return result;
  return { ...result, notes: [...(result.notes ?? []), ...notes] };
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** A guard for results of metric `id` (scored or not), e.g. for `results.find(resultOf('bleu'))`. */
export function resultOf<K extends MetricId>(
  id: K,
): (result: MetricResult) => result is MetricResult<K> {
  return (result): result is MetricResult<K> => result.id === id;
}

/** The result if it is a scored one of metric `id`. */
export function scoredOf<K extends MetricId>(
  result: MetricResult | undefined,
  id: K,
): ScoredResult<K> | undefined {
  return result?.status === 'ok' && isScoredOf(result, id) ? result : undefined;
}

function isScoredOf<K extends MetricId>(result: ScoredResult, id: K): result is ScoredResult<K> {
  return result.id === id;
}

/** Whether the result has a score (and so its metric's own details type). */
export function isScored<R extends MetricResult>(result: R): result is R & { status: 'ok' } {
  return result.status === 'ok';
}
