/**
 * A run's assertions as rows stream past: the tallies (evaluate.ts) for the exit status, the
 * stderr table and the step summary, the `assertions` field of each row's JSON line, and, when
 * --junit asks for it, each row's outcome per assertion (a byte each, the reason only when it did
 * not pass), since JUnit lists every row under every assertion.
 */
import { describeAssertion, type Assertion } from '../lib/assertions/assertion.ts';
import { AssertionTallies, type AssertionTally, type Outcome } from '../lib/assertions/evaluate.ts';
import type { MetricResult } from '../lib/metrics/types.ts';
import { table } from './report.ts';

/** A row's outcome in the JUnit file; 'error' is a row that could not be read or scored. */
export type CaseOutcome = Outcome | 'error';
const CODES: readonly CaseOutcome[] = ['pass', 'fail', 'skip', 'error'];

export interface RecordedRow {
  /** The row's id, or "row N". */
  name: string;
  /** Seconds spent scoring it. */
  seconds: number;
  /** Per assertion, an index into CODES. */
  codes: Uint8Array;
  /** Per assertion, why it did not pass (absent when every one passed). */
  reasons?: Array<string | undefined>;
}

/** The `assertions` field of a row's JSON line. */
export interface RowAssertions {
  pass: number;
  fail: number;
  skip: number;
  failures: Array<{ check: string; reason: string }>;
}

/** Failing rows listed per assertion in the stderr table. */
const LISTED_FAILURES = 5;

export class AssertionRun {
  readonly tallies: AssertionTallies;
  /** Every row, in order, when JUnit is written; empty otherwise. */
  readonly recorded: RecordedRow[] = [];
  /** Rows that could not be read or scored (they fail the run on their own). */
  badRows = 0;

  constructor(
    readonly assertions: readonly Assertion[],
    private readonly record: boolean,
  ) {
    this.tallies = new AssertionTallies(assertions);
  }

  /** Checks a scored row; returns its JSON line's field. */
  addRow(row: number, id: string | undefined, results: readonly MetricResult[], seconds: number) {
    const outcomes = this.tallies.add(row, results, id);
    const field: RowAssertions = { pass: 0, fail: 0, skip: 0, failures: [] };
    for (const o of outcomes) {
      field[o.outcome]++;
      if (o.outcome === 'fail') {
        field.failures.push({ check: describeAssertion(o.assertion), reason: o.reason ?? '' });
      }
    }
    if (this.record) {
      const notPassed = outcomes.some((o) => o.outcome !== 'pass');
      this.recorded.push({
        name: rowName(row, id),
        seconds,
        codes: Uint8Array.from(outcomes, (o) => CODES.indexOf(o.outcome)),
        ...(notPassed ? { reasons: outcomes.map((o) => o.reason) } : {}),
      });
    }
    return field;
  }

  /** A row that could not be read or scored: an error under every assertion in JUnit. */
  addBadRow(row: number, reason: string): void {
    this.badRows++;
    if (!this.record) return;
    this.recorded.push({
      name: rowName(row, undefined),
      seconds: 0,
      codes: new Uint8Array(this.assertions.length).fill(CODES.indexOf('error')),
      reasons: this.assertions.map(() => reason),
    });
  }

  get failed(): boolean {
    return this.tallies.failed;
  }

  /** Assertions that checked no row at all: a gate that never looked. */
  unchecked(): AssertionTally[] {
    return this.tallies.tallies.filter((t) => t.pass + t.fail === 0);
  }

  /** The per-assertion table for stderr, with a few failing rows under each. */
  format(): string {
    const t = this.tallies;
    const rows = t.tallies.map((tally) => [
      tally.label,
      String(tally.pass),
      String(tally.fail),
      String(tally.skip),
      passRate(tally),
    ]);
    const parts = [table(['assertion', 'pass', 'fail', 'skip', 'pass rate'], rows)];
    for (const tally of t.tallies) {
      if (tally.failures.length === 0) continue;
      const listed = tally.failures
        .slice(0, LISTED_FAILURES)
        .map((f) => `  ${rowName(f.row, f.id)}: ${f.reason}`);
      const more = tally.fail - listed.length;
      parts.push(
        [
          `${tally.label}: failed on`,
          ...listed,
          ...(more > 0 ? [`  … and ${more} more`] : []),
        ].join('\n'),
      );
    }
    for (const tally of this.unchecked()) {
      parts.push(`warning: ${tally.label} checked no row (${tally.skip} skipped).`);
    }
    parts.push(verdictLine(this));
    return parts.join('\n\n');
  }
}

export function rowName(row: number, id: string | undefined): string {
  return id === undefined || id === '' ? `row ${row}` : id;
}

export function passRate(tally: Pick<AssertionTally, 'passRate'>): string {
  return tally.passRate === null ? '–' : `${(tally.passRate * 100).toFixed(1)}%`;
}

export function outcomeOf(code: number): CaseOutcome {
  return CODES[code] ?? 'error';
}

/** "Assertions: failed: 1 of 6 row(s) failed a check." */
export function verdictLine(run: Pick<AssertionRun, 'failed' | 'tallies'>): string {
  const { rows, failedRows } = run.tallies;
  return run.failed
    ? `Assertions failed: ${failedRows} of ${rows} row(s) failed a check.`
    : `Assertions passed: no row of ${rows} failed a check.`;
}
