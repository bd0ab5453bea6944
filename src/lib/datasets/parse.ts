/**
 * Streaming data-set parsers: text (or bytes) in chunks of any size → records → `DatasetRow`s, with
 * a problem per bad row and the rest loading. Pure and synchronous per chunk, so the same code runs
 * in the parse worker (fed `file.stream()` in 1 MB chunks) and in the Node CLI (fed a read stream).
 *
 * - JSONL: line by line; a line that is not a JSON object is a problem naming its line; blank
 *   lines are skipped (and counted, so row numbers stay line numbers).
 * - JSON: a top-level array, or a stream of concatenated values (TinyEval's GAOKAO_math.jsonl);
 *   each element is one record, numbered from 1; only the current record is held in memory.
 * - CSV: papaparse (header row, quoted newlines, delimiter guessed from the first 64 KB); the row
 *   number is the record's number counting the header as row 1 (a spreadsheet's row number).
 *
 * Bytes are read as UTF-8 unless their first bytes say otherwise (encoding.ts): UTF-16 (with a BOM,
 * or without one when the NUL pattern is clear) is decoded as such, and a binary file (a PNG, an
 * .xlsx), UTF-32 or UTF-16 of unknown byte order stops the parse at once with a `DatasetParseError`
 * saying what the file is and what to do. A BOM is dropped; CRLF line ends are fine everywhere.
 * A row longer than `maxRowChars` (default 2,000,000) is rejected with its length and the file
 * goes on (JSONL and JSON never hold more than the limit of it in memory).
 *
 * The format is taken from `options.format`, else from the file name (.csv/.tsv), else sniffed:
 * `[` starts a JSON array; `{` starts JSONL when one of the first lines is a whole JSON object,
 * otherwise a JSON stream; anything else is CSV. Detection (detect.ts) runs on the first 50
 * records and proposes a mapping unless `options.mapping` is given; rows are built with
 * `toRow`.
 */
import { asError, messageOf } from '../errors.ts';
import Papa from 'papaparse';
import { parseAnswers } from '../metrics/lexical/answers.ts';
import type { CaseInput } from '../metrics/types.ts';
import { parseInstructions } from '../input/instructions.ts';
import {
  applyMappingOverrides,
  DETECT_SAMPLE,
  detectDataset,
  describeDataset,
  mappingProblems,
  type MappingOverride,
} from './detect.ts';
import { decoderLabel, SNIFF_BYTES, sniffEncoding, type TextEncoding } from '../input/encoding.ts';
import {
  columnMappingSchema,
  hashText,
  MAX_ROW_CHARS,
  type ColumnMapping,
  type DatasetDescription,
  type DatasetKind,
  type DatasetRow,
  type FileFormat,
  type PredictionInput,
  type RowProblem,
  MAPPING_TEXT_FIELDS,
} from '../rows/formats.ts';

type Rec = Record<string, unknown>;

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

type Item =
  { row: number; record: Rec } | { row: number; problem: string; column?: string; line?: number };
type Emit = (item: Item) => void;

interface Splitter {
  push(text: string): void;
  end(): void;
}

const fmt = (n: number) => n.toLocaleString('en-US');

function tooLong(chars: number, max: number): string {
  return `${fmt(chars)} characters, over the ${fmt(max)}-character limit for one row`;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

// ---------------------------------------------------------------- JSONL

class JsonlSplitter implements Splitter {
  private pending = '';
  private line = 0;
  /** Characters of the current line when it went over the limit (its text was dropped). */
  private overflow = 0;

  constructor(
    private readonly emit: Emit,
    private readonly max: number,
  ) {}

  push(text: string): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) {
        this.append(text.slice(start));
        return;
      }
      this.append(text.slice(start, nl));
      this.finishLine();
      start = nl + 1;
    }
  }

  end(): void {
    if (this.pending !== '' || this.overflow > 0) this.finishLine();
  }

  private append(piece: string): void {
    if (piece === '') return;
    if (this.overflow > 0) {
      this.overflow += piece.length;
    } else if (this.pending.length + piece.length > this.max + 1) {
      // +1: room for a trailing '\r'.
      this.overflow = this.pending.length + piece.length;
      this.pending = '';
    } else {
      this.pending += piece;
    }
  }

  private finishLine(): void {
    this.line++;
    const row = this.line;
    if (this.overflow > 0) {
      this.emit({ row, problem: tooLong(this.overflow, this.max) });
      this.overflow = 0;
      return;
    }
    let text = this.pending;
    this.pending = '';
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    if (text.length > this.max) {
      this.emit({ row, problem: tooLong(text.length, this.max) });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.emit({ row, problem: `not valid JSON (${messageOf(error)})` });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.emit({ row, problem: `not a JSON object but ${describeValue(value)}` });
      return;
    }
    this.emit({ row, record: value as Rec });
  }
}

