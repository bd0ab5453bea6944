/**
 * A translated sentence with some of its arguments rendered as their own elements (a number a test
 * reads through a data-testid, a value in <strong>): the sentence stays one message, so word order
 * is each language's own, and the component places the elements where the message put them.
 */
const MARK = '\u2063';

export interface MessagePart {
  text: string;
  /** The argument this part stands for; absent for the message's own words. */
  slot?: string;
}

/** Marker values for `t(key, { ...values, ...slotMarkers(['calls']) })`. */
export function slotMarkers<S extends string>(names: readonly S[]): Record<S, string> {
  return Object.fromEntries(names.map((name) => [name, `${MARK}${name}${MARK}`])) as Record<
    S,
    string
  >;
}

/** The formatted message cut at its markers, in order. */
export function splitSlots(text: string): MessagePart[] {
  return text
    .split(MARK)
    .map((piece, i): MessagePart => (i % 2 === 1 ? { text: '', slot: piece } : { text: piece }))
    .filter((part) => part.slot !== undefined || part.text !== '');
}
