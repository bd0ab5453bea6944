/**
 * How well the local-coherence metric does on SummEval dev (shared/data/summeval/dev.jsonl, 600
 * summaries = 50 CNN/DM articles × 12 systems), with the built-in GloVe SIF embedder.
 *
 * (a) Shuffle test: for each of the 50 source articles with at least 6 sentences, its first 12
 *     sentences in the original order against 10 seeded random permutations of them; the figure is
 *     the share of (original, shuffled) pairs where the original scores strictly higher, ties
 *     counting one half. Done for the n+2 score and for the adjacent (n, n+1) mean.
 * (b) Summary-level Spearman with the mean of the 3 expert coherence ratings: per article over its
 *     12 summaries (average ranks for ties), then averaged over articles. "strict" keeps only
 *     articles whose 12 summaries all get a score (≥ 3 sentences) and where neither side is
 *     constant; "scored" drops the n/a summaries instead and keeps articles with ≥ 5 scored
 *     summaries and both sides non-constant.
 *
 * Usage: npx tsx scripts/measure-coherence.ts            default settings + a few alternatives
 *        npx tsx scripts/measure-coherence.ts --sweep    the whole grid of settings tried
 *          [--vocabs 20000,50000,100000] [--shuffles 10]  (more shuffles = less shuffle noise)
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildEmbeddingAsset, DEFAULT_OUTPUT, repoRoot } from '../src/lib/node/embedding-asset.ts';
import { externalPath } from '../src/lib/node/external-data.ts';
import {
  GloveSifEmbedder,
  parseGloveAsset,
  type GloveAsset,
  type GloveSifOptions,
} from '../src/lib/metrics/semantic/glove-sif.ts';
import {
  scoreCoherence,
  scoreCoherenceOfSentences,
} from '../src/lib/metrics/semantic/coherence.ts';
import { splitSentences, type Segment } from '../src/lib/metrics/text/tokenize.ts';
import type { SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import type { MetricResult } from '../src/lib/metrics/types.ts';

const DEV = externalPath('data/summeval/dev.jsonl');
const SEED = 20_240_601;
const SHUFFLES = 10;
const MAX_SENTENCES = 12;
const MIN_SOURCE_SENTENCES = 6;
const MIN_SCORED_SUMMARIES = 5;

interface Row {
  id: string;
  model_id: string;
  text: string;
  decoded: string;
  expert_annotations: { coherence: number }[];
}

/** mulberry32: small, seeded, good enough for shuffles. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function averageRanks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((p, q) => p[0] - q[0]);
  const ranks = new Array<number>(xs.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    for (let k = i; k <= j; k++) ranks[order[k][1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return ranks;
}

function pearson(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

export function spearman(x: readonly number[], y: readonly number[]): number {
  return pearson(averageRanks(x), averageRanks(y));
}

/** The mean of adjacent-sentence cosines, when the result has one. */
const adjacentMean = (r: MetricResult<'coherence'>): number | null =>
  r.status === 'ok' ? r.details.adjacentMean : null;
const isConstant = (xs: readonly number[]): boolean => xs.every((x) => x === xs[0]);
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const standardError = (xs: readonly number[]): number => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1) / xs.length);
};

interface Figures {
  shuffleN2: number;
  shuffleAdj: number;
  shufflePairs: number;
  strictN2: number;
  strictAdj: number;
  strictArticles: number;
  scoredN2: number;
  scoredAdj: number;
  /** Standard error of the article mean (sd / √n) for the scored columns. */
  scoredN2Se: number;
  scoredAdjSe: number;
  scoredArticlesN2: number;
  scoredArticlesAdj: number;
  naSummaries: number;
}

async function evaluate(
  rows: Row[],
  embedder: SentenceEmbedder,
  shuffles = SHUFFLES,
): Promise<Figures> {
  const articles = new Map<string, Row[]>();
  for (const r of rows) articles.set(r.id, [...(articles.get(r.id) ?? []), r]);

  // (a) shuffle test
  const rand = prng(SEED);
  let winsN2 = 0;
  let winsAdj = 0;
  let pairs = 0;
  const cmp = (orig: number | null, shuf: number | null): number =>
    orig === null || shuf === null ? 0.5 : orig > shuf ? 1 : orig === shuf ? 0.5 : 0;
  for (const group of articles.values()) {
    const all = splitSentences(group[0].text);
    if (all.length < MIN_SOURCE_SENTENCES) continue;
    const sentences: Segment[] = all.slice(0, MAX_SENTENCES);
    const orig = await scoreCoherenceOfSentences(sentences, embedder);
    for (let s = 0; s < shuffles; s++) {
      const shuf = await scoreCoherenceOfSentences(shuffled(sentences, rand), embedder);
      winsN2 += cmp(orig.score, shuf.score);
      winsAdj += cmp(adjacentMean(orig), adjacentMean(shuf));
      pairs++;
    }
  }

  // (b) summary-level Spearman against the mean expert coherence
  const strict: { n2: number[]; adj: number[] } = { n2: [], adj: [] };
  const scored: { n2: number[]; adj: number[] } = { n2: [], adj: [] };
  let naSummaries = 0;
  for (const group of articles.values()) {
    const results = await Promise.all(group.map((r) => scoreCoherence(r.decoded, embedder)));
    const human = group.map((r) => mean(r.expert_annotations.map((a) => a.coherence)));
    naSummaries += results.filter((r) => r.score === null).length;
    for (const [key, values] of [
      ['n2', results.map((r) => r.score)],
      ['adj', results.map(adjacentMean)],
    ] as const) {
      const keep = values.flatMap((v, i) => (v === null ? [] : [i]));
      const m = keep.map((i) => values[i] as number);
      const h = keep.map((i) => human[i]);
      if (!isConstant(m) && !isConstant(h)) {
        const rho = spearman(m, h);
        if (keep.length === group.length) strict[key].push(rho);
        if (keep.length >= MIN_SCORED_SUMMARIES) scored[key].push(rho);
      }
    }
  }
  return {
    shuffleN2: winsN2 / pairs,
    shuffleAdj: winsAdj / pairs,
    shufflePairs: pairs,
    strictN2: mean(strict.n2),
    strictAdj: mean(strict.adj),
    strictArticles: strict.n2.length,
    scoredN2: mean(scored.n2),
    scoredAdj: mean(scored.adj),
    scoredN2Se: standardError(scored.n2),
    scoredAdjSe: standardError(scored.adj),
    scoredArticlesN2: scored.n2.length,
    scoredArticlesAdj: scored.adj.length,
    naSummaries,
  };
}

