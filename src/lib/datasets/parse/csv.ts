/**
 * CSV: papaparse (header row, quoted newlines, delimiter guessed from the first 64 KB), fed through
 * a push stream so it parses as the chunks come; the row number counts the header as row 1 (a
 * spreadsheet's row number).
 */
import Papa from 'papaparse';
import { asError } from '../../errors.ts';
import { tooLong, type Emit, type Rec, type Splitter } from './items.ts';

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

export class CsvSplitter implements Splitter {
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
