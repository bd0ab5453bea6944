/** Text as older encodings save it, for the tests of files that are not UTF-8. */

/** Windows-1252's characters at 0x80–0x9F; the other bytes are Latin-1's (= U+0000–U+00FF). */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

/** `text` in Windows-1252; throws on a character it does not have. */
export function windows1252(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from([...text], (c) => {
    const code = c.codePointAt(0)!;
    const high = CP1252_HIGH.indexOf(c);
    if (high >= 0) return 0x80 + high;
    if (code < 0x80 || (code >= 0xa0 && code <= 0xff)) return code;
    throw new Error(`${c} is not in Windows-1252`);
  });
}
