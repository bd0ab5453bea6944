/**
 * CSV as every SumLens export writes it (papaparse): CRLF lines, and spreadsheet-safe. A text cell
 * starting with = + - @ (or a tab or carriage return) is prefixed with ' so that no spreadsheet runs
 * it as a formula (OWASP "CSV injection"), and so is one where they follow blanks or line breaks
 * (" =1+1", "\n=1+1": an import that trims cells, as LibreOffice's can, would run it) or come in
 * their full-width or small forms (＝ ＋ － ＠ ﹦ ﹢ ﹣ ﹫, which spreadsheets with East Asian input
 * read as the ASCII ones); numbers are written as numbers, a missing one as an empty cell.
 */
import Papa from 'papaparse';

/**
 * Cells a spreadsheet would read as a formula: = + - @ or their full-width and small forms, after
 * any blanks (\s: spaces, tabs, line breaks, no-break and ideographic spaces), or a leading tab or
 * carriage return (OWASP).
 */
const FORMULA_START = /^\s*[=+\-@\uff1d\uff0b\uff0d\uff20\ufe66\ufe62\ufe63\ufe6b]|^[\t\r]/u;

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
