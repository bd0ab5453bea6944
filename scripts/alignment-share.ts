/**
 * `npm run alignment:share [-- --articles N] [-- --qags N] [-- --no-encoder]`: how often the
 * sentence aligner (src/lib/metrics/text/aligner.ts) aligns a summary sentence to a source
 * sentence that holds its words, and the grid search that chose the aligner's weights.
 *
 * Measure: among summary sentences that have a source sentence holding ≥ 60% of their distinct
 * content stems ("eligible"), the share aligned to such a sentence. Source sentences are those the
 * encoder metrics embed (sourceSentencesForEmbedding: the first SOURCE_SENTENCE_CAP), summary
 * sentences are split as the metrics split them (SummEval) or as QAGS's annotators saw them.
 * Cosines: USE-lite, the page's default encoder, through its disk cache.
 *
 * Choice: score = (1 − w)·lexical + w·cosine, w on 0, 0.05, …, 1 and BM25 length normalisation b
 * on {0, 0.3, 0.5, 0.75}; tuned on SummEval dev only (QAGS held out): the largest w whose share
 * stays ≥ 99% (so that the encoder decides as much as it can without overruling the words), and,
 * among the b reaching it, the one with the highest share at that w.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { readDevRows } from '../src/lib/node/validity/summeval.ts';
import { loadUseLiteEmbedder } from '../src/lib/node/load-use.ts';
import { sourceSentencesForEmbedding } from '../src/lib/metrics/semantic/source-sentences.ts';
import { splitSentences } from '../src/lib/metrics/text/tokenize.ts';
import {
  alignSentences,
  contentStemsOf,
  COSINE_WEIGHT,
  LENGTH_B,
} from '../src/lib/metrics/text/aligner.ts';
import type { Segment } from '../src/lib/metrics/text/tokenize.ts';

/** Cosine as coherence.ts computes it (null for a zero vector); not imported, to keep this script off the metric registry. */
function cosine(a: Float32Array, b: Float32Array): number | null {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? null : dot / Math.sqrt(na * nb);
}

const ELIGIBLE_AT = 0.6;
const TUNE_SHARE = 0.99;
const WEIGHTS = Array.from({ length: 21 }, (_, i) => i / 20);
const LENGTH_BS = [0, 0.3, 0.5, 0.75];

const argValue = (name: string): number | undefined => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : undefined;
};
const withEncoder = !process.argv.includes('--no-encoder');

interface Case {
  summary: Segment[];
  source: Segment[];
  /** Cosines [summary][source], when the encoder ran. */
  cosines?: (number | null)[][];
  /** Per summary sentence: indexes of source sentences holding ≥ 60% of its stems. */
  good: Set<number>[];
}

function segmentsOf(texts: readonly string[]): Segment[] {
  let at = 0;
  return texts.map((text) => {
    const s = { text, start: at, end: at + text.length };
    at += text.length + 1;
    return s;
  });
}

function goodSentences(summary: readonly Segment[], source: readonly Segment[]): Set<number>[] {
  const sourceStems = source.map((s) => new Set(contentStemsOf(s.text)));
  return summary.map((s) => {
    const stems = contentStemsOf(s.text);
    const good = new Set<number>();
    if (stems.length === 0) return good;
    sourceStems.forEach((set, i) => {
      if (stems.filter((t) => set.has(t)).length / stems.length >= ELIGIBLE_AT) good.add(i);
    });
    return good;
  });
}

function makeCase(summary: Segment[], source: string): Case {
  const sourceSegments = sourceSentencesForEmbedding(source).sentences;
  return { summary, source: sourceSegments, good: goodSentences(summary, sourceSegments) };
}

function summEvalCases(articles?: number): Case[] {
  return readDevRows(articles).map((r) => makeCase(splitSentences(r.decoded), r.text));
}

