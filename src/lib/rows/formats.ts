/**
 * The normalised data-set row model (SPEC §5–6) and the zod schemas of what a file may hold.
 *
 * Four kinds of file come in, in JSONL, JSON (array or a stream of objects) or CSV:
 *
 * - `case`: `{source, summary, reference?, instructions?, <human rating columns>}`, the shape of a
 *   pasted case, with any numeric columns as people's ratings.
 * - `summeval`: SummEval records `{id, model_id, text, decoded, references[], expert_annotations[],
 *   turker_annotations[]}`; each annotation list becomes mean ratings per dimension
 *   (`expert_coherence`, …, `turker_relevance`).
 * - `prediction`: TinyEval/LongBench prediction rows `{pred, answers[], all_classes?, length?}`,
 *   scored by a task type (see tinyeval.ts); their data files (`{context, input, answers, …}`,
 *   no `pred`) load as rows that need a prediction generated first (datasets/generate/).
 * - `sft`: SFT rows `{instruction, input, output}` plus a prediction column; scored like
 *   predictions with `output` as the one answer.
 *
 * Every row, whatever its file, becomes one `DatasetRow`: plain data (structured-clone and
 * JSON friendly), so that workers post it, IndexedDB stores it and the CLI prints it unchanged.
 * A `ColumnMapping` says which column of the file feeds which field; datasets/detect/ proposes
 * one and the user may override it before the rows are built.
 */
import { z } from 'zod';
import type { CaseInput } from '../metrics/types.ts';
import type { TextEncoding } from '../input/encoding.ts';
import type { MessageRef } from '../i18n/message.ts';

/** What a data set's rows are (see the module comment). */
export const DATASET_KINDS = ['case', 'summeval', 'prediction', 'sft'] as const;
export type DatasetKind = (typeof DATASET_KINDS)[number];

