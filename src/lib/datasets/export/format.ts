/**
 * How the exports write numbers and cells, shared by the run and comparison exports and by the
 * compare view, so that a page and the files made from it read the same. For people: three
 * decimals, a sign on every difference, p-values as papers print them. For programs (JSON, CSV):
 * numbers rounded so that float noise (0.30000000000000004) does not reach a spreadsheet, p-values
 * to significant digits so that a p of 1e-9 is not rounded to 0.
 */

function missing(value: number | null | undefined): value is null | undefined {
  return value === null || value === undefined || !Number.isFinite(value);
}

/** A score for people: `digits` decimals, a dash when there is none. */
export function fixed(value: number | null | undefined, digits = 3): string {
  return missing(value) ? '—' : value.toFixed(digits);
}

/** A difference for people: always signed (+, −, ±), a dash when there is none. */
export function signed(value: number | null | undefined, digits = 3): string {
  if (missing(value)) return '—';
  return `${value > 0 ? '+' : value < 0 ? '−' : '±'}${Math.abs(value).toFixed(digits)}`;
}

/** A p-value as people read one: three decimals, "< 0.001" below that. */
export function formatP(p: number | null | undefined): string {
  if (missing(p)) return '—';
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

/** Decimals a score or a difference keeps in a file for programs. */
export const FILE_DECIMALS = 6;

/** A score or difference for a file: FILE_DECIMALS decimals, null when there is none. */
export function rounded(value: number | null | undefined): number | null {
  if (missing(value)) return null;
  const r = Number(value.toFixed(FILE_DECIMALS));
  // -0 would print as 0 in JSON but as "-0" in some spreadsheets' parsers.
  return r === 0 ? 0 : r;
}

/** A p-value for a file: six significant digits, null when there is none. */
export function roundedP(p: number | null | undefined): number | null {
  return missing(p) ? null : Number(p.toPrecision(6));
}

/**
 * Text from the data (a name, a label, an id, a backend) as Markdown that shows it as written and
 * forms nothing, in a table cell or a line: no link or image from `[x](javascript:…)` or
 * `![](https://…)`, no HTML from `<img onerror=…>`, no code span, emphasis or broken table from
 * backticks, `*`, `~`, `_` or pipes. Those characters and backslashes are backslash-escaped
 * (CommonMark lets any ASCII punctuation be), `&` and `<` are written as entities, what GitHub
 * would link by itself (`https://`, `www.`, an address with @) is broken up the same way, and
 * lines are joined. An `_` inside a word (`model_id`) is no emphasis and is left alone.
 */
export function markdownCell(text: string): string {
  return text
    .replace(/[\\`*[\]|~]/gu, '\\$&')
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
    .replace(/&/gu, '&amp;')
    .replace(/</gu, '&lt;')
    .replace(/:\/\//gu, '\\://')
    .replace(/\b(www)\./giu, '$1\\.')
    .replace(/@/gu, '\\@')
    .replace(/\r\n|\r|\n/gu, ' ');
}

/** A time as the reports print it, to the minute in UTC: "2026-01-05 08:00 UTC". */
export function utcMinute(timestamp: number): string {
  return new Date(timestamp).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}
