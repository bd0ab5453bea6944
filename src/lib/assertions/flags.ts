/**
 * The flag ids of a row's results, which `not-flag` assertions read: the quality estimate's flags
 * (a copied lead, a cut-off ending…).
 */
import { qualityFlagsIn } from '../metrics/quality-flags.ts';
import type { GamingFlagId } from '../metrics/lexical/quality.ts';
import type { MetricResult } from '../metrics/types.ts';

/**
 * The flags a `not-flag` assertion may name. A typo ("lead_copy") would otherwise pass every row,
 * which is the one thing a gate must never do quietly.
 */
export const KNOWN_FLAG_IDS = [
  'too-short',
  'lead-copy',
  'cut-mid-sentence',
  'repeated-sentence',
  'reversed-order',
  'no-final-punctuation',
] as const satisfies readonly GamingFlagId[];

// Fails to compile when quality.ts gains a flag this list lacks.
type Unlisted = Exclude<GamingFlagId, (typeof KNOWN_FLAG_IDS)[number]>;
const everyFlagListed: [Unlisted] extends [never] ? true : never = true;
void everyFlagListed;

export function flagIdsIn(results: readonly MetricResult[]): string[] {
  return [...new Set(qualityFlagsIn(results).map((f) => f.id))];
}
