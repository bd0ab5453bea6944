/**
 * Assertion entries as a config file writes them: each good shape becomes the check it says, and
 * each mistake is refused with the entry's place and the fix (a gate must never drop a check).
 */
import { describe, expect, it } from 'vitest';
import {
  ASSERTION_ENTRY,
  AssertionError,
  assertionFromEntry,
  assertionKey,
  describeAssertion,
  entryOf,
  type AssertionEntry,
} from '../../../src/lib/assertions/assertion.ts';
import { OFFLINE_METRIC_IDS } from '../../../src/lib/metrics/registry.ts';

const known = OFFLINE_METRIC_IDS;
const parse = (entry: AssertionEntry) => assertionFromEntry(entry, known, 'entry 1');

describe('assertionFromEntry', () => {
  it('reads a metric id as a floor, not-METRIC as a ceiling, not-flag as an absent flag', () => {
    expect(parse({ type: 'support', threshold: 0.7 })).toEqual({
      kind: 'score',
      metric: 'support',
      op: '>=',
      threshold: 0.7,
    });
    expect(parse({ type: 'not-repetition-offline', threshold: 0.2 })).toEqual({
      kind: 'score',
      metric: 'repetition-offline',
      op: '<=',
      threshold: 0.2,
    });
    expect(parse({ type: 'not-flag', value: 'lead-copy' })).toEqual({
      kind: 'no-flag',
      flag: 'lead-copy',
    });
    // promptfoo writes some thresholds as "value": read when there is no threshold.
    expect(parse({ type: 'bleu', value: 20 })).toMatchObject({ op: '>=', threshold: 20 });
  });

  it('writes an assertion back as the entry that reads as it, and names it', () => {
    for (const entry of [
      { type: 'support', threshold: 0.7 },
      { type: 'not-repetition-offline', threshold: 0.2 },
      { type: 'not-flag', value: 'lead-copy' },
    ]) {
      expect(parse(entryOf(parse(entry)))).toEqual(parse(entry));
      expect(entryOf(parse(entry))).toEqual(entry);
    }
    expect(describeAssertion(parse({ type: 'support', threshold: 0.7 }))).toBe('support ≥ 0.7');
    expect(describeAssertion(parse({ type: 'not-bleu', threshold: 30 }))).toBe('bleu ≤ 30');
    expect(describeAssertion(parse({ type: 'not-flag', value: 'lead-copy' }))).toBe(
      'no lead-copy flag',
    );
    expect(assertionKey(parse({ type: 'support', threshold: 0.7 }))).not.toBe(
      assertionKey(parse({ type: 'not-support', threshold: 0.7 })),
    );
  });

  const refusals: Array<[string, AssertionEntry, RegExp]> = [
    [
      'an unknown metric, with the list',
      { type: 'suport', threshold: 1 },
      /entry 1: unknown type "suport".*support/u,
    ],
    ['an unknown ceiling', { type: 'not-suport', threshold: 1 }, /unknown type "not-suport"/u],
    ['a metric without a threshold', { type: 'support' }, /needs "threshold: NUMBER"/u],
    [
      '"flag", which would pass only on flagged rows',
      { type: 'flag', value: 'lead-copy' },
      /write "type: not-flag"/u,
    ],
    ['not-flag without a flag', { type: 'not-flag' }, /needs "value: FLAG"/u],
    [
      'an unknown flag (a typo would pass every row)',
      { type: 'not-flag', value: 'lead_copy' },
      /unknown flag "lead_copy"\. Use one of .*lead-copy/u,
    ],
    [
      'not-flag with a threshold',
      { type: 'not-flag', value: 'lead-copy', threshold: 1 },
      /takes no threshold/u,
    ],
    [
      'a flag given to a metric',
      { type: 'support', value: 'lead-copy' },
      /belongs to "type: not-flag"/u,
    ],
    [
      'threshold and value both',
      { type: 'support', threshold: 0.5, value: 0.6 },
      /give "threshold" alone/u,
    ],
  ];
  for (const [what, entry, message] of refusals) {
    it(`refuses ${what}`, () => {
      expect(() => parse(entry)).toThrow(AssertionError);
      expect(() => parse(entry)).toThrow(message);
    });
  }

  it('refuses unknown keys and non-numeric thresholds in an entry', () => {
    expect(ASSERTION_ENTRY.safeParse({ type: 'support', thresold: 0.5 }).success).toBe(false);
    expect(ASSERTION_ENTRY.safeParse({ type: 'support', threshold: '0.5' }).success).toBe(false);
    expect(
      ASSERTION_ENTRY.safeParse({ type: 'support', threshold: 0.5, description: 'x' }).success,
    ).toBe(true);
  });
});
