/**
 * Splits CSV text into records before papaparse reads their fields, so that one stray quote costs
 * one row. papaparse reads an unclosed quote as a field that runs on to the next quote or to the
 * end of the file: every row after it is swallowed into one bad record (a 1,000-row file loaded 2
 * rows), or, when the next quote closes the field, two rows merge and every later row number is
 * off by one. Its streamer says nothing about physical lines, and by the time it reports the error
 * the swallowed rows are gone, so the splitting is done here: the same quote rules as papaparse
 * 5.7's parser (a quote opens a field only as its first character; `""` inside is a quote; a
 * closing quote is followed, after blanks, by the delimiter or the line end; any other quote is
 * text and the field goes on), scanned incrementally, with recovery:
 *
 * A record that spans several physical lines and is malformed (a closing quote followed by text,
 * a field count other than the header's, or a quote still open at the end of the file) is read
 * again: its first physical line is reported as the bad row, naming the quote, and scanning
 * restarts at the next physical line as the next row. A well-formed multi-line record (a quoted
 * paragraph, `""` quotes) is one record, exactly as before. A malformed record on one line is just
 * that row.
 *
 * Memory holds the record being scanned: one row for normal files; a quote left open holds the
 * text up to where the record turns out malformed (the next quote, or the end of the file).
 */

/** What was wrong with a quote of a bad row; offsets are into `line`. */
export interface QuoteTrouble {
  /**
   * `unclosed`: the quoted field is still open at the end of its line (it ran to the end of the
   * file, or over lines that do not fit as the rest of the row). `stray`: a quote that should close
   * the field is followed by more text.
   */
  kind: 'unclosed' | 'stray';
  /** The field (0-based) the quote opened. */
  field: number;
  /** Where that field's opening quote is. */
  at: number;
  /** Whether the lines after `line` are read again as rows of their own. */
  rescanned: boolean;
}

export interface RecordSink {
  /** A record, the header first: its text with its line end. */
  record(text: string): void;
  /** A row left out for a quote; `line` without its line end. */
  broken(line: string, trouble: QuoteTrouble): void;
}

const QUOTE = 0x22;

// Where the scanner is inside the current record.
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** Just after a quote inside a quoted field: a second quote makes it text. */
const QUOTE_SEEN = 3;
/** After a closing quote: only blanks may come before the delimiter or the line end. */
const CLOSED = 4;
type Mode =
  typeof FIELD_START | typeof UNQUOTED | typeof QUOTED | typeof QUOTE_SEEN | typeof CLOSED;

/** What String.prototype.trim removes, as papaparse tests the text after a closing quote. */
const isBlank = (c: string) => c.trim() === '';

export class CsvRecords {
  private readonly delimiter: number;
  private readonly newline: string;
  /** The current record's text from earlier chunks. */
  private parts: string[] = [];
  private partsLength = 0;
  /** A '\r' at a chunk's end when lines end with '\r\n': the next chunk says which it is. */
  private carry = '';
  private mode: Mode = FIELD_START;
  private field = 0;
  /** Record offset of the current quoted field's opening quote. */
  private quoteAt = 0;
  /** Record offset of the last quote seen in a quoted field (a closing one, perhaps). */
  private closeAt = 0;
  /** Record offset where the record's second physical line starts; -1 on its first line. */
  private secondLine = -1;
  /** The quoted field open at the end of the record's first line. */
  private open?: { field: number; at: number };
  /** The first closing quote followed by text. */
  private stray?: { field: number; at: number };
  /** The header's field count, once the header is read (it is never read again). */
  private fields?: number;

  constructor(
    delimiter: string,
    newline: '\n' | '\r' | '\r\n',
    private readonly sink: RecordSink,
  ) {
    if (delimiter.length !== 1) throw new Error(`CSV delimiter of ${delimiter.length} characters`);
    this.delimiter = delimiter.charCodeAt(0);
    this.newline = newline;
  }

  push(text: string): void {
    this.scan(this.carry + text, false);
  }

  end(): void {
    this.scan(this.carry, true);
  }

