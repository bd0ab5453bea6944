/**
 * Assertions against a row's results: ≥ and ≤ include the threshold, a raised flag fails, a
 * metric without a score skips (never passes), a metric in error fails; and the tallies a run's
 * exit status, JUnit file and step summary read.
 */
import { describe, expect, it } from 'vitest';
import type { Assertion } from '../../../src/lib/assertions/assertion.ts';
import {
  AssertionTallies,
  evaluateAssertion,
  rowOutcome,
} from '../../../src/lib/assertions/evaluate.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';

function result(
  id: string,
  score: number | null,
  status: MetricResult['status'] = 'ok',
  details: unknown = {},
) {
  return {
    id,
    status,
    score,
    explanation: status === 'ok' ? '' : `why ${id}`,
    ...(status === 'ok' ? {} : { reason: `why ${id}` }),
    backend: 'test',
    details,
  } as MetricResult;
}
const quality = (flags: string[]) =>
  result('quality-offline', 0.2, 'ok', { flags: flags.map((id) => ({ id, message: id })) });

const floor: Assertion = { kind: 'score', metric: 'support', op: '>=', threshold: 0.5 };
const ceiling: Assertion = {
  kind: 'score',
  metric: 'repetition-offline',
  op: '<=',
  threshold: 0.2,
};
const noLeadCopy: Assertion = { kind: 'no-flag', flag: 'lead-copy' };

describe('evaluateAssertion', () => {
  it('passes a floor at and above its threshold and fails below it, saying by how much', () => {
    expect(evaluateAssertion(floor, [result('support', 0.5)]).outcome).toBe('pass');
    expect(evaluateAssertion(floor, [result('support', 0.9)]).outcome).toBe('pass');
    expect(evaluateAssertion(floor, [result('support', 0.4999)])).toMatchObject({
      outcome: 'fail',
      score: 0.4999,
      reason: 'support is 0.4999, below 0.5',
    });
  });

  it('passes a ceiling at and below its threshold and fails above it', () => {
    expect(evaluateAssertion(ceiling, [result('repetition-offline', 0.2)]).outcome).toBe('pass');
    expect(evaluateAssertion(ceiling, [result('repetition-offline', 0)]).outcome).toBe('pass');
    expect(evaluateAssertion(ceiling, [result('repetition-offline', 0.3)])).toMatchObject({
      outcome: 'fail',
      reason: 'repetition-offline is 0.3, above 0.2',
    });
  });

  it('fails a row whose quality estimate raised the flag, passes one without it', () => {
    expect(evaluateAssertion(noLeadCopy, [quality(['lead-copy', 'too-short'])])).toMatchObject({
      outcome: 'fail',
      reason: 'the lead-copy flag is raised',
    });
    expect(evaluateAssertion(noLeadCopy, [quality(['too-short'])]).outcome).toBe('pass');
  });

  it('skips a flag check when the quality estimate did not score the row, fails it on its error', () => {
    expect(evaluateAssertion(noLeadCopy, [result('support', 0.9)])).toMatchObject({
      outcome: 'skip',
      reason: 'quality-offline was not scored',
    });
    expect(evaluateAssertion(noLeadCopy, [result('quality-offline', null, 'n/a')]).outcome).toBe(
      'skip',
    );
    expect(evaluateAssertion(noLeadCopy, [result('quality-offline', null, 'error')])).toMatchObject(
      { outcome: 'fail', reason: 'quality-offline failed: why quality-offline' },
    );
  });

  it('skips a metric with no score or not scored, and fails one in error', () => {
    expect(evaluateAssertion(floor, [result('support', null, 'n/a')])).toMatchObject({
      outcome: 'skip',
      reason: 'support has no score: why support',
    });
    expect(evaluateAssertion(floor, [result('bleu', 10)])).toMatchObject({
      outcome: 'skip',
      reason: 'support was not scored',
    });
    expect(evaluateAssertion(floor, [result('support', null, 'error')])).toMatchObject({
      outcome: 'fail',
      reason: 'support failed: why support',
    });
  });

  it("gives a row's verdict: any failure fails it, skips alone skip it", () => {
    const pass = { assertion: floor, outcome: 'pass' as const };
    const fail = { assertion: floor, outcome: 'fail' as const };
    const skip = { assertion: floor, outcome: 'skip' as const };
    expect(rowOutcome([pass, skip])).toBe('pass');
    expect(rowOutcome([pass, fail, skip])).toBe('fail');
    expect(rowOutcome([skip, skip])).toBe('skip');
  });
});

describe('AssertionTallies', () => {
  it('counts per assertion, keeps the failing rows with their reasons, and says when the run failed', () => {
    const tallies = new AssertionTallies([floor, noLeadCopy], 2);
    tallies.add(1, [result('support', 0.8), quality([])], 'a');
    tallies.add(2, [result('support', 0.1), quality(['lead-copy'])], 'b');
    tallies.add(3, [result('support', null, 'n/a'), quality([])]);
    tallies.add(4, [result('support', 0.2), quality([])], 'd');
    tallies.add(5, [result('support', 0.3), quality([])], 'e');
    const [support, lead] = tallies.tallies;
    expect(support).toMatchObject({ label: 'support ≥ 0.5', pass: 1, fail: 3, skip: 1 });
    expect(support!.passRate).toBeCloseTo(1 / 4);
    // Kept up to keepFailures, in the order seen.
    expect(support!.failures).toEqual([
      { row: 2, id: 'b', reason: 'support is 0.1, below 0.5' },
      { row: 4, id: 'd', reason: 'support is 0.2, below 0.5' },
    ]);
    expect(lead).toMatchObject({ pass: 4, fail: 1, skip: 0, passRate: 0.8 });
    expect(tallies.rows).toBe(5);
    expect(tallies.failedRows).toBe(3);
    expect(tallies.failed).toBe(true);
  });

  it('passes a run where nothing failed, and gives no pass rate to a check that saw no score', () => {
    const tallies = new AssertionTallies([floor]);
    tallies.add(1, [result('support', null, 'n/a')]);
    expect(tallies.tallies[0]).toMatchObject({ skip: 1, passRate: null });
    expect(tallies.failed).toBe(false);
  });
});
