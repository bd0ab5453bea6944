/**
 * USE-lite's two routes side by side on the same sentences, in one run: (a) the TF.js graph on
 * TF.js's WASM backend and (b) the graph converted to ONNX (`npm run models:use-onnx`) on
 * onnxruntime-node (1 and 2 intra-op threads) and on onnxruntime-web's WASM build (one thread,
 * in Node). Prints load time, sentences per second at batch 1/8/32, the time to embed one
 * 2,500-word source (real SummEval news, sentences as the metrics split them, default batch),
 * each route's speed relative to TF.js, and each route's largest difference from TF.js's vectors.
 *
 * Every timing is the fastest of --repeats runs (3).
 *
 * Usage: npm run bench:use [-- --sentences 64 --repeats 3]
 */
import type { SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import { loadUseLiteEmbedder, USE_MODEL_DIR } from '../src/lib/node/load-use.ts';
import { loadUseOnnxEmbedder, readUseOnnxModel } from '../src/lib/node/load-use-onnx.ts';
import { loadUseOnnxGraph } from '../src/lib/metrics/semantic/use-lite-onnx.ts';
import { UseLiteEmbedder, type UseLiteOptions } from '../src/lib/metrics/semantic/use-lite.ts';
import { devSourceOfWords, devSourceSentences } from '../src/lib/node/summeval-sentences.ts';
import { splitSentences, splitWords } from '../src/lib/metrics/text/tokenize.ts';

const { values: args } = parseArgs({
  options: {
    sentences: { type: 'string', default: '64' },
    repeats: { type: 'string', default: '3' },
  },
});
const REPEATS = Math.max(1, Number(args.repeats));
const SENTENCES = devSourceSentences(Number(args.sentences));
const SOURCE = devSourceOfWords(2500);
const SOURCE_SENTENCES = splitSentences(SOURCE).map((s) => s.text);
const BATCHES = [1, 8, 32];

type Loader = (options: UseLiteOptions) => Promise<SentenceEmbedder>;

async function loadOrtWeb(options: UseLiteOptions): Promise<UseLiteEmbedder> {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  const run = await loadUseOnnxGraph(ort, readUseOnnxModel(), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const vocabulary = JSON.parse(readFileSync(join(USE_MODEL_DIR, 'vocab.json'), 'utf8'));
  return new UseLiteEmbedder(
    'use-lite · onnxruntime-web wasm',
    new Tokenizer(vocabulary),
    run,
    options,
  );
}

const ROUTES: { name: string; load: Loader }[] = [
  { name: 'TF.js WASM (1 thread)', load: (o) => loadUseLiteEmbedder(o) },
  { name: 'onnxruntime-node, 1 thread', load: (o) => loadUseOnnxEmbedder({ ...o, threads: 1 }) },
  { name: 'onnxruntime-node, 2 threads', load: (o) => loadUseOnnxEmbedder({ ...o, threads: 2 }) },
  { name: 'onnxruntime-web WASM in Node (1 thread)', load: loadOrtWeb },
];

interface Row {
  route: string;
  loadMs: number;
  perSecond: number[];
  sourceMs: number;
  maxDiff: number;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
}

/** The fastest of REPEATS runs: on a shared machine the slower runs measure the neighbours. */
async function fastest<T>(work: () => Promise<T>): Promise<[T, number]> {
  let best: [T, number] | undefined;
  for (let i = 0; i < REPEATS; i++) {
    const run = await timed(work);
    if (!best || run[1] < best[1]) best = run;
  }
  return best!;
}

async function measure(name: string, load: Loader, reference?: Float32Array[]): Promise<Row> {
  // load time: runtime start, session or graph build, tokenizer (the first route also pays for
  // TF.js's WASM start-up)
  const [first, loadMs] = await timed(() => load({ batchSize: 8 }));
  // warm-up, untimed: first-run allocations, kernel choice and (WASM) the engine's tier-up from
  // its baseline compiler, which on a big module takes seconds
  await first.embed(SENTENCES);
  const perSecond: number[] = [];
  let vectors: Float32Array[] = [];
  for (const batchSize of BATCHES) {
    const embedder = batchSize === 8 ? first : await load({ batchSize });
    const [out, ms] = await fastest(() => embedder.embed(SENTENCES));
    perSecond.push((SENTENCES.length / ms) * 1000);
    if (batchSize === 8) vectors = out;
  }
  const [, sourceMs] = await fastest(() => first.embed(SOURCE_SENTENCES));
  let maxDiff = 0;
  if (reference) {
    vectors.forEach((v, i) =>
      v.forEach((x, d) => (maxDiff = Math.max(maxDiff, Math.abs(x - reference[i][d])))),
    );
  }
  const row = { route: name, loadMs, perSecond, sourceMs, maxDiff };
  process.stderr.write(`${name}: done\n`);
  return Object.assign(row, { vectors });
}

const rows: Row[] = [];
let reference: Float32Array[] | undefined;
for (const { name, load } of ROUTES) {
  try {
    const row = (await measure(name, load, reference)) as Row & { vectors: Float32Array[] };
    reference ??= row.vectors;
    rows.push(row);
  } catch (error) {
    console.log(`${name}: failed: ${(error as Error).message}`);
  }
}

const base = rows[0];
const load = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
console.log(`${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; load average after the run: ${load}`);
const pad = (s: string, n: number) => s.padEnd(n);
const num = (x: number, digits = 1) => x.toFixed(digits).padStart(8);
console.log(
  `USE-lite routes, ${SENTENCES.length} SummEval source sentences per batch size, fastest of ${REPEATS}; ` +
    `source: ${splitWords(SOURCE).length} words, ${SOURCE_SENTENCES.length} sentences (batch 8)`,
);
console.log(
  `${pad('route', 42)} ${'load ms'.padStart(8)} ${BATCHES.map((b) => `b${b} sent/s`.padStart(11)).join(' ')} ${'source ms'.padStart(10)} ${'x TF.js'.padStart(8)} ${'max |Δ|'.padStart(9)}`,
);
for (const row of rows) {
  console.log(
    `${pad(row.route, 42)} ${num(row.loadMs, 0)} ${row.perSecond.map((x) => num(x).padStart(11)).join(' ')} ${num(row.sourceMs, 0).padStart(10)} ${num(base.sourceMs / row.sourceMs, 2)} ${row === base ? '(ref)'.padStart(9) : row.maxDiff.toExponential(1).padStart(9)}`,
  );
}
