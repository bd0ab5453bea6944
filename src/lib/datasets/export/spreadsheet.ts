/**
 * CSV as every SumLens export writes it (papaparse): CRLF lines, and spreadsheet-safe. A text cell
 * starting with = + - @ (or a tab or carriage return) is prefixed with ' so that no spreadsheet runs
 * it as a formula (OWASP "CSV injection"); numbers are written as numbers, a missing one as an
 * empty cell.
 */
import Papa from 'papaparse';

/** Cells a spreadsheet would read as a formula (OWASP: = + - @, tab, carriage return). */
const FORMULA_START = /^[=+\-@\t\r]/u;

/** A text cell made safe for spreadsheets: a leading ' stops formula evaluation. */
export function spreadsheetSafe(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** A header line and one line per row; text cells (the header's too) made spreadsheet-safe. */
export function csvText(fields: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return Papa.unparse(
    {
      fields: fields.map(spreadsheetSafe),
      data: rows.map((cells) => cells.map((c) => (typeof c === 'string' ? spreadsheetSafe(c) : c))),
    },
    // Formula cells are escaped above (papaparse's own `escapeFormulae` misses multi-line cells).
    { newline: '\r\n', quotes: false },
  );
}
