/**
 * What the format splitters (jsonl.ts, json.ts, csv.ts) hand the parser: a record with its row
 * number, or a problem with that row; shared here so each splitter reports rows the same way.
 */
import type { MessageRef } from '../../i18n/message.ts';

export type Rec = Record<string, unknown>;

export type Item =
  | { row: number; record: Rec }
  | {
      row: number;
      problem: string;
      /** `problem` as a message, for the page to word in the reader's language. */
      problemRef?: MessageRef;
      column?: string;
      line?: number;
    };
export type Emit = (item: Item) => void;

/** Text in, in pieces of any size; records and problems out through the `Emit` it was given. */
export interface Splitter {
  push(text: string): void;
  end(): void;
}

const fmt = (n: number) => n.toLocaleString('en-US');

export function tooLong(chars: number, max: number): string {
  return `${fmt(chars)} characters, over the ${fmt(max)}-character limit for one row`;
}

export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}
