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
import { defineWorkerApi } from './rpc.ts';

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
  }),
  ratings: columnValues,
});

const runId = z.string().min(1);

export const calibrationApi = defineWorkerApi('calibration', {
  openRun: {
    request: z.object({ runId }),
    /** Posted once, before the calibration is computed: the view is shown meanwhile. */
    progress: runViewSchema,
    /** Null when the data set has no human ratings. */
    result: calibrationSchema.nullable(),
  },
  exportRun: {
    request: z.object({
      runId,
      format: z.enum(['csv', 'md']),
      calibration: calibrationSchema.optional(),
    }),
    progress: z.never(),
    result: z.object({ text: z.string(), fileName: z.string(), type: z.string() }),
  },
});
