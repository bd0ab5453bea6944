/**
 * Messages between the page and the data-set parse worker (workers/dataset-parse.worker.ts). The
 * worker validates what it receives with zod (a message from a stale tab or a newer build must fail
 * loudly); replies are plain objects (structured-clone friendly, no class instances).
 *
 * One job per `id`: the page sends `parse` with the File (or Blob); the worker answers with
 * `progress` (bytes read of total), one `detected` (what the file is and the proposed mapping),
 * `rows` in batches (500 by default), `problems` (bad rows, each naming its row), then `done`
 * with the summary, or `error` (unreadable file, or no usable mapping: then `detected` says what
 * was found so the page can ask the user to map columns and send `parse` again with `mapping`).
 * `cancel` stops a job; it ends with `done` and `cancelled: true`.
 *
 * `detect` reads only the first records (detect.ts's `DETECT_SAMPLE`, or the whole file when it is
 * smaller) and answers with one `sample`: the detection, even when its mapping cannot work, and a
 * preview with a profile of each column (mapping.ts), so that the page can show the mapping and
 * let the user change it before `parse` reads everything; or `error` when the file is unreadable.
 */
import { z } from 'zod';
import {
  columnMappingSchema,
  DATASET_KINDS,
  FILE_FORMATS,
  type DatasetDescription,
  type DatasetRow,
  type RowProblem,
} from '../rows/formats.ts';
import type { DatasetSample } from './mapping.ts';
import type { ParseSummary } from './parse.ts';

/** Rows per `rows` message. */
export const DEFAULT_ROW_BATCH = 500;
/** Bytes between two `progress` messages. */
export const PROGRESS_EVERY_BYTES = 1024 * 1024;

export const parseRequestSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('parse'),
    id: z.string().min(1),
    file: z.instanceof(Blob),
    /** The file's name when `file` is a Blob (a File has its own). */
    fileName: z.string().optional(),
    format: z.enum(FILE_FORMATS).optional(),
    kind: z.enum(DATASET_KINDS).optional(),
    mapping: columnMappingSchema.optional(),
    batchSize: z.number().int().min(1).max(100_000).optional(),
    maxRowChars: z.number().int().min(1).optional(),
  }),
  z.object({
    type: z.literal('detect'),
    id: z.string().min(1),
    file: z.instanceof(Blob),
    fileName: z.string().optional(),
    format: z.enum(FILE_FORMATS).optional(),
    maxRowChars: z.number().int().min(1).optional(),
  }),
  z.object({ type: z.literal('cancel'), id: z.string().min(1) }),
]);

export type ParseRequest = z.input<typeof parseRequestSchema>;

export interface ParseProgressReply {
  type: 'progress';
  id: string;
  bytes: number;
  total: number;
}

export interface ParseDetectedReply {
  type: 'detected';
  id: string;
  detected: DatasetDescription;
}

/** The answer to `detect`: what the first records are, and how they look. */
export interface ParseSampleReply {
  type: 'sample';
  id: string;
  detected: DatasetDescription;
  sample: DatasetSample;
}

export interface ParseRowsReply {
  type: 'rows';
  id: string;
  rows: DatasetRow[];
}

export interface ParseProblemsReply {
  type: 'problems';
  id: string;
  problems: RowProblem[];
}

export interface ParseDoneReply {
  type: 'done';
  id: string;
  cancelled: boolean;
  /** Absent when cancelled. */
  summary?: ParseSummary;
}

export interface ParseErrorReply {
  type: 'error';
  id: string;
  message: string;
  /** What the first rows looked like, when the file was readable but could not be mapped. */
  detected?: DatasetDescription;
}

export type ParseReply =
  | ParseProgressReply
  | ParseDetectedReply
  | ParseSampleReply
  | ParseRowsReply
  | ParseProblemsReply
  | ParseDoneReply
  | ParseErrorReply;
