/**
 * The calibration worker's methods (workers/calibration.worker.ts), which own a finished run's
 * reading: the page names a run and the worker reads its data set's rows and its results from
 * IndexedDB itself. `openRun` posts the run view's numbers (the score table and the ratings lined
 * up with it, typed arrays) as soon as they are built, then answers with the calibration table
 * (every metric × human column pair, at both levels, by three methods: seconds of work on
 * thousands of rows). `exportRun` answers with a CSV or Markdown export's text (the JSON export
 * redacts the judge's keys, which never go to a worker: the page builds it). Rows and results
 * never cross to the page in bulk; the page opens one row on its own (src/lib/storage).
 */
import { z } from 'zod';
import { LOCALES } from '../i18n/locales.ts';
import { defineWorkerApi } from './rpc.ts';
import { typedMessageRefSchema } from './message-ref.ts';

const methodValuesSchema = z.object({
  pearson: z.number().nullable(),
  spearman: z.number().nullable(),
  kendall: z.number().nullable(),
});

const count = z.number().int().min(0);

export const calibrationSchema = z.object({
  metrics: z.array(z.string()),
  humanColumns: z.array(z.string()),
  pairs: z.array(
    z.object({
      metric: z.string(),
      human: z.string(),
      pooled: z.object({ n: count, values: methodValuesSchema }),
      summaryLevel: z
        .object({
          values: methodValuesSchema,
          n: count,
          groupsUsed: count,
          groupsSkipped: count,
          ungroupedRows: count,
        })
        .nullable(),
      missingScores: count,
    }),
  ),
});

const columnValues = z.map(z.string(), z.instanceof(Float64Array));

/** The quality estimate's flags (src/lib/metrics/quality-flags.ts): a row's, and a tally. */
const qualityFlag = z.object({
  id: z.string(),
  message: z.string(),
  messageRef: typedMessageRefSchema.optional(),
});
const flagTally = z.object({
  scored: count,
  flags: z.array(z.object({ id: z.string(), count })),
});

/** `RunView` (src/lib/datasets/run-view.ts). */
export const runViewSchema = z.object({
  table: z.object({
    columns: z.array(z.string()),
    rows: z.array(z.number().int()),
    failed: z.array(z.boolean()),
    values: columnValues,
    summary: z.array(
      z.object({
        column: z.string(),
        n: count,
        mean: z.number().nullable(),
        median: z.number().nullable(),
        notApplicable: count,
        errors: count,
      }),
    ),
    flags: z.map(z.number().int(), z.array(qualityFlag)).optional(),
    flagTally: flagTally.optional(),
  }),
  ratings: columnValues,
  ids: z.array(z.string()),
  systems: z.array(z.string()),
});

const runId = z.string().min(1);

const nullableNumber = z.number().nullable();
const sideSpec = z.object({ runId, system: z.string().optional() });

/** `CompareAnswer` (src/lib/datasets/compare-data.ts). */
export const compareAnswerSchema = z.object({
  sides: z.array(
    z.object({
      runId,
      datasetId: z.string(),
      datasetName: z.string(),
      runName: z.string(),
      createdAt: z.number(),
      systems: z.array(z.string()),
    }),
  ),
  comparison: z
    .object({
      pairing: z.enum(['source', 'row', 'id']),
      keys: z.array(z.string()),
      rowsA: z.array(z.number().int()),
      rowsB: z.array(z.number().int()),
      unpaired: z.object({ a: count, b: count }),
      duplicates: z.object({ a: count, b: count }),
      metrics: z.array(
        z.object({
          column: z.string(),
          backendA: z.string(),
          backendB: z.string(),
          comparable: z.boolean(),
          n: count,
          meanA: nullableNumber,
          meanB: nullableNumber,
          meanDiff: nullableNumber,
          low: nullableNumber,
          high: nullableNumber,
          pValue: nullableNumber,
          pMethod: z.enum(['exact', 'approx']).nullable(),
          wins: count,
          ties: count,
          losses: count,
        }),
      ),
      valuesA: columnValues,
      valuesB: columnValues,
      flags: z.object({ a: flagTally, b: flagTally }).optional(),
    })
    .nullable(),
  leaderboard: z
    .object({
      systems: z.array(z.string()),
      sharedSources: count,
      columns: z.array(
        z.object({
          column: z.string(),
          mixedBackends: z.boolean(),
          entries: z.array(
            z.object({
              system: z.string(),
              n: count,
              mean: nullableNumber,
              low: nullableNumber,
              high: nullableNumber,
              rank: z.number().int().nullable(),
              backend: z.string(),
              flags: flagTally.optional(),
            }),
          ),
        }),
      ),
      human: z
        .object({
          refs: z.array(
            z.object({
              key: z.string(),
              columns: z.array(z.string()),
              group: z.string().optional(),
            }),
          ),
          best: z.string(),
          means: z.array(z.object({ system: z.string(), values: z.array(nullableNumber) })),
          agreement: z.array(
            z.object({ column: z.string(), human: z.string(), tau: nullableNumber, n: count }),
          ),
        })
        .optional(),
    })
    .nullable(),
});

const assertionEntry = z.object({
  type: z.string(),
  threshold: z.number().optional(),
  value: z.union([z.string(), z.number()]).optional(),
  description: z.string().optional(),
});
const outcome = z.enum(['pass', 'fail', 'skip']);

/** `RunChecks` (src/lib/datasets/run-checks.ts). */
export const runChecksSchema = z.object({
  tallies: z.array(z.object({ entry: assertionEntry, pass: count, fail: count, skip: count })),
  rows: z.array(z.number().int()),
  outcomes: z.array(outcome),
  failedRows: count,
});

export const calibrationApi = defineWorkerApi('calibration', {
  openRun: {
    request: z.object({ runId }),
    /** Posted once, before the calibration is computed: the view is shown meanwhile. */
    progress: runViewSchema,
    /** Null when the data set has no human ratings. */
    result: calibrationSchema.nullable(),
  },
  /** Two runs (or two systems of a run) paired and compared, and side A's system leaderboard. */
  compareRuns: {
    request: z.object({ a: sideSpec, b: sideSpec.optional() }),
    progress: z.never(),
    result: compareAnswerSchema,
  },
  /** The data set's checks applied to a run: each row's outcome, each check's pass rate. */
  checkRun: {
    request: z.object({ runId, assertions: z.array(assertionEntry) }),
    progress: z.never(),
    result: runChecksSchema,
  },
  exportRun: {
    request: z.object({
      runId,
      format: z.enum(['csv', 'md']),
      calibration: calibrationSchema.optional(),
      /** The page's language: the Markdown report's words (default English). */
      locale: z.enum(LOCALES).optional(),
    }),
    progress: z.never(),
    result: z.object({ text: z.string(), fileName: z.string(), type: z.string() }),
  },
});