interface Config {
  label: string;
  options: GloveSifOptions;
}

function describe(o: GloveSifOptions, asset: GloveAsset): string {
  const vocab = `${Math.round(Math.min(o.maxVocab ?? Infinity, asset.words.length) / 1000)}k`;
  const a =
    o.sifA === undefined ? `a=${asset.defaultSifA}` : o.sifA >= 1e6 ? 'unweighted' : `a=${o.sifA}`;
  const removal =
    o.removal === 'global'
      ? `mean + ${o.globalComponents ?? 1} global PC removed`
      : o.removal === 'text'
        ? 'first PC per text removed'
        : 'no PC removal';
  return `${vocab} vocab, ${a}, ${removal}`;
}

function grid(vocabs: number[]): Config[] {
  const out: Config[] = [];
  for (const maxVocab of vocabs) {
    for (const sifA of [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 1e9]) {
      for (const [removal, globalComponents] of [
        ['none', 0],
        ['text', 0],
        ['global', 0],
        ['global', 1],
        ['global', 2],
        ['global', 3],
      ] as const) {
        const options: GloveSifOptions = { maxVocab, sifA, removal, globalComponents };
        out.push({ label: '', options });
      }
    }
  }
  return out;
}

function table(results: { label: string; f: Figures }[]): string {
  const p = (x: number): string => x.toFixed(3);
  const lines = [
    '| GloVe SIF settings | shuffle n+2 | shuffle adjacent | Spearman n+2 (strict) | Spearman adjacent (strict) | Spearman n+2 (scored) | Spearman adjacent (scored) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const { label, f } of results) {
    lines.push(
      `| ${label} | ${p(f.shuffleN2)} | ${p(f.shuffleAdj)} | ${p(f.strictN2)} | ${p(f.strictAdj)} | ${p(f.scoredN2)} ± ${f.scoredN2Se.toFixed(2)} | ${p(f.scoredAdj)} ± ${f.scoredAdjSe.toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

async function main(argv: string[]): Promise<void> {
  const sweep = argv.includes('--sweep');
  const flag = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const shuffles = Number(flag('--shuffles') ?? SHUFFLES);
  const vocabs = (flag('--vocabs') ?? '20000,50000,100000').split(',').map(Number);
  const rows = readFileSync(DEV, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row);
  // The sweep needs words beyond the shipped cut: a 100k asset in .tmp/ (gitignored).
  const path = sweep
    ? buildEmbeddingAsset({
        vocabSize: 100_000,
        output: resolve(repoRoot, '.tmp/glove-100d-100k.bin'),
      }).output
    : buildEmbeddingAsset().output;
  const asset = parseGloveAsset(readFileSync(path ?? DEFAULT_OUTPUT));
  const configs: Config[] = sweep
    ? grid(vocabs)
    : [
        { label: '', options: {} },
        { label: '', options: { sifA: 1e-2, removal: 'none' } },
        { label: '', options: { sifA: 1e-3, removal: 'none' } },
        { label: '', options: { sifA: 1e-3, removal: 'text' } },
        { label: '', options: { sifA: 1e9, removal: 'none' } },
        { label: '', options: { sifA: 1e9, removal: 'global', globalComponents: 1 } },
      ];
  const results: { label: string; f: Figures }[] = [];
  for (const c of configs) {
    const embedder = new GloveSifEmbedder(asset, c.options);
    const options: GloveSifOptions = {
      sifA: embedder.sifA,
      removal: embedder.removal,
      globalComponents: c.options.globalComponents ?? (embedder.removal === 'global' ? 1 : 0),
      maxVocab: embedder.vocabSize,
    };
    const label =
      (c.label || describe(options, asset)) + (results.length === 0 && !sweep ? ' (default)' : '');
    const f = await evaluate(rows, embedder, shuffles);
    results.push({ label, f });
    if (sweep) console.error(`${label}: ${JSON.stringify(f)}`);
  }
  const f0 = results[0].f;
  console.log(
    `SummEval dev: shuffle test over ${f0.shufflePairs} (original, shuffled) pairs (first ${MAX_SENTENCES} sentences of each article with ≥ ${MIN_SOURCE_SENTENCES}, ${shuffles} shuffles each, seed ${SEED}, ties count ½).`,
  );
  console.log(
    `Spearman with mean expert coherence, per article then averaged: strict = ${f0.strictArticles} articles with all 12 summaries scored; scored = ${f0.scoredArticlesN2} articles with ≥ ${MIN_SCORED_SUMMARIES} scored summaries (n/a summaries dropped: ${f0.naSummaries} of ${rows.length} have < 3 sentences).\n`,
  );
  console.log(table(results));
}

await main(process.argv.slice(2));