// ---------------------------------------------------------------- JSON (array or stream)

const Ch = {
  LF: 10,
  Space: 32,
  Tab: 9,
  CR: 13,
  Quote: 34,
  Backslash: 92,
  Comma: 44,
  OpenBrace: 123,
  CloseBrace: 125,
  OpenBracket: 91,
  CloseBracket: 93,
} as const;

function isSpace(c: number): boolean {
  return c === Ch.Space || c === Ch.LF || c === Ch.CR || c === Ch.Tab || c === 0xfeff;
}

/**
 * Splits a JSON array (elements) or a stream of JSON values into one text per record, holding
 * only the current record. It tracks strings and bracket depth; JSON.parse does the rest.
 */
class JsonSplitter implements Splitter {
  private mode: 'start' | 'array' | 'stream' | 'closed' = 'start';
  private inElement = false;
  private scalar = false;
  private depth = 0;
  private inString = false;
  private escape = false;
  private pieces: string[] = [];
  private length = 0;
  private overflow = false;
  private record = 0;
  private line = 1;
  private elementLine = 1;
  readonly warnings: string[] = [];

  constructor(
    private readonly emit: Emit,
    private readonly max: number,
  ) {}

  push(text: string): void {
    let start = 0;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === Ch.LF) this.line++;
      if (this.inElement) {
        if (this.inString) {
          if (this.escape) this.escape = false;
          else if (c === Ch.Backslash) this.escape = true;
          else if (c === Ch.Quote) {
            this.inString = false;
            if (this.depth === 0) {
              start = this.finish(text, start, i + 1);
            }
          }
          continue;
        }
        if (this.scalar) {
          if (c === Ch.Comma || c === Ch.CloseBracket || c === Ch.CloseBrace || isSpace(c)) {
            start = this.finish(text, start, i);
            i--; // the delimiter is structure: look at it again outside the element
            if (c === Ch.LF) this.line--;
          }
          continue;
        }
        if (c === Ch.Quote) this.inString = true;
        else if (c === Ch.OpenBrace || c === Ch.OpenBracket) this.depth++;
        else if (c === Ch.CloseBrace || c === Ch.CloseBracket) {
          this.depth--;
          if (this.depth === 0) start = this.finish(text, start, i + 1);
        }
        continue;
      }
      if (isSpace(c)) continue;
      switch (this.mode) {
        case 'start':
          if (c === Ch.OpenBracket) {
            this.mode = 'array';
            continue;
          }
          this.mode = 'stream';
          break;
        case 'array':
          if (c === Ch.Comma) continue;
          if (c === Ch.CloseBracket) {
            this.mode = 'closed';
            continue;
          }
          break;
        case 'stream':
          if (c === Ch.Comma) continue;
          break;
        case 'closed':
          if (this.warnings.length === 0) {
            this.warnings.push(
              `Text after the closing ] of the JSON array (line ${this.line}) was ignored.`,
            );
          }
          continue;
      }
      // An element starts here.
      this.inElement = true;
      this.elementLine = this.line;
      this.pieces = [];
      this.length = 0;
      this.overflow = false;
      start = i;
      this.depth = 0;
      this.scalar = false;
      if (c === Ch.OpenBrace || c === Ch.OpenBracket) this.depth = 1;
      else if (c === Ch.Quote) this.inString = true;
      else this.scalar = true;
    }
    if (this.inElement) this.keep(text.slice(start));
  }

  end(): void {
    if (this.inElement) {
      if (this.scalar) {
        this.finish('', 0, 0);
      } else {
        this.record++;
        this.inElement = false;
        this.emit({
          row: this.record,
          line: this.elementLine,
          problem: `the file ends inside this record (an unclosed ${this.inString ? 'string' : 'bracket'})`,
        });
      }
    }
    if (this.mode === 'array') this.warnings.push('The JSON array is not closed with ].');
  }

  private keep(piece: string): void {
    if (this.overflow) {
      this.length += piece.length;
      return;
    }
    this.length += piece.length;
    if (this.length > this.max) {
      this.overflow = true;
      this.pieces = [];
    } else if (piece !== '') {
      this.pieces.push(piece);
    }
  }

  /** Ends the element at text[end); returns where the next element may start. */
  private finish(text: string, start: number, end: number): number {
    this.keep(text.slice(start, end));
    this.inElement = false;
    this.scalar = false;
    this.record++;
    const row = this.record;
    const line = this.elementLine;
    if (this.overflow) {
      this.emit({ row, line, problem: tooLong(this.length, this.max) });
    } else {
      const json = this.pieces.join('');
      this.pieces = [];
      let value: unknown;
      try {
        value = JSON.parse(json);
      } catch (error) {
        this.emit({ row, line, problem: `not valid JSON (${messageOf(error)})` });
        return end;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        this.emit({ row, line, problem: `not a JSON object but ${describeValue(value)}` });
      } else {
        this.emit({ row, record: value as Rec });
      }
    }
    return end;
  }
}

