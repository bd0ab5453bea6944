/**
 * Test helpers: a result that must have a score, with its metric's details type (results without
 * a score have untyped details). They throw with the reason when the result has none.
 */
import { isScored, scoredOf } from '../../../src/lib/metrics/results.ts';
import type { MetricId, MetricResult, ScoredResult } from '../../../src/lib/metrics/types.ts';

export function scored<R extends MetricResult>(result: R): R & { status: 'ok' } {
  if (!isScored(result))
    throw new Error(`expected a score, got ${result.status}: ${result.reason}`);
  return result;
}

export function scoredAs<K extends MetricId>(
  result: MetricResult | undefined,
  id: K,
): ScoredResult<K> {
  const found = scoredOf(result, id);
  if (!found) throw new Error(`expected a scored ${id}, got ${result?.status}: ${result?.reason}`);
  return found;
}

/**
 * A result with placeholder details, for tests of code that never reads details (storage, batch
 * runs, calibration). The cast is the point: the details are not the metric's real ones.
 */
export function fakeResult(fields: {
  id: MetricId;
  status: MetricResult['status'];
  score: number | null;
  explanation?: string;
  backend?: string;
  details?: unknown;
}): MetricResult {
  const { explanation = '', backend = 'b', details = {}, ...rest } = fields;
  return { explanation, backend, details, ...rest } as MetricResult;
}
