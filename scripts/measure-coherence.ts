/**
 * The shuffle test of local coherence on SummEval dev (tests/fixtures/external/data/summeval/
 * dev.jsonl): for each distinct source article (50), its first 12 sentences in the original order
 * against 5 seeded random shuffles of them; the figure is the share of (original, shuffled) pairs
 * where the original scores higher, ties counting one half. Per encoder (USE-lite, GloVe SIF) for
 * the sentence-order model (the card's score) and for the two cosine baselines, mean cosine of
 * sentence n with n+1 and with n+2.
 *
 * Writes src/lib/metrics/semantic/order-model/shuffle-report.json (the card's meaning quotes it)
 * and the table in docs/validity.md between the coherence-shuffle-table markers.
 *
 * Usage: npm run measure:coherence [-- --shuffles 5]
 * USE-lite vectors come from the cache of scripts/order-model/cached-embedder.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../src/lib/node/external-data.ts';
import { loadGloveEmbedder } from '../src/lib/node/load-glove.ts';
import { loadUseLiteEmbedder } from '../src/lib/node/load-use.ts';
import { scoreCoherenceOfSentences } from '../src/lib/metrics/semantic/coherence/coherence.ts';
import type { SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import type { MetricResult } from '../src/lib/metrics/types.ts';
import { CachedEmbedder } from './order-model/cached-embedder.ts';
import { devOpenings, OPENING_SENTENCES, prng, shuffled } from './order-model/data.ts';

const SEED = 20_240_601;
export const SHUFFLES = 5;
const REPORT = resolve(repoRoot, 'src/lib/metrics/semantic/order-model/shuffle-report.json');
const VALIDITY_PAGE = resolve(repoRoot, 'docs/validity.md');
const MARK = 'coherence-shuffle-table';

export type ScoreName = 'order' | 'pairs' | 'adjacent' | 'n2';
export const SCORES: { name: ScoreName; label: string }[] = [
  { name: 'order', label: 'order model (the score)' },
  { name: 'pairs', label: 'its pairs alone, mean P(next follows)' },
  { name: 'adjacent', label: 'cosine n/n+1' },
  { name: 'n2', label: 'cosine n/n+2' },
];

export interface ShuffleRow {
  encoder: 'use-lite' | 'glove';
  backend: string;
  /** Share of (original, shuffled) pairs with the original higher, ties ½, per score. */
  share: Record<ScoreName, number>;
}

export interface ShuffleReport {
  articles: number;
  sentences: number;
  shuffles: number;
  seed: number;
  pairs: number;
  rows: ShuffleRow[];
}

function valuesOf(r: MetricResult<'coherence'>): Record<ScoreName, number | null> {
  if (r.status !== 'ok') return { order: null, pairs: null, adjacent: null, n2: null };
  return {
    order: r.details.orderScore,
    pairs: r.details.orderMean,
    adjacent: r.details.adjacentMean,
    n2: r.details.n2Mean,
  };
}

const asSegments = (sentences: string[]) =>
  sentences.map((text) => ({ text, start: 0, end: text.length }));

/** The shuffle test of one encoder (npm run int8:agreement runs it for fp32 and int8 USE-lite). */
export async function shuffleTest(
  encoder: ShuffleRow['encoder'],
  embedder: SentenceEmbedder,
  shuffles: number,
): Promise<{ row: ShuffleRow; pairs: number; articles: number }> {
  const openings = devOpenings();
  const rand = prng(SEED);
  const wins: Record<ScoreName, number> = { order: 0, pairs: 0, adjacent: 0, n2: 0 };
  let pairs = 0;
  const cmp = (orig: number | null, shuf: number | null): number =>
    orig === null || shuf === null ? 0.5 : orig > shuf ? 1 : orig === shuf ? 0.5 : 0;
  for (const { sentences } of openings) {
    const orig = valuesOf(await scoreCoherenceOfSentences(asSegments(sentences), embedder));
    for (let s = 0; s < shuffles; s++) {
      const shuf = valuesOf(
        await scoreCoherenceOfSentences(asSegments(shuffled(sentences, rand)), embedder),
      );
      for (const { name } of SCORES) wins[name] += cmp(orig[name], shuf[name]);
      pairs++;
    }
  }
  const share = Object.fromEntries(
    SCORES.map(({ name }) => [name, Number((wins[name] / pairs).toFixed(4))]),
  ) as Record<ScoreName, number>;
  return { row: { encoder, backend: embedder.backend, share }, pairs, articles: openings.length };
}

function table(report: ShuffleReport): string {
  const lines = [
    `| Encoder | ${SCORES.map((s) => s.label).join(' | ')} |`,
    `| --- | ${SCORES.map(() => '---:').join(' | ')} |`,
  ];
  for (const row of report.rows) {
    lines.push(
      `| ${row.encoder} (\`${row.backend}\`) | ${SCORES.map((s) => row.share[s.name].toFixed(3)).join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

function writeReadme(report: ShuffleReport): void {
  const text = readFileSync(VALIDITY_PAGE, 'utf8');
  const open = `<!-- ${MARK} -->`;
  const close = `<!-- /${MARK} -->`;
  const a = text.indexOf(open);
  const b = text.indexOf(close);
  if (a < 0 || b < a) throw new Error(`docs/validity.md has no ${open} … ${close} block`);
  const block = [
    open,
    '<!-- prettier-ignore-start -->',
    `Shuffle test (\`npm run measure:coherence\`): the first ${report.sentences} sentences of each of the ${report.articles} SummEval dev source articles against ${report.shuffles} seeded shuffles each (${report.pairs} pairs per cell); the share where the original scores higher, ties count ½.`,
    '',
    table(report),
    '<!-- prettier-ignore-end -->',
    close,
  ].join('\n');
  writeFileSync(VALIDITY_PAGE, text.slice(0, a) + block + text.slice(b + close.length));
}

async function main(argv: string[]): Promise<void> {
  const shuffles = argv.includes('--shuffles')
    ? Number(argv[argv.indexOf('--shuffles') + 1])
    : SHUFFLES;
  const encoders = [
    {
      encoder: 'use-lite' as const,
      load: async () => new CachedEmbedder(await loadUseLiteEmbedder()),
    },
    { encoder: 'glove' as const, load: async () => loadGloveEmbedder() },
  ];
  const rows: ShuffleRow[] = [];
  let pairs = 0;
  let articles = 0;
  for (const e of encoders) {
    const got = await shuffleTest(e.encoder, await e.load(), shuffles);
    rows.push(got.row);
    pairs = got.pairs;
    articles = got.articles;
  }
  const report: ShuffleReport = {
    articles,
    sentences: OPENING_SENTENCES,
    shuffles,
    seed: SEED,
    pairs,
    rows,
  };
  console.log(
    `SummEval dev shuffle test: ${articles} article openings (first ${OPENING_SENTENCES} sentences) × ${shuffles} shuffles = ${pairs} (original, shuffled) pairs per cell, seed ${SEED}, ties ½.\n`,
  );
  console.log(table(report));
  writeFileSync(REPORT, JSON.stringify(report, null, 2) + '\n');
  writeReadme(report);
  console.log(`\nwrote ${REPORT} and the table in docs/validity.md`);
}

// Run as a command, not when int8-agreement imports the shuffle test.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