// ---------------------------------------------------------------- CSV

/** A minimal Node-style readable that papaparse's ReadableStreamStreamer accepts. */
class PushStream {
  readonly readable = true;
  private handlers = new Map<string, (arg?: unknown) => void>();
  read(): void {}
  pause(): void {}
  resume(): void {}
  on(event: string, handler: (arg?: unknown) => void): this {
    this.handlers.set(event, handler);
    return this;
  }
  removeListener(event: string): this {
    this.handlers.delete(event);
    return this;
  }
  write(text: string): void {
    this.handlers.get('data')?.(text);
  }
  close(): void {
    this.handlers.get('end')?.();
  }
}

/** CSV input is handed to papaparse in pieces of at least this many characters. */
const CSV_BLOCK = 64 * 1024;

class CsvSplitter implements Splitter {
  private readonly stream = new PushStream();
  private buffer = '';
  private record = 1; // the header is row 1
  private failure: unknown;

  constructor(
    private readonly emit: Emit,
    private readonly max: number,
  ) {
    Papa.parse(this.stream as unknown as NodeJS.ReadableStream, {
      header: true,
      skipEmptyLines: false,
      transformHeader: (h: string) => h.trim(),
      step: (results: Papa.ParseStepResult<Rec>) => {
        try {
          this.onRow(results);
        } catch (error) {
          this.failure ??= error;
        }
      },
      error: (error: Error) => {
        this.failure ??= error;
      },
    });
  }

  push(text: string): void {
    this.buffer += text;
    if (this.buffer.length >= CSV_BLOCK) this.flush();
  }

  end(): void {
    this.flush();
    this.stream.close();
    this.rethrow();
  }

  private flush(): void {
    if (this.buffer === '') return;
    const text = this.buffer;
    this.buffer = '';
    this.stream.write(text);
    this.rethrow();
  }

  private rethrow(): void {
    if (this.failure !== undefined) {
      const error = this.failure;
      this.failure = undefined;
      throw asError(error);
    }
  }