  private scan(s: string, final: boolean): void {
    this.carry = '';
    const nl = this.newline;
    if (!final && nl === '\r\n' && s.endsWith('\r')) {
      this.carry = '\r';
      s = s.slice(0, -1);
    }
    const first = nl.charCodeAt(0);
    const delimiter = String.fromCharCode(this.delimiter);
    /** Where the current record's text starts in `s`. */
    let seg = 0;
    let i = 0;
    // The next delimiter and line end at or after `i` (`s.length` when there is none).
    let delimiterAt = -1;
    let newlineAt = -1;
    const found = (at: number) => (at < 0 ? s.length : at);
    const offset = (at: number) => this.partsLength + at - seg;
    const isNewline = (at: number) =>
      s.charCodeAt(at) === first && (nl.length === 1 || s.charCodeAt(at + 1) === 0x0a);
    /** Reads the record's first line as a bad row and the rest of `s` again as new rows. */
    const rescan = () => {
      const text = this.take(s, seg, s.length);
      const line = text.slice(0, this.secondLine - nl.length);
      const open = this.open!;
      const stray = this.stray && this.stray.at < line.length ? this.stray : undefined;
      const rest = text.slice(this.secondLine);
      this.reset();
      this.sink.broken(line, {
        kind: stray ? 'stray' : 'unclosed',
        ...(stray ?? open),
        rescanned: true,
      });
      s = rest;
      seg = 0;
      i = 0;
      delimiterAt = -1;
      newlineAt = -1;
    };
    /** The record ends at `end` (after its line end, or at the end of the file). */
    const finish = (end: number): boolean => {
      const fields = this.field + 1;
      if (this.fields !== undefined && this.secondLine >= 0 && fields !== this.fields) {
        rescan();
        return false;
      }
      const text = this.take(s, seg, end);
      const stray = this.fields !== undefined ? this.stray : undefined;
      this.reset();
      if (stray) {
        this.sink.broken(text.endsWith(nl) ? text.slice(0, -nl.length) : text, {
          kind: 'stray',
          ...stray,
          rescanned: false,
        });
      } else {
        this.fields ??= fields;
        this.sink.record(text);
      }
      seg = end;
      i = end;
      return true;
    };

    for (;;) {
      while (i < s.length) {
        switch (this.mode) {
          case FIELD_START:
            if (s.charCodeAt(i) === QUOTE) {
              this.quoteAt = offset(i);
              i++;
              this.mode = QUOTED;
            } else {
              // The character starts an unquoted field: read it as one.
              this.mode = UNQUOTED;
            }
            break;
          case UNQUOTED: {
            // The field runs to the next delimiter or line end (a quote in it is text).
            if (delimiterAt < i) delimiterAt = found(s.indexOf(delimiter, i));
            if (newlineAt < i) newlineAt = found(s.indexOf(nl, i));
            if (delimiterAt < newlineAt) {
              this.field++;
              this.mode = FIELD_START;
              i = delimiterAt + 1;
            } else if (newlineAt < s.length) {
              finish(newlineAt + nl.length);
            } else {
              i = s.length;
            }
            break;
          }
          case QUOTED: {
            const quote = s.indexOf('"', i);
            if (this.secondLine < 0) {
              if (newlineAt < i) newlineAt = found(s.indexOf(nl, i));
              if (newlineAt < s.length && (quote < 0 || newlineAt < quote)) {
                this.secondLine = offset(newlineAt + nl.length);
                this.open = { field: this.field, at: this.quoteAt };
                i = newlineAt + nl.length;
                // A quote already gone wrong on this line: the field is not text running on.
                if (this.stray && this.fields !== undefined) rescan();
                break;
              }
            }
            if (quote < 0) {
              i = s.length;
            } else {
              this.closeAt = offset(quote);
              this.mode = QUOTE_SEEN;
              i = quote + 1;
            }
            break;
          }
          case QUOTE_SEEN:
            if (s.charCodeAt(i) === QUOTE) {
              this.mode = QUOTED;
              i++;
            } else {
              this.mode = CLOSED;
            }
            break;
          case CLOSED: {
            const c = s.charCodeAt(i);
            if (c === this.delimiter) {
              this.field++;
              this.mode = FIELD_START;
              i++;
            } else if (isNewline(i)) {
              finish(i + nl.length);
            } else if (isBlank(s[i]!)) {
              i++;
            } else {
              // Text after the quote: it was part of the field, which goes on (as papaparse).
              this.stray ??= { field: this.field, at: this.closeAt };
              this.mode = QUOTED;
              if (this.secondLine >= 0 && this.fields !== undefined) rescan();
            }
            break;
          }
        }
      }
      if (!final) {
        this.parts.push(s.slice(seg));
        this.partsLength += s.length - seg;
        return;
      }
      if (this.partsLength === 0 && seg === s.length) return;
      // The end of the file. A quote followed by nothing closes its field; one followed by blanks
      // does not (papaparse's rule), nor does no quote at all.
      const unclosed = this.mode === QUOTED || this.mode === CLOSED;
      if (!unclosed) {
        if (finish(s.length)) return;
        continue;
      }
      if (this.fields !== undefined && this.secondLine >= 0) {
        rescan();
        continue;
      }
      const text = this.take(s, seg, s.length);
      const trouble = this.stray ?? { field: this.field, at: this.quoteAt };
      const header = this.fields === undefined;
      this.reset();
      if (header) this.sink.record(text);
      else
        this.sink.broken(text, {
          kind: this.stray ? 'stray' : 'unclosed',
          ...trouble,
          rescanned: false,
        });
      return;
    }
  }

  /** The current record's text: the earlier chunks' and `s` from `from` to `to`. */
  private take(s: string, from: number, to: number): string {
    const tail = s.slice(from, to);
    if (this.parts.length === 0) return tail;
    this.parts.push(tail);
    const text = this.parts.join('');
    this.parts = [];
    this.partsLength = 0;
    return text;
  }

  private reset(): void {
    this.parts = [];
    this.partsLength = 0;
    this.mode = FIELD_START;
    this.field = 0;
    this.secondLine = -1;
    this.open = undefined;
    this.stray = undefined;
  }
}
