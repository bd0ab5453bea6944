/**
 * The error result that stands in for a metric that could not be computed, and the filling-in of
 * the metrics a job never reported: a case or a data-set row is then stored with the reason
 * instead of failing as a whole, or leaving a card spinning.
 */
import { english, type MessageRef } from '../i18n/message.ts';
import type { MetricId, MetricResult } from '../metrics/types.ts';

/** A metric that could not be computed: an error card with the reason, never a lost case. */
export function errorResult(
  id: MetricId,
  message: string,
  backend: string,
  reasonRef?: MessageRef,
): MetricResult {
  return {
    id,
    status: 'error',
    score: null,
    reason: message,
    explanation: message,
    ...(reasonRef ? { reasonRef, explanationRef: reasonRef } : {}),
    backend,
    details: {},
  };
}

/**
 * Error results for the metrics of `ids` that `results` has none for yet, added to it. A reason
 * given as a message keeps its English as text and is worded in the reader's language on the card.
 */
export function failMissing(
  ids: readonly MetricId[],
  results: MetricResult[],
  reason: string | MessageRef,
  backend: string,
): MetricResult[] {
  const failures: MetricResult[] = [];
  for (const id of ids) {
    if (results.some((r) => r.id === id)) continue;
    const failure =
      typeof reason === 'string'
        ? errorResult(id, reason, backend)
        : errorResult(id, english(reason.key, reason.values), backend, reason);
    results.push(failure);
    failures.push(failure);
  }
  return failures;
}