  private onRow(results: Papa.ParseStepResult<Rec>): void {
    this.record++;
    const row = this.record;
    const data = results.data;
    const values = Object.entries(data).filter(([k]) => k !== '__parsed_extra');
    const blank = values.every(([, v]) => v === undefined || v === null || String(v).trim() === '');
    if (blank && !('__parsed_extra' in data)) return;
    let chars = 0;
    for (const [, v] of values) if (typeof v === 'string') chars += v.length;
    if (chars > this.max) {
      this.emit({ row, problem: tooLong(chars, this.max) });
      return;
    }
    const fieldError = results.errors.find((e) => e.type === 'FieldMismatch');
    const quoteError = results.errors.find((e) => e.type === 'Quotes');
    if (quoteError) {
      this.emit({
        row,
        problem: `${quoteError.message.replace(/\.$/u, '')} (a quote inside a quoted field must be doubled: "")`,
      });
      return;
    }
    if (fieldError) {
      const fields =
        values.length + (Array.isArray(data.__parsed_extra) ? data.__parsed_extra.length : 0);
      const header = results.meta.fields?.length ?? values.length;
      this.emit({
        row,
        problem:
          fieldError.code === 'TooManyFields'
            ? `${fields} fields where the header has ${header} (an unquoted comma?)`
            : `${values.filter(([, v]) => v !== undefined).length} fields where the header has ${header}`,
      });
      return;
    }
    const record: Rec = {};
    for (const [k, v] of values) record[k] = v;
    this.emit({ row, record });
  }
}

// ---------------------------------------------------------------- rows

const RAW_MAX_KEYS = 20;
const RAW_MAX_CHARS = 200;

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** A rating column's values: a number, or the mean per key of a list of rating objects. */
function addRatings(human: Record<string, number>, name: string, value: unknown): void {
  let v = value;
  if (typeof v === 'string' && v.trim().startsWith('[')) {
    try {
      v = JSON.parse(v);
    } catch {
      return;
    }
  }
  if (Array.isArray(v)) {
    const sums = new Map<string, { total: number; n: number }>();
    for (const item of v) {
      if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
      for (const [k, x] of Object.entries(item as Rec)) {
        const n = numberOf(x);
        if (n === undefined) continue;
        const s = sums.get(k) ?? { total: 0, n: 0 };
        s.total += n;
        s.n++;
        sums.set(k, s);
      }
    }
    for (const [k, s] of sums) human[`${name}_${k}`] = s.total / s.n;
    return;
  }
  const n = numberOf(v);
  if (n !== undefined) human[name] = n;
}

/** A string, or a list of strings (a JSON/Python list in a CSV cell), as a list. */
function listOf(value: unknown): string[] {
  return parseAnswers(value).filter((s) => typeof s === 'string');
}

interface Built {
  row?: DatasetRow;
  problem?: string;
  column?: string;
}

function buildCase(record: Rec, m: ColumnMapping, kind: 'case' | 'summeval'): Built {
  const source = m.source ? textOf(record[m.source]) : undefined;
  if (!source || source.trim() === '') {
    return { problem: `no source text in column '${m.source}'`, column: m.source };
  }
  const summary = m.summary ? textOf(record[m.summary]) : undefined;
  if (!summary || summary.trim() === '') {
    return { problem: `no summary text in column '${m.summary}'`, column: m.summary };
  }
  const input: CaseInput = { source, summary };
  let references: string[] | undefined;
  if (m.reference) {
    const value = record[m.reference];
    const list = Array.isArray(value) ? listOf(value) : undefined;
    const refs = (list ?? [textOf(value) ?? '']).filter((r) => r.trim() !== '');
    if (refs.length > 0) input.reference = refs[0];
    if (refs.length > 1) references = refs;
  }
  if (m.instructions) {
    const value = record[m.instructions];
    const text =
      typeof value === 'string'
        ? value
        : value === undefined || value === null
          ? ''
          : JSON.stringify(value);
    if (text.trim() !== '') {
      const parsed = parseInstructions(text);
      if (parsed.problems.length > 0) {
        return { problem: parsed.problems[0]!, column: m.instructions };
      }
      input.instructions = parsed.sections;
    }
  }
  return {
    row: {
      row: 0,
      kind,
      input,
      human: {},
      group: 'src:' + hashText(source),
      ...(references ? { references } : {}),
    },
  };
}

