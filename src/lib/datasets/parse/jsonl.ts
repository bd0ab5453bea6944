/**
 * JSONL: line by line; a line that is not a JSON object is a problem naming its line; blank lines
 * are skipped (and counted, so row numbers stay line numbers). A line over the limit is dropped as
 * it arrives, so no more than the limit of it is ever held.
 */
import { messageOf } from '../../errors.ts';
import { describeValue, tooLong, type Emit, type Rec, type Splitter } from './items.ts';

export class JsonlSplitter implements Splitter {
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
