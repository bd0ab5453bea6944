/**
 * A finished run's checks, read where its results are (the calibration worker): each row's
 * outcome and each assertion's pass rate. Only these numbers reach the page; the results stay in
 * IndexedDB, as for the run view.
 */
import { iterateRunResults } from '../storage/runs.ts';
import { RUN_READ_BATCH } from './run-data.ts';
import { METRIC_IDS } from '../metrics/registry.ts';
import { AssertionTallies, rowOutcome, type Outcome } from '../assertions/evaluate.ts';
import { assertionsFromEntries } from '../assertions/stored.ts';
import { entryOf, type AssertionEntry } from '../assertions/assertion.ts';

export interface RunCheckTally {
  entry: AssertionEntry;
  pass: number;
  fail: number;
  skip: number;
}

export interface RunChecks {
  tallies: RunCheckTally[];
  /** Row numbers and their outcome, index for index (rows that failed to score are 'skip'). */
  rows: number[];
  outcomes: Outcome[];
  failedRows: number;
}

export async function checkRun(
  runId: string,
  entries: readonly AssertionEntry[],
  signal?: AbortSignal,
): Promise<RunChecks> {
  const assertions = assertionsFromEntries(entries, METRIC_IDS);
  const tallies = new AssertionTallies(assertions, 0);
  const rows: number[] = [];
  const outcomes: Outcome[] = [];
  for await (const stored of iterateRunResults(runId, RUN_READ_BATCH)) {
    signal?.throwIfAborted();
    rows.push(stored.row);
    outcomes.push(
      stored.status === 'done' ? rowOutcome(tallies.add(stored.row, stored.results)) : 'skip',
    );
  }
  return {
    tallies: tallies.tallies.map((t) => ({
      entry: entryOf(t.assertion),
      pass: t.pass,
      fail: t.fail,
      skip: t.skip,
    })),
    rows,
    outcomes,
    failedRows: tallies.failedRows,
  };
}
