/**
 * A translated sentence with one element inside it (a <code> name, a link): the message is worded
 * with a marker in the argument's place and cut there, so the sentence stays one message in every
 * language (word order differs) while the template renders the element between the two halves.
 */
export const SLOT = '\u0000';

export function aroundSlot(text: string): [before: string, after: string] {
  const at = text.indexOf(SLOT);
  if (at < 0) return [text, ''];
  return [text.slice(0, at), text.slice(at + SLOT.length)];
}
