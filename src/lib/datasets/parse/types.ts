/**
 * The parser's options, what it returns per chunk and at the end, and the one error that stops a
 * file loading: the public shapes of the parser (parser.ts, dataset.ts), apart from it so that
 * every module can use them.
 */
import type { MappingOverride } from '../detect/overrides.ts';
import type { TextEncoding } from '../../input/encoding.ts';
import type {
  ColumnMapping,
  DatasetDescription,
  DatasetKind,
  DatasetRow,
  FileFormat,
  RowProblem,
} from '../../rows/formats.ts';

export interface DatasetParserOptions {
  /** Skip sniffing. */
  format?: FileFormat;
  /** The file's name: `.csv`/`.tsv` mean CSV; a TinyEval task name (`trec.jsonl`) is guessed. */
  fileName?: string;
  /** Use this mapping instead of the proposed one (the user's choice); `kind` comes with it. */
  mapping?: ColumnMapping;
  /** Propose a mapping for this kind instead of guessing the kind. */
  kind?: DatasetKind;
  /** Changes to the proposed (or given) mapping, applied at detection (the CLI's `--map`). */
  overrides?: MappingOverride[];
  /** File size in bytes, echoed in progress. */
  totalBytes?: number;
  /** Longest row accepted, in characters. */
  maxRowChars?: number;
}

/** What a chunk (or the end) made available. */
export interface ParseBatch {
  rows: DatasetRow[];
  problems: RowProblem[];
  /** Set on the batch in which the first records were recognised (once per file). */
  detected?: DatasetDescription;
  /** Bytes (or, for string chunks, UTF-16 code units) consumed so far. */
  bytes: number;
  total?: number;
}

export interface ParseSummary {
  format: FileFormat;
  /** The final description (row count known), or an empty-file description. */
  detected: DatasetDescription;
  /** Rows loaded. */
  rows: number;
  /** Rows rejected. */
  problems: number;
  bytes: number;
  /** How the bytes were decoded; absent when the parser was fed text. */
  encoding?: TextEncoding;
  /** File-level remarks (an unclosed JSON array, text after it). */
  warnings: string[];
}

/** A problem with the whole file that stops it loading (no usable mapping). */
export class DatasetParseError extends Error {
  readonly detected?: DatasetDescription;

  constructor(message: string, detected?: DatasetDescription) {
    super(message);
    this.name = 'DatasetParseError';
    this.detected = detected;
  }
}
