/**
 * Texts too long for a text box. A browser lays out everything a textarea holds, on the page's
 * thread, at each paste, focus and resize: for 1.7 M characters a bare textarea took 3.4 s to
 * paste into and about a second per layout on this project's machine. Above LARGE_TEXT_CHARS a
 * box keeps the whole text (it is scored and saved in full) but shows its start and its end.
 */

/**
 * About 35,000 words of English: a long report still fits in the box, where a layout of the
 * whole text stays under a tenth of a second on a 2-core machine.
 */
export const LARGE_TEXT_CHARS = 200_000;

export function isLargeText(text: string): boolean {
  return text.length > LARGE_TEXT_CHARS;
}

export interface TextPreview {
  head: string;
  tail: string;
  /** Characters between the head and the tail, not shown. */
  hidden: number;
}

/** Where a cut near `at` lands on whitespace, searching back at most `slack` characters. */
function cutNear(text: string, at: number, slack = 200): number {
  for (let i = at; i > at - slack && i > 0; i--) if (/\s/u.test(text[i - 1]!)) return i;
  const code = text.charCodeAt(at - 1);
  // Never between the halves of a surrogate pair.
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/** The start and the end of a long text, cut at whitespace, for a box that cannot hold it all. */
export function textPreview(text: string, headChars = 2_000, tailChars = 600): TextPreview {
  if (text.length <= headChars + tailChars) return { head: text, tail: '', hidden: 0 };
  const headEnd = cutNear(text, headChars);
  const tailStart = text.length - tailChars;
  const tailCut = cutNear(text, tailStart);
  const tailFrom = tailCut > headEnd ? tailCut : tailStart;
  return {
    head: text.slice(0, headEnd),
    tail: text.slice(tailFrom),
    hidden: tailFrom - headEnd,
  };
}

/** What a textarea holds after `inserted` replaced its selection [start, end). */
export function spliced(value: string, start: number, end: number, inserted: string): string {
  return value.slice(0, start) + inserted + value.slice(end);
}

/** Line ends as a textarea's value has them (a paste of Windows text arrives with CRLF). */
export function textareaNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/gu, '\n') : text;
}

/**
 * Up to `windows` stretches of `windowChars` characters spread over the text (its start, its
 * middle, its end), each cut at whitespace; the text itself when it is short.
 */
export function spreadSample(text: string, windowChars: number, windows: number): string {
  if (text.length <= windowChars * windows) return text;
  const parts: string[] = [];
  for (let i = 0; i < windows; i++) {
    const from = windows === 1 ? 0 : Math.round(((text.length - windowChars) * i) / (windows - 1));
    const start = from === 0 ? 0 : cutNear(text, from);
    const end = start + windowChars;
    parts.push(text.slice(start, end >= text.length ? text.length : cutNear(text, end)));
  }
  return parts.join('\n');
}
