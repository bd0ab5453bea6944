/**
 * The texts the benches time, from SummEval dev (CNN/DailyMail news and its human summaries): a
 * 2,500-word source, a 500-word summary and reference, and "another summary" of 500 words by
 * another writer (SummEval has 11 references per article), whose sentences are all new to an
 * encoder that has seen the first. Shared so that the Node and the Chromium benches time the same
 * sentences.
 */
import { countWords } from '../src/lib/metrics/text/tokenize.ts';
import { readDevRows, type DevRow } from '../src/lib/node/validity/summeval.ts';

/** Whole paragraphs of `texts` up to `words` words, the last one cut (and closed with a period). */
export function takeWords(texts: Iterable<string>, words: number): string {
  const out: string[] = [];
  let n = 0;
  for (const text of texts) {
    for (const para of text.split(/\n+/u)) {
      const count = countWords(para);
      if (n + count > words) {
        out.push(
          para
            .split(/\s+/u)
            .slice(0, words - n)
            .join(' ') + '.',
        );
        return out.join('\n');
      }
      out.push(para);
      n += count;
    }
  }
  return out.join('\n');
}

export interface BenchTexts {
  source: string;
  summary: string;
  reference: string;
  otherSummary: string;
}

export function benchTexts(rows: readonly DevRow[] = readDevRows()): BenchTexts {
  const articles = [...new Map(rows.map((r) => [r.id, r.text])).values()];
  return {
    source: takeWords(articles, 2500),
    summary: takeWords(
      rows.map((r) => r.references[0] ?? ''),
      500,
    ),
    reference: takeWords(
      rows.slice(100).map((r) => r.references[1] ?? ''),
      500,
    ),
    otherSummary: takeWords(
      rows.map((r) => r.references[3] ?? ''),
      500,
    ),
  };
}
