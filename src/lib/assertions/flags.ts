/**
 * The flag ids of a row's results, which `not-flag` assertions read: every finding of
 * verdict/findings.ts — the quality estimate's flags (a copied lead, a cut-off ending…) and what
 * other metrics located (a fact not in the source, an unsupported sentence, a repeated phrase…).
 */
import { findingIdsIn } from '../metrics/findings.ts';
import type { MetricResult } from '../metrics/types.ts';

export function flagIdsIn(results: readonly MetricResult[]): string[] {
  return findingIdsIn(results);
}
