/**
 * The calibration worker's one method (workers/calibration.worker.ts): the page names a run, the
 * worker reads its data set's rows and its results from IndexedDB itself and answers with the
 * calibration table only (every metric × human column pair, at both levels, by three methods).
 * That is seconds of work on thousands of rows, and the rows never cross to the page for it.
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

export const calibrationApi = defineWorkerApi('calibration', {
  calibrate: {
    request: z.object({ runId: z.string().min(1) }),
    progress: z.never(),
    result: calibrationSchema,
  },
});
