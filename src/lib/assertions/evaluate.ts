/**
 * Assertions applied to a row's results, and counted over a run. Pure: the page (per card, per
 * row, per run), the CLI (exit status, JUnit, the step summary) and tests read the same outcomes.
 */
import type { MetricResult } from '../metrics/types.ts';
import { describeAssertion, type Assertion } from './assertion.ts';
import { flagIdsIn, flagMetric } from './flags.ts';

export type Outcome = 'pass' | 'fail' | 'skip';

export interface AssertionOutcome {
  assertion: Assertion;
  outcome: Outcome;
  /** The score checked (score assertions with a score). */
  score?: number;
  /** Why it failed or was skipped, in English (the CLI's and JUnit's words). */
  reason?: string;
}

export function evaluateAssertion(
  assertion: Assertion,
  results: readonly MetricResult[],
): AssertionOutcome {
  // A flag is raised by one metric: without its result nobody looked, which is no pass.
  const metric = assertion.kind === 'no-flag' ? flagMetric(assertion.flag) : assertion.metric;
  const result = results.find((r) => r.id === metric);
  if (assertion.kind === 'no-flag' && result?.status === 'ok') {
    const raised = flagIdsIn(results).includes(assertion.flag);
    return raised
      ? { assertion, outcome: 'fail', reason: `the ${assertion.flag} flag is raised` }
      : { assertion, outcome: 'pass' };
  }
  if (!result) return { assertion, outcome: 'skip', reason: `${metric} was not scored` };
  if (result.status === 'error') {
    return {
      assertion,
      outcome: 'fail',
      reason: `${metric} failed: ${result.reason ?? result.explanation}`,
    };
  }
  if (assertion.kind === 'no-flag' || result.status !== 'ok' || result.score === null) {
    return {
      assertion,
      outcome: 'skip',
      reason: `${metric} has no score: ${result.reason ?? result.explanation}`,
    };
  }
  const score = result.score;
  const passed =
    assertion.op === '>=' ? score >= assertion.threshold : score <= assertion.threshold;
  return passed
    ? { assertion, outcome: 'pass', score }
    : {
        assertion,
        outcome: 'fail',
        score,
        reason: `${assertion.metric} is ${round(score)}, ${assertion.op === '>=' ? 'below' : 'above'} ${assertion.threshold}`,
      };
}

export function evaluateAssertions(
  assertions: readonly Assertion[],
  results: readonly MetricResult[],
): AssertionOutcome[] {
  return assertions.map((a) => evaluateAssertion(a, results));
}

/** A row's verdict: fail when any check fails; pass when at least one passed and none failed. */
export function rowOutcome(outcomes: readonly AssertionOutcome[]): Outcome {
  if (outcomes.some((o) => o.outcome === 'fail')) return 'fail';
  return outcomes.some((o) => o.outcome === 'pass') ? 'pass' : 'skip';
}

/** Per assertion over a run: how many rows passed, failed and were skipped. */
export interface AssertionTally {
  assertion: Assertion;
  label: string;
  pass: number;
  fail: number;
  skip: number;
  /** pass / (pass + fail); null when no row was checked. */
  passRate: number | null;
  /** Up to `keepFailures` failing rows, in the order seen, with their reason. */
  failures: Array<{ row: number; id?: string; reason: string }>;
}

export class AssertionTallies {
  readonly tallies: AssertionTally[];
  rows = 0;
  failedRows = 0;

  constructor(
    assertions: readonly Assertion[],
    private readonly keepFailures = 50,
  ) {
    this.tallies = assertions.map((assertion) => ({
      assertion,
      label: describeAssertion(assertion),
      pass: 0,
      fail: 0,
      skip: 0,
      passRate: null,
      failures: [],
    }));
  }

  add(row: number, results: readonly MetricResult[], id?: string): AssertionOutcome[] {
    const outcomes = evaluateAssertions(
      this.tallies.map((t) => t.assertion),
      results,
    );
    this.rows++;
    if (rowOutcome(outcomes) === 'fail') this.failedRows++;
    outcomes.forEach((o, i) => {
      const tally = this.tallies[i]!;
      tally[o.outcome]++;
      const checked = tally.pass + tally.fail;
      tally.passRate = checked === 0 ? null : tally.pass / checked;
      if (o.outcome === 'fail' && tally.failures.length < this.keepFailures) {
        tally.failures.push({ row, ...(id === undefined ? {} : { id }), reason: o.reason ?? '' });
      }
    });
    return outcomes;
  }

  get failed(): boolean {
    return this.tallies.some((t) => t.fail > 0);
  }
}

function round(x: number): string {
  return Number(x.toFixed(4)).toString();
}
