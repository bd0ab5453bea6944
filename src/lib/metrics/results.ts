/**
 * The constructors of results without a score. Kept apart from types.ts, which holds types only so
 * that every metric can import it without a runtime edge.
 */
import type { MetricId, MetricResult, ScoredResult, UnscoredResult } from './types.ts';
import { englishRef, type MessageRef } from '../i18n/message.ts';

/** A reason given as a message is stored as English text plus its ref (worded by the page). */
function reasonFields(reason: string | MessageRef) {
  if (typeof reason === 'string') return { explanation: reason, reason };
  const text = englishRef(reason);
  return { explanation: text, explanationRef: reason, reason: text, reasonRef: reason };
}

export function notApplicable<K extends MetricId>(
  id: K,
  backend: string,
  reason: string | MessageRef,
  details: unknown,
): UnscoredResult<K> {
  return { id, status: 'n/a', score: null, ...reasonFields(reason), backend, details };
}

export function failed<K extends MetricId>(
  id: K,
  backend: string,
  reason: string | MessageRef,
  details: unknown,
): UnscoredResult<K> {
  return { id, status: 'error', score: null, ...reasonFields(reason), backend, details };
}

/** `result` with the backend's notes appended (none: unchanged). */
export function withNotes<R extends MetricResult>(
  result: R,
  notes: readonly (string | MessageRef)[] | undefined,
): R {
  if (!notes || notes.length === 0) return result;
  const texts = notes.map((n) => (typeof n === 'string' ? n : englishRef(n)));
  const hasRefs = notes.some((n) => typeof n !== 'string') || result.noteRefs !== undefined;
  const before = result.notes ?? [];
  const refsBefore = result.noteRefs ?? before.map((text) => literalRef(text));
  return {
    ...result,
    notes: [...before, ...texts],
    ...(hasRefs
      ? {
          noteRefs: [
            ...refsBefore,
            ...notes.map((n) => (typeof n === 'string' ? literalRef(n) : n)),
          ],
        }
      : {}),
  };
}

/** A note that has no message (worded elsewhere, e.g. by a library): shown as it is. */
function literalRef(text: string): MessageRef {
  return { key: 'common.literal', values: { text } };
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
