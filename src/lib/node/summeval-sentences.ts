/**
 * Node-only: real sentences for encoder checks and benches: the SummEval dev source articles
 * (CNN/DailyMail news, vendored), split as the metrics split them.
 */
import { splitSentences, splitWords } from '../metrics/text/tokenize.ts';
import { readDevRows } from './validity/summeval.ts';

/** The distinct source articles, in file order. */
export function devSources(): string[] {
  return [...new Set(readDevRows().map((row) => row.text))];
}

/** The first `count` distinct non-empty sentences of the sources, in order. */
export function devSourceSentences(count: number): string[] {
  const sentences = new Set<string>();
  for (const source of devSources()) {
    for (const { text } of splitSentences(source)) {
      if (text.trim()) sentences.add(text.trim());
      if (sentences.size === count) return [...sentences];
    }
  }
  throw new Error(`SummEval dev sources have only ${sentences.size} sentences; ${count} asked.`);
}

/**
 * Whole sentences of the sources, in order, until they hold at least `words` words: one long
 * source of real news (the sources are shorter than the lengths a bench needs).
 */
export function devSourceOfWords(words: number): string {
  const sentences: string[] = [];
  let total = 0;
  for (const source of devSources()) {
    for (const { text } of splitSentences(source)) {
      sentences.push(text);
      total += splitWords(text).length;
      if (total >= words) return sentences.join(' ');
    }
  }
  throw new Error(`SummEval dev sources have only ${total} words; ${words} asked.`);
}