/**
 * A prediction or SFT row. A row without a prediction (no prediction column, or an empty cell:
 * undefined or null) still loads when it has a non-empty template field, marked `needsPrediction`
 * for the generate step; a prediction of another type (an object, a list) is a bad row.
 */
function buildPrediction(record: Rec, m: ColumnMapping, kind: 'prediction' | 'sft'): Built {
  const predictionValue = m.prediction ? record[m.prediction] : undefined;
  const prediction = textOf(predictionValue);
  const absent = predictionValue === undefined || predictionValue === null;
  if (prediction === undefined && !absent) {
    return {
      problem: `no prediction in column '${m.prediction}' (${describeValue(predictionValue)})`,
      column: m.prediction,
    };
  }
  let answers: string[];
  const fields: Record<string, string> = {};
  if (kind === 'sft') {
    const output = m.output ? textOf(record[m.output]) : undefined;
    if (output === undefined || output.trim() === '') {
      return { problem: `no expected output in column '${m.output}'`, column: m.output };
    }
    answers = [output];
    const instruction = m.instruction ? textOf(record[m.instruction]) : undefined;
    const input = m.input ? textOf(record[m.input]) : undefined;
    if (instruction !== undefined) fields.instruction = instruction;
    if (input !== undefined) fields.input = input;
  } else {
    answers = m.answers ? listOf(record[m.answers]) : [];
    if (answers.length === 0) {
      return { problem: `no answers in column '${m.answers}'`, column: m.answers };
    }
  }
  for (const [name, column] of Object.entries(m.fields ?? {})) {
    const value = textOf(record[column]);
    if (value !== undefined) fields[name] = value;
  }
  if (prediction === undefined && !Object.values(fields).some((v) => v.trim() !== '')) {
    return {
      problem: m.prediction
        ? `no prediction in column '${m.prediction}', and no input to generate one from`
        : 'no input to generate a prediction from (its template fields are empty)',
      column: m.prediction,
    };
  }
  const input: PredictionInput = { prediction: prediction ?? '', answers };
  if (prediction === undefined) input.needsPrediction = true;
  if (m.allClasses) {
    const classes = listOf(record[m.allClasses]);
    if (classes.length > 0) input.allClasses = classes;
  }
  if (m.length) {
    const length = numberOf(record[m.length]);
    if (length !== undefined) input.length = length;
  }
  if (Object.keys(fields).length > 0) input.fields = fields;
  const context = fields.context ?? fields.input;
  return {
    row: {
      row: 0,
      kind,
      input,
      human: {},
      ...(context !== undefined && context !== '' ? { group: 'src:' + hashText(context) } : {}),
    },
  };
}

/**
 * One record → one row with the mapping, or the reason it cannot be one (without the "row N: "
 * prefix; `toRows` and the parser add it).
 */
export function toRow(
  record: Rec,
  row: number,
  mapping: ColumnMapping,
): { row: DatasetRow } | RowProblem {
  const m = mapping;
  const built =
    m.kind === 'case' || m.kind === 'summeval'
      ? buildCase(record, m, m.kind)
      : buildPrediction(record, m, m.kind);
  if (!built.row) {
    return {
      row,
      reason: built.problem ?? 'unreadable',
      ...(built.column ? { column: built.column } : {}),
    };
  }
  const out = built.row;
  out.row = row;
  for (const h of m.human ?? []) addRatings(out.human, h.name, record[h.column]);
  const group = m.group ? textOf(record[m.group]) : undefined;
  if (group !== undefined && group !== '') out.group = group;
  const system = m.system ? textOf(record[m.system]) : undefined;
  if (system !== undefined && system !== '') out.system = system;
  const id = m.id ? textOf(record[m.id]) : undefined;
  if (id !== undefined && id !== '') out.id = id;
  else if (m.kind === 'summeval' && group && system) out.id = `${group}/${system}`;
  const mapped = new Set<string>();
  for (const key of MAPPING_TEXT_FIELDS) {
    const c = m[key];
    if (c !== undefined) mapped.add(c);
  }
  for (const h of m.human ?? []) mapped.add(h.column);
  for (const c of Object.values(m.fields ?? {})) mapped.add(c);
  const raw: NonNullable<DatasetRow['raw']> = {};
  let kept = 0;
  for (const [k, v] of Object.entries(record)) {
    if (mapped.has(k) || kept >= RAW_MAX_KEYS) continue;
    if (typeof v === 'string')
      raw[k] = v.length > RAW_MAX_CHARS ? v.slice(0, RAW_MAX_CHARS) + '…' : v;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null) raw[k] = v;
    else continue;
    kept++;
  }
  if (kept > 0) out.raw = raw;
  return { row: out };
}

