/**
 * Assertions: pass/fail thresholds on a row's results, the same for the page (per data set, or the
 * single-case preset) and the CLI (sumlens.config.yaml). The vocabulary follows promptfoo's
 * `assert:` entries where it fits — a `type` names the check and `threshold` is the lowest passing
 * score, and a `not-` prefix inverts it — and differs where ours must say more:
 *
 * - `type` is a SumLens metric id (promptfoo's types are its own checks: rouge-n, similar, …);
 * - `not-METRIC` passes when the score is at most the threshold (promptfoo's `not-` passes below
 *   it): a ceiling a person reads as "≤ 0.2" includes 0.2;
 * - `not-flag` with `value: FLAG` passes when no metric raised that flag (a copied lead, a cut-off
 *   ending, an unsupported sentence…); promptfoo has no flags;
 * - a metric without a score (not applicable to the row, not run) is "skipped", never passed: a
 *   gate that counts a missing score as a pass lets a broken run through; a metric in error fails.
 *
 * Every score is "higher is better" (metrics/types.ts), so `>=` is the usual check.
 */
import { z } from 'zod';
import { KNOWN_FLAG_IDS } from './flags.ts';

/** A check of one metric's score against a threshold. */
export interface ScoreAssertion {
  kind: 'score';
  metric: string;
  op: '>=' | '<=';
  threshold: number;
}

/** A check that a flag (a quality flag or another metric's finding) is absent. */
export interface FlagAssertion {
  kind: 'no-flag';
  flag: string;
}

export type Assertion = ScoreAssertion | FlagAssertion;

/** One entry as written in sumlens.config.yaml (promptfoo's shape). */
export const ASSERTION_ENTRY = z
  .object({
    type: z.string().min(1),
    threshold: z.number().finite().optional(),
    value: z.union([z.string(), z.number()]).optional(),
    /** promptfoo's free-text label; shown beside the check. */
    description: z.string().optional(),
  })
  .strict();
export type AssertionEntry = z.infer<typeof ASSERTION_ENTRY>;

export class AssertionError extends Error {}

/**
 * The assertion an entry says. `knownMetrics` are the ids this version scores: an unknown id is
 * refused with the list, as a typo would otherwise skip every row silently.
 */
export function assertionFromEntry(
  entry: AssertionEntry,
  knownMetrics: readonly string[],
  where = 'assertion',
  knownFlags: readonly string[] = KNOWN_FLAG_IDS,
): Assertion {
  if (entry.type === 'not-flag' || entry.type === 'flag') {
    if (entry.type === 'flag') {
      throw new AssertionError(
        `${where}: "type: flag" would pass only when a flag is raised; write "type: not-flag" with "value: FLAG" to fail a row that has it.`,
      );
    }
    if (typeof entry.value !== 'string' || entry.value === '') {
      throw new AssertionError(`${where}: "type: not-flag" needs "value: FLAG" (e.g. lead-copy).`);
    }
    if (!knownFlags.includes(entry.value)) {
      throw new AssertionError(
        `${where}: unknown flag "${entry.value}". Use one of ${knownFlags.join(', ')}.`,
      );
    }
    if (entry.threshold !== undefined) {
      throw new AssertionError(
        `${where}: "type: not-flag" takes no threshold (a flag is raised or not); remove "threshold".`,
      );
    }
    return { kind: 'no-flag', flag: entry.value };
  }
  if (typeof entry.value === 'string') {
    throw new AssertionError(
      `${where}: "value: ${entry.value}" belongs to "type: not-flag"; a metric takes "threshold: NUMBER".`,
    );
  }
  const negated = entry.type.startsWith('not-') && !knownMetrics.includes(entry.type);
  const metric = negated ? entry.type.slice(4) : entry.type;
  if (!knownMetrics.includes(metric)) {
    throw new AssertionError(
      `${where}: unknown type "${entry.type}". Use a metric id (${knownMetrics.join(', ')}), not-METRIC for a ceiling, or not-flag.`,
    );
  }
  if (entry.threshold !== undefined && entry.value !== undefined) {
    throw new AssertionError(
      `${where}: give "threshold" alone (promptfoo's "value" is read only when there is no threshold).`,
    );
  }
  const threshold = entry.threshold ?? (typeof entry.value === 'number' ? entry.value : undefined);
  if (threshold === undefined) {
    throw new AssertionError(`${where}: "type: ${entry.type}" needs "threshold: NUMBER".`);
  }
  return { kind: 'score', metric, op: negated ? '<=' : '>=', threshold };
}

/** The entry that writes an assertion back (config files, exports). */
export function entryOf(assertion: Assertion): AssertionEntry {
  return assertion.kind === 'no-flag'
    ? { type: 'not-flag', value: assertion.flag }
    : {
        type: assertion.op === '<=' ? `not-${assertion.metric}` : assertion.metric,
        threshold: assertion.threshold,
      };
}

/** A stable key: one assertion per key in a set (the page's editor replaces by key). */
export function assertionKey(assertion: Assertion): string {
  return assertion.kind === 'no-flag'
    ? `no-flag:${assertion.flag}`
    : `${assertion.metric}${assertion.op}${assertion.threshold}`;
}

/** "support ≥ 0.7", "not flag lead-copy": how CLI output, JUnit and Markdown name a check. */
export function describeAssertion(assertion: Assertion): string {
  return assertion.kind === 'no-flag'
    ? `no ${assertion.flag} flag`
    : `${assertion.metric} ${assertion.op === '>=' ? '≥' : '≤'} ${assertion.threshold}`;
}
