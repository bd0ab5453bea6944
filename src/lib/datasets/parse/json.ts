/**
 * JSON: a top-level array, or a stream of concatenated values (TinyEval's GAOKAO_math.jsonl); each
 * element is one record, numbered from 1; only the current record is held in memory.
 */
import { messageOf } from '../../errors.ts';
import { describeValue, tooLong, type Emit, type Rec, type Splitter } from './items.ts';

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
export class JsonSplitter implements Splitter {
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
