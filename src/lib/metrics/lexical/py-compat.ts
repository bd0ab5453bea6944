/**
 * Small Python string semantics the reference tools rely on, so that our ports split text
 * exactly where the Python originals do.
 */

/**
 * The characters Python's `str.split()` (no argument) splits on. JS `\s` differs: it lacks
 * U+001C–U+001F and U+0085 and adds U+FEFF.
 */
export const PY_WHITESPACE =
  // eslint-disable-next-line no-control-regex -- Python's whitespace includes U+001C–U+001F.
  /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/** Python `s.split()`: split on runs of whitespace, no empty strings. */
export function pySplit(s: string): string[] {
  return s.split(PY_WHITESPACE).filter((w) => w.length > 0);
}

/** Python `s.rstrip()`. */
export function pyRstrip(s: string): string {
  return s.replace(new RegExp(`${PY_WHITESPACE.source}$`, 'u'), '');
}
