/**
 * A message whose sentence holds markup (a `<code>` name) at the places of its arguments: the
 * message is worded whole, in the reader's word order, then cut at the markers so the template
 * can put the markup between the pieces. Never a sentence assembled from fragments.
 */
const MARK = '\u0000';

/** The values to pass for `names`: each argument becomes a marker. */
export function markers(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, MARK]));
}

/** The message's text around its markers, in order (one more piece than markers). */
export function pieces(worded: string): string[] {
  return worded.split(MARK);
}
