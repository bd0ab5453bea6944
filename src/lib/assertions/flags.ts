/**
 * The flags `not-flag` assertions read: every finding of metrics/findings.ts — the quality
 * estimate's flags (a copied lead, a cut-off ending…) and what other metrics located (a fact not in
 * the source, an unsupported sentence, a repeated phrase…).
 */
import { FINDING_IDS, FINDING_METRICS, findingIdsIn, type FindingId } from '../metrics/findings.ts';
import { GAMING_FLAG_IDS } from '../metrics/lexical/quality-offline/quality.ts';
import { QUALITY_METRIC_ID } from '../metrics/quality-flags.ts';
import type { MetricId, MetricResult } from '../metrics/types.ts';

/**
 * The flags a `not-flag` assertion may name. A typo ("lead_copy") would otherwise pass every row,
 * which is the one thing a gate must never do quietly.
 */
export const KNOWN_FLAG_IDS: readonly string[] = [...GAMING_FLAG_IDS, ...FINDING_IDS];

/** The metric that raises a flag: without its result nobody looked, which is no pass. */
export function flagMetric(flag: string): MetricId {
  return (FINDING_IDS as readonly string[]).includes(flag)
    ? FINDING_METRICS[flag as FindingId]
    : (QUALITY_METRIC_ID as MetricId);
}

export function flagIdsIn(results: readonly MetricResult[]): string[] {
  return findingIdsIn(results);
}
