/**
 * CSV: records split by csv-records.ts (so that a stray quote costs its own row, not the rows
 * after it), their fields read by papaparse (header row, quoted newlines, `""`), fed through a
 * push stream so it parses as the chunks come. The delimiter and line end are guessed by
 * papaparse from the first 64 KB, as before, and given to both. The row number counts the header
 * as row 1 (a spreadsheet's row number).
 */
import Papa from 'papaparse';
import { asError } from '../../errors.ts';
import { english, ref, type MessageRef } from '../../i18n/message.ts';
import { CsvRecords, type QuoteTrouble } from './csv-records.ts';
import { tooLong, type Emit, type Item, type Rec, type Splitter } from './items.ts';

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

/** Characters of the line shown around a bad quote. */
const BEFORE = 20;
const AFTER = 30;

/** The bit of `line` around a bad quote, as the problem shows it: `…of text"here…`. */
function excerpt(line: string, trouble: QuoteTrouble): string {
  // An unclosed quote is shown from itself; a stray one with the text it should have closed.
  const from = trouble.kind === 'unclosed' ? trouble.at : Math.max(0, trouble.at - BEFORE);
  const to = Math.min(line.length, trouble.at + 1 + AFTER);
  return `${from > 0 && trouble.kind === 'stray' ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`;
}

export class CsvSplitter implements Splitter {
  private readonly stream = new PushStream();
  /** Text before the delimiter and the line end are known (the first block). */
  private head = '';
  private records?: CsvRecords;
  /** Records waiting to go to papaparse. */
  private block = '';
  /** The rows sent to papaparse (their numbers) and the bad rows between them, in file order. */
  private queue: Array<number | Item> = [];
  private next = 0;
  private header?: string[];
  private record = 0;
  private failure: unknown;

  constructor(
    private readonly emit: Emit,
    private readonly max: number,
  ) {}

  push(text: string): void {
    if (!this.records) {
      this.head += text;
      if (this.head.length < CSV_BLOCK) return;
      this.start();
      return;
    }
    this.records.push(text);
    if (this.block.length >= CSV_BLOCK) this.flush();
  }

  end(): void {
    if (!this.records) this.start();
    this.records!.end();
    this.flush();
    this.stream.close();
    this.rethrow();
    this.drain();
  }

  /** Guesses the delimiter and line end from the first block, as papaparse's streamer did. */
  private start(): void {
    const { delimiter, linebreak } = Papa.parse(this.head, { preview: 1 }).meta;
    const newline = linebreak === '\r\n' || linebreak === '\r' ? linebreak : '\n';
    Papa.parse(this.stream as unknown as NodeJS.ReadableStream, {
      header: true,
      delimiter,
      newline,
      skipEmptyLines: false,
      transformHeader: (h: string) => h.trim(),
      step: (results: Papa.ParseStepResult<Rec>) => {
        try {
          this.drain();
          const row = this.queue[this.next++];
          if (typeof row !== 'number')
            throw new Error('CSV: papaparse read a row the splitter did not');
          this.onRow(row, results);
        } catch (error) {
          this.failure ??= error;
        }
      },
      error: (error: Error) => {
        this.failure ??= error;
      },
    });
    this.records = new CsvRecords(delimiter, newline, {
      record: (text) => {
        this.block += text;
        this.record++;
        if (this.record === 1) {
          this.header = (Papa.parse<string[]>(text, { delimiter, newline }).data[0] ?? []).map(
            (h) => h.trim(),
          );
        } else {
          this.queue.push(this.record);
        }
      },
      broken: (line, trouble) => {
        this.record++;
        this.queue.push({ row: this.record, ...this.quoteProblem(line, trouble) });
      },
    });
    const head = this.head;
    this.head = '';
    this.records.push(head);
  }

  private quoteProblem(
    line: string,
    trouble: QuoteTrouble,
  ): { problem: string; problemRef: MessageRef } {
    const key =
      trouble.kind === 'unclosed'
        ? 'datasets.problem.csvUnclosedQuote'
        : 'datasets.problem.csvStrayQuote';
    const values = {
      column: this.header?.[trouble.field] || `#${trouble.field + 1}`,
      text: excerpt(line, trouble),
      rescanned: trouble.rescanned ? 'yes' : 'no',
    };
    return { problem: english(key, values), problemRef: ref(key, values) };
  }

  private flush(): void {
    if (this.block !== '') {
      const text = this.block;
      this.block = '';
      this.stream.write(text);
      this.rethrow();
    }
    this.drain();
  }

  /** Emits the bad rows that come before the next row papaparse has yet to read. */
  private drain(): void {
    for (let item = this.queue[this.next]; item !== undefined && typeof item !== 'number';) {
      this.next++;
      this.emit(item);
      item = this.queue[this.next];
    }
    if (this.next > 1024 && this.next * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.next);
      this.next = 0;
    }
  }

  private rethrow(): void {
    if (this.failure !== undefined) {
      const error = this.failure;
      this.failure = undefined;
      throw asError(error);
    }
  }

  private onRow(row: number, results: Papa.ParseStepResult<Rec>): void {
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
