/**
 * Streaming data-set parsers: text (or bytes) in chunks of any size → records → `DatasetRow`s, with
 * a problem per bad row and the rest loading. Pure and synchronous per chunk, so the same code runs
 * in the parse worker (fed `file.stream()` in 1 MB chunks) and in the Node CLI (fed a read stream).
 *
 * - JSONL: line by line; a line that is not a JSON object is a problem naming its line; blank
 *   lines are skipped (and counted, so row numbers stay line numbers).
 * - JSON: a top-level array, or a stream of concatenated values (TinyEval's GAOKAO_math.jsonl);
 *   each element is one record, numbered from 1; only the current record is held in memory.
 * - CSV: records split with the quote rules of papaparse, which reads their fields (header row,
 *   quoted newlines, delimiter guessed from the first 64 KB); the row number is the record's
 *   number counting the header as row 1 (a spreadsheet's row number). A quote left open costs its
 *   own row: its line is reported, naming the quote, and the next line is read as the next row.
 *
 * Bytes are read as UTF-8 unless their first bytes say otherwise (encoding.ts): UTF-16 (with a BOM,
 * or without one when the NUL pattern is clear) is decoded as such, bytes that are not UTF-8 as
 * Windows-1252 (Latin-1) when they fit it, from the byte where they start (input/decode.ts), and
 * said so; UTF-8 with a few such bytes later on names the rows they are in; a binary file (a PNG, an
 * .xlsx), UTF-32 or UTF-16 of unknown byte order stops the parse at once with a `DatasetParseError`
 * saying what the file is and what to do. A BOM is dropped; CRLF line ends are fine everywhere.
 * A row longer than `maxRowChars` (default 2,000,000) is rejected with its length and the file
 * goes on (JSONL and JSON never hold more than the limit of it in memory).
 *
 * The format is taken from `options.format`, else from the file name (.csv/.tsv), else sniffed:
 * `[` starts a JSON array; `{` starts JSONL when one of the first lines is a whole JSON object,
 * otherwise a JSON stream; anything else is CSV. Detection (detect/dataset.ts) runs on the first 50
 * records and proposes a mapping unless `options.mapping` is given; rows are built with
 * `toRow`.
 *
 * The pieces live beside this module: one splitter per format (jsonl.ts, json.ts, csv.ts with
 * csv-records.ts), row building (rows.ts), format sniffing (sniff.ts) and the parser that joins
 * them (parser.ts). This module runs the parser over a stream of chunks or over a whole text.
 */
import type { DatasetRow, RowProblem } from '../../rows/formats.ts';
import { DatasetParser } from './parser.ts';
import type { DatasetParserOptions, ParseBatch, ParseSummary } from './types.ts';

/**
 * The async-iterable form: chunks in (strings or bytes, e.g. `file.stream()` or a Node read
 * stream), batches out; the last batch carries `summary`.
 */
export async function* parseDataset(
  chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  options: DatasetParserOptions = {},
): AsyncGenerator<ParseBatch & { summary?: ParseSummary }> {
  const parser = new DatasetParser(options);
  for await (const chunk of chunks) {
    const batch = parser.push(chunk);
    if (batch.rows.length > 0 || batch.problems.length > 0 || batch.detected) yield batch;
  }
  yield parser.end();
}

export interface ParsedDataset {
  rows: DatasetRow[];
  problems: RowProblem[];
  summary: ParseSummary;
}

/** A whole text at once (tests, pasted data). Throws DatasetParseError like the parser. */
export function parseDatasetText(
  text: string | Uint8Array,
  options: DatasetParserOptions = {},
  chunkSize = Infinity,
): ParsedDataset {
  const parser = new DatasetParser(options);
  const rows: DatasetRow[] = [];
  const problems: RowProblem[] = [];
  const collect = (b: ParseBatch) => {
    rows.push(...b.rows);
    problems.push(...b.problems);
  };
  const length = typeof text === 'string' ? text.length : text.byteLength;
  const step = Number.isFinite(chunkSize) ? Math.max(1, chunkSize) : Math.max(1, length);
  for (let i = 0; i < length; i += step) collect(parser.push(text.slice(i, i + step)));
  const last = parser.end();
  collect(last);
  return { rows, problems, summary: last.summary };
}
