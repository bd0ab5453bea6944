/**
 * The flag ids of a row's results, which `not-flag` assertions read: the quality estimate's flags
 * (a copied lead, a cut-off ending…).
 */
import { qualityFlagsIn } from '../metrics/quality-flags.ts';
import type { MetricResult } from '../metrics/types.ts';

export function flagIdsIn(results: readonly MetricResult[]): string[] {
  return [...new Set(qualityFlagsIn(results).map((f) => f.id))];
}