/** The file's syntax. `json` is a top-level array or a stream of concatenated JSON values. */
export const FILE_FORMATS = ['jsonl', 'json', 'csv'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

/** A row longer than this (characters of its line or record) is rejected; the file goes on. */
export const MAX_ROW_CHARS = 2_000_000;

/**
 * How a prediction was generated in the page (datasets/generate/), kept with the row: the
 * provider and model that wrote it, and whether the prompt had to be cut. While the row still
 * needs a prediction, it holds the last attempt's failure instead (`error`).
 */
export interface GenerationRecord {
  provider: string;
  model: string;
  /** When the prediction (or the failure) arrived, ms since the epoch. */
  at: number;
  /** The prompt was longer than the model's prompt length and its middle was cut. */
  promptCut: boolean;
  /** The prompt's estimated tokens as sent (after any cut). */
  promptTokens: number;
  maxNewTokens: number;
  /** `hashText` of the template, to tell rows generated with different templates apart. */
  templateHash: string;
  /** 'length' when the answer stopped at `maxNewTokens`. */
  finishReason?: string;
  /** Tokens the provider reported (0 and `fromCache` when the answer came from the cache). */
  usage?: { input: number; output: number };
  fromCache?: boolean;
  /** Why the last attempt failed; the row then still has no prediction. */
  error?: string;
}

/** What a prediction row holds (TinyEval/LongBench `{pred, answers, all_classes?, length?}`). */
export interface PredictionInput {
  /** The model's output; '' while `needsPrediction`. */
  prediction: string;
  /**
   * The file had no prediction for this row (a TinyEval/LongBench data file, SFT rows without a
   * prediction column): it must be generated (datasets/generate/) before the row can be scored.
   */
  needsPrediction?: true;
  /** Present when the prediction was generated in the page, or its generation failed. */
  generation?: GenerationRecord;
  /** The accepted answers; a row's score is the max over them. */
  answers: string[];
  /** The label set for classification tasks (trec). */
  allClasses?: string[];
  /** LongBench's `length` (words of the context), kept for length-bucketed reports. */
  length?: number;
  /**
   * Text fields a prompt template may name (`{context}`, `{input}`, `{instruction}`), for the
   * generate step; only the ones the file has.
   */
  fields?: Record<string, string>;
}

interface DatasetRowBase {
  /** 1-based line number (JSONL), record number (JSON) or data-row number (CSV, header excluded). */
  row: number;
  /** The record's own id when it has one (SummEval `id` + `model_id`, or a mapped id column). */
  id?: string;
  /**
   * People's ratings by name: a mapped numeric column keeps its name (`overall`); an annotation
   * list becomes the mean per dimension, prefixed (`expert_coherence` = mean of the experts).
   * Empty when the file has none.
   */
  human: Record<string, number>;
  /**
   * The source document this row summarises, for summary-level calibration (correlate within
   * each group, then average): SummEval `id`, a mapped group column, or a hash of the source text
   * (`src:` + 8 hex digits).
   */
  group?: string;
  /** The system that wrote the summary or prediction (SummEval `model_id`), for system-level views. */
  system?: string;
  /** Every reference when the file has several (SummEval `references`); `input.reference` is the first. */
  references?: string[];
  /** Small unmapped scalar fields of the record (strings cut to 200 chars), to show beside a row. */
  raw?: Record<string, string | number | boolean | null>;
}

/** A summary of a source: scored by the case metrics (offline and judge). */
export interface CaseRow extends DatasetRowBase {
  kind: 'case' | 'summeval';
  input: CaseInput;
}

/** A model prediction with answers: scored by a TinyEval task (tinyeval.ts). */
export interface PredictionRow extends DatasetRowBase {
  kind: 'prediction' | 'sft';
  input: PredictionInput;
}

export type DatasetRow = CaseRow | PredictionRow;

export function isCaseRow(row: DatasetRow): row is CaseRow {
  return row.kind === 'case' || row.kind === 'summeval';
}

export function isPredictionRow(row: DatasetRow): row is PredictionRow {
  return row.kind === 'prediction' || row.kind === 'sft';
}

/** A prediction row still waiting for its prediction (it cannot be scored yet). */
export function needsPrediction(row: DatasetRow): row is PredictionRow {
  return isPredictionRow(row) && row.input.needsPrediction === true;
}

/** Why such a row is not scored, for the run's row error and the CLI. */
export function missingPredictionMessage(row: number): string {
  return `Row ${row} has no prediction yet: generate predictions first ("Generate predictions" in the data-set list).`;
}

/** A row that could not be loaded, with a reason that names the row ("row 7: not valid JSON (…)"). */
export interface RowProblem {
  row: number;
  reason: string;
  /** `reason` as a message, for the page to word in the reader's language. */
  reasonRef?: MessageRef;
  /** The column at fault, when there is one. */
  column?: string;
  /** The row loaded without this cell (a rating that is not a number); else the row is left out. */
  kept?: boolean;
  /** The row loaded, but its id is also this earlier row's (both rows are kept). */
  duplicateOf?: number;
}

/**
 * A column of people's ratings. A number (or numeric string) becomes `human[name]`; a list of
 * objects of numbers (SummEval annotations) becomes `human[name + '_' + key]`, the mean per key.
 */
export const humanColumnSchema = z.object({
  column: z.string().min(1),
  name: z.string().min(1),
});
export type HumanColumn = z.infer<typeof humanColumnSchema>;

/**
 * Which column of the file feeds which field of `DatasetRow`. Only the fields of `kind` are read:
 *
 * - case/summeval: `source`, `summary` (required), `reference` (a string, or a list whose first
 *   item is the reference and all of which go to `references`), `instructions` (a JSON array of
 *   sections or `Name: instruction` lines);
 * - prediction: `prediction`, `answers` (required; a list, a JSON-array string or one string),
 *   `allClasses`, `length`, `fields` (template fields: `{context: 'context'}`);
 * - sft: `instruction`, `input`, `output` (the answer) and `prediction`.
 *
 * `prediction` may be left out when the rows have template fields (prediction: `fields`; sft:
 * `instruction`/`input`): the rows then load as needing a prediction, to be generated.
 *
 * `id`, `group`, `system` and `human` apply to all kinds.
 */
export const columnMappingSchema = z.object({
  kind: z.enum(DATASET_KINDS),
  id: z.string().optional(),
  group: z.string().optional(),
  system: z.string().optional(),
  source: z.string().optional(),
  summary: z.string().optional(),
  reference: z.string().optional(),
  instructions: z.string().optional(),
  prediction: z.string().optional(),
  answers: z.string().optional(),
  allClasses: z.string().optional(),
  length: z.string().optional(),
  instruction: z.string().optional(),
  input: z.string().optional(),
  output: z.string().optional(),
  fields: z.record(z.string(), z.string()).optional(),
  human: z.array(humanColumnSchema).default([]),
});
export type ColumnMapping = z.input<typeof columnMappingSchema>;

/** Text-bearing mapping keys, for UIs that list a dropdown per field. */
export const MAPPING_TEXT_FIELDS = [
  'id',
  'group',
  'system',
  'source',
  'summary',
  'reference',
  'instructions',
  'prediction',
  'answers',
  'allClasses',
  'length',
  'instruction',
  'input',
  'output',
] as const;
export type MappingTextField = (typeof MAPPING_TEXT_FIELDS)[number];

/** The fields a kind cannot do without. */
export const REQUIRED_FIELDS: Record<DatasetKind, MappingTextField[]> = {
  case: ['source', 'summary'],
  summeval: ['source', 'summary'],
  prediction: ['prediction', 'answers'],
  sft: ['output', 'prediction'],
};

/** Where a parsed record came from and what it is, shown before the rows load. */
export interface DatasetDescription {
  format: FileFormat;
  kind: DatasetKind;
  /** 0–1: how sure detection (datasets/detect/) is of `kind`. */
  confidence: number;
  /** "SummEval records: 600 rows, 4 expert dimensions" */
  description: string;
  /** `description` as a message, for the page to word in the reader's language. */
  descriptionRef?: MessageRef;
  /** Every column (key) seen in the sampled records, in first-seen order. */
  columns: string[];
  mapping: ColumnMapping;
  /** For prediction rows: the TinyEval/LongBench task guessed from the file name (`trec.jsonl`). */
  task?: string;
  /** Why the proposed mapping cannot load rows yet (a required column not found); empty when it can. */
  mappingProblems: string[];
  /** The encoding the file was read in, when it was not UTF-8 (said next to the description). */
  encoding?: TextEncoding;
}

/** FNV-1a 32-bit of a string, as 8 hex digits: a stable, synchronous group key for a source text. */
export function hashText(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
