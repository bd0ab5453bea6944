/**
 * The one way an unknown thrown value becomes words for a person or an Error for a rethrow:
 * `throw` in JavaScript may carry anything (strings from libraries, DOMExceptions, plain objects).
 */

/** The message of an Error, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The thrown value as an Error, so callers can rethrow or chain it with `cause`. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
