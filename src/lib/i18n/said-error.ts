/**
 * An Error that carries its message as a ref: thrown on the page thread where the catcher words it
 * in the reader's language (a worker's errors cross as text and stay English).
 */
import { messageOf } from '../errors.ts';
import { englishRef, type MessageRef } from './message.ts';

export class SaidError extends Error {
  constructor(
    readonly said: MessageRef,
    options?: ErrorOptions,
  ) {
    super(englishRef(said), options);
  }
}

/** What an error says: its message where it has one, else its own words. */
export function said(error: unknown): MessageRef | string {
  return error instanceof SaidError ? error.said : messageOf(error);
}