function qagsCases(limit?: number): Case[] {
  const cases: Case[] = [];
  for (const file of ['mturk_cnndm.jsonl', 'mturk_xsum.jsonl']) {
    const lines = readFileSync(resolve('tests/fixtures/external/data/qags', file), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(0, limit);
    for (const line of lines) {
      const row = JSON.parse(line) as {
        article: string;
        summary_sentences: Array<{ sentence: string }>;
      };
      cases.push(makeCase(segmentsOf(row.summary_sentences.map((s) => s.sentence)), row.article));
    }
  }
  return cases;
}

async function addCosines(cases: Case[]): Promise<void> {
  const use = await loadUseLiteEmbedder({ diskCache: true });
  const started = performance.now();
  for (const c of cases) {
    const summary = await use.embed(c.summary.map((s) => s.text));
    const source = await use.embed(c.source.map((s) => s.text));
    c.cosines = summary.map((v) => source.map((w) => cosine(v, w)));
  }
  console.log(
    `  (embedded ${cases.length} cases in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
}

interface Share {
  eligible: number;
  aligned: number;
  share: number;
}

function share(cases: readonly Case[], cosineWeight: number | null, lengthB: number): Share {
  let eligible = 0;
  let aligned = 0;
  for (const c of cases) {
    const cosines = c.cosines;
    const result = alignSentences(c.summary, c.source, {
      lengthB,
      ...(cosineWeight === null || !cosines
        ? {}
        : { cosineWeight, cosine: (i: number, j: number) => cosines[i]![j] ?? null }),
    });
    result.forEach((a, i) => {
      if (c.good[i]!.size === 0) return;
      eligible++;
      if (c.good[i]!.has(a.index)) aligned++;
    });
  }
  return { eligible, aligned, share: aligned / Math.max(1, eligible) };
}

const pct = (s: Share): string => `${(s.share * 100).toFixed(1)}% (${s.aligned}/${s.eligible})`;

const summevalArticles = argValue('--articles');
const qagsLimit = argValue('--qags');
const sets: Array<{ name: string; cases: Case[] }> = [
  {
    name: `SummEval dev${summevalArticles ? ` (first ${summevalArticles} articles)` : ''}`,
    cases: summEvalCases(summevalArticles),
  },
  {
    name: `QAGS CNN/DM + XSum${qagsLimit ? ` (first ${qagsLimit} rows of each)` : ''}`,
    cases: qagsCases(qagsLimit),
  },
];
if (withEncoder) {
  for (const set of sets) {
    console.log(`Embedding ${set.name} with USE-lite…`);
    await addCosines(set.cases);
  }
}

// Tuning, on SummEval dev only.
const tune = sets[0]!.cases;
if (withEncoder) {
  console.log(
    `\nGrid on ${sets[0]!.name}: share for cosine weight w (rows) and length b (columns)`,
  );
  console.log(`| w | ${LENGTH_BS.map((b) => `b=${b}`).join(' | ')} |`);
  console.log(`|---|${LENGTH_BS.map(() => '---').join('|')}|`);
  let chosen: { w: number; b: number; share: number } | null = null;
  for (const w of WEIGHTS) {
    const row = LENGTH_BS.map((b) => ({ b, s: share(tune, w, b) }));
    console.log(
      `| ${w.toFixed(2)} | ${row.map((r) => (r.s.share * 100).toFixed(1)).join(' | ')} |`,
    );
    for (const r of row) {
      if (r.s.share < TUNE_SHARE) continue;
      if (!chosen || w > chosen.w || (w === chosen.w && r.s.share > chosen.share)) {
        chosen = { w, b: r.b, share: r.s.share };
      }
    }
  }
  console.log(
    chosen
      ? `Chosen: largest w with share ≥ ${TUNE_SHARE * 100}%: w = ${chosen.w}, b = ${chosen.b} (aligner.ts has COSINE_WEIGHT = ${COSINE_WEIGHT}, LENGTH_B = ${LENGTH_B})`
      : `No w reaches ${TUNE_SHARE * 100}%.`,
  );
} else {
  console.log(`\nLexical only on ${sets[0]!.name}, by length b:`);
  for (const b of LENGTH_BS) console.log(`  b=${b}: ${pct(share(tune, null, b))}`);
}

console.log(
  `\nShare of eligible summary sentences (a source sentence holds ≥ ${ELIGIBLE_AT * 100}% of their content stems) aligned to such a sentence (w = ${COSINE_WEIGHT}, b = ${LENGTH_B}):`,
);
console.log('| data set | lexical only | combined (USE-lite) | encoder only (old) |');
console.log('|---|---|---|---|');
for (const set of sets) {
  const lexical = share(set.cases, null, LENGTH_B);
  const combined = withEncoder ? pct(share(set.cases, COSINE_WEIGHT, LENGTH_B)) : '–';
  const encoder = withEncoder ? pct(share(set.cases, 1, LENGTH_B)) : '–';
  console.log(`| ${set.name} | ${pct(lexical)} | ${combined} | ${encoder} |`);
}