/** Records (numbered from `firstRow`) → rows and problems ("row 9: no summary text in column 'decoded'"). */
export function toRows(
  records: readonly Rec[],
  mapping: ColumnMapping,
  firstRow = 1,
): { rows: DatasetRow[]; problems: RowProblem[] } {
  const rows: DatasetRow[] = [];
  const problems: RowProblem[] = [];
  records.forEach((record, i) => {
    const result = toRow(record, firstRow + i, mapping);
    if ('reason' in result)
      problems.push({ ...result, reason: `row ${result.row}: ${result.reason}` });
    else rows.push(result.row);
  });
  return { rows, problems };
}

// ---------------------------------------------------------------- the parser

/** Characters the sniffer may hold before it decides (long first lines). */
const SNIFF_LIMIT = 4 * 1024 * 1024;

/**
 * The format of the text so far, or undefined when more text is needed. `{` with one of the first
 * three lines a whole JSON object → JSONL; with a line that does not start with `{` (a
 * pretty-printed object) → a JSON stream; lines that all start with `{` and all fail → JSONL, so
 * that each is reported as a bad row.
 */
export function sniffFormat(
  text: string,
  final: boolean,
  fileName?: string,
): FileFormat | undefined {
  if (fileName && /\.(?:csv|tsv)$/iu.test(fileName)) return 'csv';
  const first = /\S/u.exec(text);
  if (!first) {
    if (!final) return undefined;
    return fileName && /\.json$/iu.test(fileName) ? 'json' : 'jsonl';
  }
  if (first[0] === '[') return 'json';
  if (first[0] !== '{') return 'csv';
  const lines = text.slice(first.index).split('\n');
  const complete = (final ? lines : lines.slice(0, -1))
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(0, 3);
  for (const t of complete) {
    if (!t.startsWith('{') || !t.endsWith('}')) continue;
    try {
      const v: unknown = JSON.parse(t);
      if (v && typeof v === 'object' && !Array.isArray(v)) return 'jsonl';
    } catch {
      // A broken JSONL line, or part of a pretty-printed object: look further.
    }
  }
  if (complete.length >= 3 || final || text.length >= SNIFF_LIMIT) {
    return complete.every((t) => t.startsWith('{') && t !== '{') ? 'jsonl' : 'json';
  }
  return undefined;
}

/**
 * Push text or bytes in chunks of any size; each call returns what became available. Call `end()`
 * once at the end. Throws `DatasetParseError` when the first records show the mapping cannot
 * work (a required column missing): nothing would load, so nothing is listed row by row.
 */
export class DatasetParser {
  private readonly max: number;
  /** Created once the first bytes have said which encoding they are in. */
  private decoder?: TextDecoder;
  private encoding?: TextEncoding;
  /** The first bytes, held until there are enough to sniff (encoding.ts). */
  private head: Uint8Array[] = [];
  private headBytes = 0;
  private format?: FileFormat;
  private splitter?: Splitter;
  private sniffBuffer = '';
  private firstText = true;
  private bytes = 0;
  private mapping?: ColumnMapping;
  private detected?: DatasetDescription;
  /** Records read before detection, and every item (records and problems) in file order. */
  private sample: { row: number; record: Rec }[] = [];
  private held: Item[] = [];
  private outRows: DatasetRow[] = [];
  private outProblems: RowProblem[] = [];
  private newlyDetected?: DatasetDescription;
  private rowCount = 0;
  private problemCount = 0;
  private recordCount = 0;
  private ended = false;

