/**
 * The data-set parse worker's methods (workers/dataset-parse.worker.ts).
 *
 * `detect` reads only the first records of a dropped file (`DETECT_SAMPLE` of
 * datasets/detect/dataset.ts, or the whole file when it is smaller) and answers with the
 * detection, even when its mapping cannot work, and a preview with a profile of each column
 * (datasets/mapping/sample.ts), so that the page can show the mapping and let the user change it
 * before anything is stored.
 *
 * `import` reads the whole file with the chosen mapping and writes its rows to IndexedDB itself
 * (src/lib/storage/datasets.ts, the data set's record last, so a data set is listed only once
 * every row is in); it streams bytes read, rows stored and bad rows (each naming its row), and
 * answers with the summary and the new data set's id. No row crosses to the page. Cancelling it
 * (or a failure) removes the rows already written.
 */
import { z } from 'zod';
import { columnMappingSchema, DATASET_KINDS, FILE_FORMATS } from '../rows/formats.ts';
import { typedMessageRefSchema } from './message-ref.ts';
import { defineWorkerApi } from './rpc.ts';

/** Bytes between two progress items. */
export const PROGRESS_EVERY_BYTES = 1024 * 1024;

const count = z.number().int().min(0);
const encodingSchema = z.enum(['UTF-8', 'UTF-16LE', 'UTF-16BE', 'Windows-1252']);

export const rowProblemSchema = z.object({
  row: z.number().int(),
  reason: z.string(),
  // Without the refs the page could word neither a problem nor a description in its language.
  reasonRef: typedMessageRefSchema.optional(),
  column: z.string().optional(),
  kept: z.boolean().optional(),
  duplicateOf: z.number().int().optional(),
});

export const datasetDescriptionSchema = z.object({
  format: z.enum(FILE_FORMATS),
  kind: z.enum(DATASET_KINDS),
  confidence: z.number(),
  description: z.string(),
  descriptionRef: typedMessageRefSchema.optional(),
  columns: z.array(z.string()),
  mapping: columnMappingSchema,
  task: z.string().optional(),
  mappingProblems: z.array(z.string()),
  encoding: encodingSchema.optional(),
});

const kindRecord = <T extends z.ZodType>(value: T) =>
  z.object({ case: value, summeval: value, prediction: value, sft: value });

export const datasetSampleSchema = z.object({
  preview: z.array(z.object({ row: z.number().int(), record: z.record(z.string(), z.json()) })),
  records: count,
  fileRecords: count.optional(),
  profiles: z.record(z.string(), z.object({ filled: count, numeric: count, structured: count })),
  proposals: kindRecord(columnMappingSchema),
  problems: z.array(rowProblemSchema),
});

const fileRequest = {
  file: z.instanceof(Blob),
  /** The file's name when `file` is a Blob (a File has its own). */
  fileName: z.string().optional(),
  format: z.enum(FILE_FORMATS).optional(),
  maxRowChars: z.number().int().min(1).optional(),
};

const bytesSchema = z.object({ type: z.literal('bytes'), bytes: count, total: count });

export const parseApi = defineWorkerApi('file reader', {
  detect: {
    request: z.object(fileRequest),
    progress: bytesSchema,
    result: z.object({ detected: datasetDescriptionSchema, sample: datasetSampleSchema }),
  },
  import: {
    request: z.object({
      ...fileRequest,
      kind: z.enum(DATASET_KINDS).optional(),
      mapping: columnMappingSchema.optional(),
      /** Stored with the data set: the TinyEval/LongBench task of prediction rows. */
      task: z.string().optional(),
      /** The data set's name (the one it replaces, when the mapping changed); default the file's
       * name, made unique among the data sets stored ("dev (2)"). */
      name: z.string().min(1).optional(),
      /** Rows per write transaction (tests pass small ones). */
      batchSize: z.number().int().min(1).max(100_000).optional(),
    }),
    progress: z.discriminatedUnion('type', [
      bytesSchema,
      z.object({ type: z.literal('detected'), detected: datasetDescriptionSchema }),
      z.object({ type: z.literal('stored'), rows: count }),
      z.object({ type: z.literal('problems'), problems: z.array(rowProblemSchema) }),
    ]),
    result: z.object({
      datasetId: z.string().min(1),
      /** The final description (row count known). */
      detected: datasetDescriptionSchema,
      rows: count,
      problems: count,
      bytes: count,
      encoding: encodingSchema.optional(),
      warnings: z.array(z.string()),
    }),
  },
});
