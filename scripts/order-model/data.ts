/**
 * The texts of the sentence-order model: training articles (QAGS CNN/DM and XSum, minus anything
 * that overlaps SummEval) and the SummEval dev article openings of the shuffle test.
 */
import { readFileSync } from 'node:fs';
import { externalPath } from '../../src/lib/node/external-data.ts';
import { splitSentences } from '../../src/lib/metrics/text/tokenize.ts';

export { mulberry32 as prng, shuffled } from '../../src/lib/stats/seeded-random.ts';

/** Sentences kept per training article: USE-lite in Node is slow, and openings carry the order. */
export const TRAIN_SENTENCES = 25;
/** The shuffle test's opening length. */
export const OPENING_SENTENCES = 12;
const OVERLAP_NGRAM = 12;
/** 1-based lines of mturk_cnndm.jsonl whose articles are in an evaluation set. */
const HELD_BACK_CNNDM_LINES = [3, 227];

const readJsonl = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

function ngrams(text: string, n = OVERLAP_NGRAM): Set<string> {
  const w = words(text);
  const out = new Set<string>();
  for (let i = 0; i + n <= w.length; i++) out.add(w.slice(i, i + n).join(' '));
  return out;
}

export interface DevRow {
  id: string;
  text: string;
  decoded: string;
}

export const readDev = (): DevRow[] => readJsonl<DevRow>(externalPath('data/summeval/dev.jsonl'));

export interface TrainingArticle {
  /** e.g. "cnndm:17" (file and 1-based line). */
  id: string;
  sentences: string[];
}

export interface TrainingSet {
  articles: TrainingArticle[];
  /** Why articles were left out, with counts. */
  excluded: { reason: string; count: number }[];
}

export function readTrainingArticles(): TrainingSet {
  const devGrams = new Set<string>();
  for (const row of readDev()) for (const g of ngrams(row.text)) devGrams.add(g);
  const seen = new Set<string>();
  const count = { heldBack: 0, overlap: 0, duplicate: 0, short: 0 };
  const articles: TrainingArticle[] = [];
  for (const file of ['cnndm', 'xsum'] as const) {
    const rows = readJsonl<{ article: string }>(externalPath(`data/qags/mturk_${file}.jsonl`));
    rows.forEach((row, i) => {
      const line = i + 1;
      const text = row.article.trim();
      if (file === 'cnndm' && HELD_BACK_CNNDM_LINES.includes(line)) return void count.heldBack++;
      if ([...ngrams(text)].some((g) => devGrams.has(g))) return void count.overlap++;
      const key = words(text).join(' ');
      if (seen.has(key)) return void count.duplicate++;
      seen.add(key);
      const sentences = splitSentences(text)
        .map((s) => s.text)
        .filter((s) => words(s).length > 0)
        .slice(0, TRAIN_SENTENCES);
      // A pair and three other sentences to contrast it with.
      if (sentences.length < 5) return void count.short++;
      articles.push({ id: `${file}:${line}`, sentences });
    });
  }
  return {
    articles,
    excluded: [
      {
        reason: `mturk_cnndm.jsonl lines ${HELD_BACK_CNNDM_LINES.join(', ')} (in an evaluation set)`,
        count: count.heldBack,
      },
      {
        reason: `share a ${OVERLAP_NGRAM}-word run with a SummEval dev source`,
        count: count.overlap,
      },
      { reason: 'duplicate of an earlier article', count: count.duplicate },
      { reason: 'fewer than 5 sentences', count: count.short },
    ],
  };
}

/** Each distinct SummEval dev source's first sentences, in order of first appearance. */
export function devOpenings(): { id: string; sentences: string[] }[] {
  const out = new Map<string, string[]>();
  for (const row of readDev()) {
    if (out.has(row.id)) continue;
    out.set(
      row.id,
      splitSentences(row.text)
        .slice(0, OPENING_SENTENCES)
        .map((s) => s.text),
    );
  }
  return [...out].map(([id, sentences]) => ({ id, sentences }));
}