  constructor(private readonly options: DatasetParserOptions = {}) {
    this.max = options.maxRowChars ?? MAX_ROW_CHARS;
    this.format = options.format;
    if (options.mapping) this.mapping = columnMappingSchema.parse(options.mapping);
  }

  /** The records detection looks at (the first `DETECT_SAMPLE`), for a preview before import. */
  get sampled(): readonly { row: number; record: Rec }[] {
    return this.sample;
  }

  /** Records read so far (rows and rows the mapping rejects; not lines that are not records). */
  get recordsRead(): number {
    return this.recordCount;
  }

  /**
   * Feed a chunk: a string, or bytes (decoded across chunk boundaries in the encoding their first
   * bytes show). Throws `DatasetParseError` when those bytes are not text SumLens can read.
   */
  push(chunk: string | Uint8Array): ParseBatch {
    if (this.ended) throw new Error('DatasetParser: push after end');
    let text: string;
    if (typeof chunk === 'string') {
      text = chunk;
      this.bytes += chunk.length;
    } else {
      text = this.decode(chunk, false);
      this.bytes += chunk.byteLength;
    }
    this.feed(text, false);
    return this.take();
  }

  /** Bytes → text; the first `SNIFF_BYTES` are held until the encoding is known. */
  private decode(chunk: Uint8Array, final: boolean): string {
    if (this.decoder) return this.decoder.decode(chunk, { stream: !final });
    let head = chunk;
    if (this.headBytes > 0 || (chunk.byteLength < SNIFF_BYTES && !final)) {
      // Copied: a stream may hand out views of a buffer it reuses.
      if (chunk.byteLength > 0) this.head.push(chunk.slice());
      this.headBytes += chunk.byteLength;
      if (this.headBytes < SNIFF_BYTES && !final) return '';
      head = new Uint8Array(this.headBytes);
      let at = 0;
      for (const piece of this.head) {
        head.set(piece, at);
        at += piece.byteLength;
      }
      this.head = [];
    }
    if (head.byteLength === 0) return '';
    const sniffed = sniffEncoding(head, this.options.fileName);
    if ('binary' in sniffed) throw new DatasetParseError(sniffed.message);
    if ('refuse' in sniffed) throw new DatasetParseError(sniffed.refuse);
    this.encoding = sniffed.encoding;
    this.decoder = new TextDecoder(decoderLabel(sniffed.encoding));
    return this.decoder.decode(head, { stream: !final });
  }

  end(): ParseBatch & { summary: ParseSummary } {
    if (this.ended) throw new Error('DatasetParser: end called twice');
    const tail = this.decode(new Uint8Array(0), true);
    this.feed(tail, true);
    this.splitter?.end();
    this.ended = true;
    this.detect(true);
    const format = this.format ?? 'jsonl';
    const warnings = this.splitter instanceof JsonSplitter ? this.splitter.warnings : [];
    const mapping = this.mapping ?? { kind: this.options.kind ?? 'case', human: [] };
    const records = this.rowCount + this.problemCount;
    const detected: DatasetDescription =
      this.detected === undefined
        ? {
            format,
            kind: mapping.kind,
            confidence: 0,
            description:
              records === 0 ? 'Empty file: no rows.' : `No readable rows: ${records} bad row(s).`,
            columns: [],
            mapping,
            mappingProblems: [],
            ...this.encodingNote(),
          }
        : {
            ...this.detected,
            description: describeDataset(
              this.detected.mapping,
              this.sample.map((s) => s.record),
              { count: this.rowCount, final: true },
              this.detected.task,
            ),
          };
    const batch = this.take();
    return {
      ...batch,
      summary: {
        format,
        detected,
        rows: this.rowCount,
        problems: this.problemCount,
        bytes: this.bytes,
        ...(this.encoding ? { encoding: this.encoding } : {}),
        warnings,
      },
    };
  }

