/**
 * The streaming parser: chunks of text or bytes in, rows and problems out. It decodes bytes in the
 * encoding their first bytes show, sniffs the format, holds the first records until detection has
 * proposed (or checked) a mapping, then builds each record into a row as it arrives.
 */
import { english, ref } from '../../i18n/message.ts';
import { DETECT_SAMPLE, detectDataset } from '../detect/dataset.ts';
import { described, describeDatasetRef, mappingProblems } from '../detect/describe.ts';
import { applyMappingOverrides } from '../detect/overrides.ts';
import {
  columnMappingSchema,
  MAX_ROW_CHARS,
  type ColumnMapping,
  type DatasetDescription,
  type DatasetRow,
  type FileFormat,
  type RowProblem,
} from '../../rows/formats.ts';
import { CsvSplitter } from './csv.ts';
import { hasReplacement, SniffingDecoder } from './decoding.ts';
import type { Emit, Item, Rec, Splitter } from './items.ts';
import { JsonSplitter } from './json.ts';
import { JsonlSplitter } from './jsonl.ts';
import { numbered, toRow } from './rows.ts';
import { SNIFF_LIMIT, sniffFormat } from './sniff.ts';
import {
  DatasetParseError,
  type DatasetParserOptions,
  type ParseBatch,
  type ParseSummary,
} from './types.ts';

const NOT_UTF8 = 'datasets.problem.notUtf8';
const DUPLICATE_ID = 'datasets.problem.duplicateId';
/** Characters of a duplicate id the message shows. */
const ID_SHOWN = 60;

/**
 * Push text or bytes in chunks of any size; each call returns what became available. Call `end()`
 * once at the end. Throws `DatasetParseError` when the first records show the mapping cannot
 * work (a required column missing): nothing would load, so nothing is listed row by row.
 */
export class DatasetParser {
  private readonly max: number;
  /** Bytes → text, in the encoding the first bytes show. */
  private readonly decoder: SniffingDecoder;
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
  /**
   * Each row id read so far and the first row that had it: an id twice is said, never dropped.
   * It grows with the rows (ids are short); the rows themselves are not held.
   */
  private ids = new Map<string, number>();
  private rowCount = 0;
  private problemCount = 0;
  private recordCount = 0;
  private ended = false;

  constructor(private readonly options: DatasetParserOptions = {}) {
    this.max = options.maxRowChars ?? MAX_ROW_CHARS;
    this.decoder = new SniffingDecoder(options.fileName);
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
      text = this.decoder.decode(chunk, false);
      this.bytes += chunk.byteLength;
    }
    this.feed(text, false);
    return this.take();
  }

  end(): ParseBatch & { summary: ParseSummary } {
    if (this.ended) throw new Error('DatasetParser: end called twice');
    const tail = this.decoder.decode(new Uint8Array(0), true);
    this.feed(tail, true);
    this.splitter?.end();
    this.ended = true;
    this.detect(true);
    const format = this.format ?? 'jsonl';
    const warnings = [
      ...(this.splitter instanceof JsonSplitter ? this.splitter.warnings : []),
      ...this.decoder.encodingWarning(),
    ];
    const mapping = this.mapping ?? { kind: this.options.kind ?? 'case', human: [] };
    const records = this.rowCount + this.problemCount;
    const detected: DatasetDescription =
      this.detected === undefined
        ? {
            format,
            kind: mapping.kind,
            confidence: 0,
            ...described(
              records === 0
                ? ref('datasets.describe.empty')
                : ref('datasets.describe.noReadableRows', { count: records }),
            ),
            columns: [],
            mapping,
            mappingProblems: [],
            ...this.decoder.encodingNote(),
          }
        : {
            ...this.detected,
            // Windows-1252 may have taken over after detection.
            ...this.decoder.encodingNote(),
            ...described(
              describeDatasetRef(
                this.detected.mapping,
                this.sample.map((s) => s.record),
                { count: this.rowCount, final: true },
                this.detected.task,
              ),
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
        ...(this.decoder.encoding ? { encoding: this.decoder.encoding } : {}),
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

  private problem(item: Exclude<Item, { record: Rec }>): RowProblem {
    const values = {
      row: item.row,
      line: item.line ?? 'none',
      reason: item.problemRef ?? item.problem,
    };
    return {
      row: item.row,
      reason: english('datasets.problem.rowLine', values),
      reasonRef: ref('datasets.problem.rowLine', values),
      ...(item.column ? { column: item.column } : {}),
    };
  }

  private convert(item: Item): void {
    if (!('record' in item)) {
      this.problemCount++;
      this.outProblems.push(this.problem(item));
      return;
    }
    if (this.decoder.replaced && hasReplacement(item.record)) {
      // Bytes that were not UTF-8 in a file that is: its text here is not what the file says.
      this.problemCount++;
      const problem = { row: item.row, problem: english(NOT_UTF8), problemRef: ref(NOT_UTF8) };
      this.outProblems.push(this.problem(problem));
      return;
    }
    const result = toRow(item.record, item.row, this.detected!.mapping);
    if ('reason' in result) {
      this.problemCount++;
      this.outProblems.push(numbered(result));
    } else {
      this.rowCount++;
      this.outRows.push(result.row);
      // (listed, not counted: the row loaded)
      for (const cell of result.cells ?? []) this.outProblems.push(numbered(cell));
      const duplicate = this.duplicateId(result.row);
      if (duplicate) this.outProblems.push(duplicate);
    }
  }

  /**
   * A row whose id an earlier row has: both load, since runs key results by row number, but the
   * id is no longer a key (a comparison pairs by id only when ids are distinct), so it is said.
   */
  private duplicateId(row: DatasetRow): RowProblem | undefined {
    if (row.id === undefined) return undefined;
    const first = this.ids.get(row.id);
    if (first === undefined) {
      this.ids.set(row.id, row.row);
      return undefined;
    }
    const id = row.id.length > ID_SHOWN ? `${row.id.slice(0, ID_SHOWN)}…` : row.id;
    const values = { id, first };
    return {
      ...numbered({
        row: row.row,
        reason: english(DUPLICATE_ID, values),
        reasonRef: ref(DUPLICATE_ID, values),
      }),
      kept: true,
      duplicateOf: first,
    };
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
    let detected: DatasetDescription = { ...proposal, ...this.decoder.encodingNote() };
    const overrides = this.options.overrides ?? [];
    if (this.mapping || overrides.length > 0) {
      const mapping = applyMappingOverrides(this.mapping ?? proposal.mapping, overrides);
      const problems = mappingProblems(mapping, proposal.columns);
      detected = {
        ...detected,
        kind: mapping.kind,
        mapping,
        mappingProblems: problems,
        ...described(
          describeDatasetRef(
            mapping,
            records,
            { count: records.length, final: false },
            proposal.task,
          ),
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