  private feed(text: string, final: boolean): void {
    if (this.firstText && text !== '') {
      this.firstText = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (!this.splitter) {
      this.sniffBuffer += text;
      // Sniff again only when it can change the answer (a new line, the end, the limit).
      if (
        final ||
        text.includes('\n') ||
        this.sniffBuffer.length >= SNIFF_LIMIT ||
        !/^\s*\{/u.test(this.sniffBuffer)
      ) {
        this.format ??= sniffFormat(this.sniffBuffer, final, this.options.fileName);
      }
      if (!this.format) return;
      this.splitter = this.makeSplitter(this.format);
      text = this.sniffBuffer;
      this.sniffBuffer = '';
    }
    if (text !== '') this.splitter.push(text);
  }

  private makeSplitter(format: FileFormat): Splitter {
    const emit: Emit = (item) => this.onItem(item);
    switch (format) {
      case 'jsonl':
        return new JsonlSplitter(emit, this.max);
      case 'json':
        return new JsonSplitter(emit, this.max);
      case 'csv':
        return new CsvSplitter(emit, this.max);
    }
  }

  private onItem(item: Item): void {
    if ('record' in item) this.recordCount++;
    if (!this.detected) {
      this.held.push(item);
      if ('record' in item) this.sample.push(item);
      if (this.sample.length >= DETECT_SAMPLE) this.detect(false);
      return;
    }
    this.convert(item);
  }

  private problem(item: {
    row: number;
    problem: string;
    column?: string;
    line?: number;
  }): RowProblem {
    const where = item.line === undefined ? '' : ` (line ${item.line})`;
    return {
      row: item.row,
      reason: `row ${item.row}${where}: ${item.problem}`,
      ...(item.column ? { column: item.column } : {}),
    };
  }

  private convert(item: Item): void {
    if (!('record' in item)) {
      this.problemCount++;
      this.outProblems.push(this.problem(item));
      return;
    }
    const result = toRow(item.record, item.row, this.detected!.mapping);
    if ('reason' in result) {
      this.problemCount++;
      this.outProblems.push({ ...result, reason: `row ${result.row}: ${result.reason}` });
    } else {
      this.rowCount++;
      this.outRows.push(result.row);
    }
  }

  /** Recognise the sample (at 50 records or at the end), then build the held rows. */
  private detect(final: boolean): void {
    if (this.detected) return;
    if (this.sample.length === 0 && final) {
      for (const item of this.held) this.convert(item);
      this.held = [];
      return;
    }
    const records = this.sample.map((s) => s.record);
    const proposal = detectDataset(records, {
      format: this.format ?? 'jsonl',
      ...(this.options.fileName ? { fileName: this.options.fileName } : {}),
      ...(this.options.kind ? { kind: this.options.kind } : {}),
    });
    let detected: DatasetDescription = { ...proposal, ...this.encodingNote() };
    const overrides = this.options.overrides ?? [];
    if (this.mapping || overrides.length > 0) {
      const mapping = applyMappingOverrides(this.mapping ?? proposal.mapping, overrides);
      const problems = mappingProblems(mapping, proposal.columns);
      detected = {
        ...detected,
        kind: mapping.kind,
        mapping,
        mappingProblems: problems,
        description: describeDataset(
          mapping,
          records,
          { count: records.length, final: false },
          proposal.task,
        ),
      };
    }
    if (detected.mappingProblems.length > 0) {
      throw new DatasetParseError(
        `${detected.description}. ${detected.mappingProblems.join(' ')}`,
        detected,
      );
    }
    this.detected = detected;
    this.newlyDetected = detected;
    const held = this.held;
    this.held = [];
    for (const item of held) this.convert(item);
  }

  /** For the description: the encoding, when it is not the UTF-8 everyone expects. */
  private encodingNote(): { encoding?: TextEncoding } {
    return this.encoding && this.encoding !== 'UTF-8' ? { encoding: this.encoding } : {};
  }

  private take(): ParseBatch {
    const batch: ParseBatch = {
      rows: this.outRows,
      problems: this.outProblems,
      bytes: this.bytes,
      ...(this.options.totalBytes !== undefined ? { total: this.options.totalBytes } : {}),
      ...(this.newlyDetected ? { detected: this.newlyDetected } : {}),
    };
    this.outRows = [];
    this.outProblems = [];
    this.newlyDetected = undefined;
    return batch;
  }
}

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
