/**
 * `npm run bench:use-browser`: USE-lite's two routes in a Chromium module worker, as the app would
 * run them: the converted ONNX graph on onnxruntime-web's WASM build (1 and 2 threads, cross-origin
 * isolated) and the TF.js graph on TF.js's WASM backend (1 thread). Same SummEval sentences and
 * 2,500-word source as `npm run bench:use` (the Node side), and the 500-word "another summary" of
 * `npm run bench` (bench/texts.ts), whose sentences are all new: onnxruntime-web runs no WASM
 * threads in Node, so the worker's threads are timed only here. Checks each row's vectors against
 * onnxruntime-node's (which the unit test holds to the TF.js route within 1e-4) and prints a table;
 * it measures, it never asserts a speed.
 *
 *   tsx bench/use-browser/run.ts [--sentences 64] [--repeats 3]
 *
 * Every timing is the fastest of --repeats runs.
 *
 * Builds this folder with Vite into .cache/use-browser-build/ (removed after the run), serves it,
 * public/vendor/ort/ (`npm run assets`), TF.js's WASM files, the TF.js model and the converted
 * model (`npm run models:use-onnx`) on 127.0.0.1:4374 with COOP/COEP, and drives Debian's Chromium
 * through playwright-core.
 */
import { existsSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { chromium, type Browser } from 'playwright-core';
import { build } from 'vite';
import { startServer } from '../models/server.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../src/lib/node/chromium.ts';
import { USE_MODEL_DIR } from '../../src/lib/node/load-use.ts';
import { loadUseOnnxEmbedder, USE_ONNX_MODEL_PATH } from '../../src/lib/node/load-use-onnx.ts';
import { devSourceOfWords, devSourceSentences } from '../../src/lib/node/summeval-sentences.ts';
import { splitSentences, splitWords } from '../../src/lib/metrics/text/tokenize.ts';
import { benchTexts } from '../texts.ts';
import { cosine } from '../../src/lib/metrics/semantic/coherence/coherence.ts';
import type { UseBenchPageApi, UseRowConfig, UseRowResult } from './protocol.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const require = createRequire(import.meta.url);
const PORT = 4374;
const ORIGIN = `http://127.0.0.1:${PORT}`;
const BUILD_DIR = resolve(repoRoot, '.cache/use-browser-build');
const ORT_DIR = resolve(repoRoot, 'public/vendor/ort');
const TFJS_WASM_DIR = dirname(
  require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'),
);
const BATCH_SIZES = [1, 8, 32];

const { values: args } = parseArgs({
  options: {
    sentences: { type: 'string', default: '64' },
    repeats: { type: 'string', default: '3' },
  },
});
const REPEATS = Math.max(1, Number(args.repeats));

function log(message: string): void {
  process.stderr.write(`[bench:use-browser] ${message}\n`);
}

const ROWS: { label: string; route: UseRowConfig['route']; threads: number }[] = [
  { label: 'TF.js WASM (1 thread)', route: 'tfjs', threads: 1 },
  { label: 'onnxruntime-web WASM, 1 thread', route: 'onnx', threads: 1 },
  { label: 'onnxruntime-web WASM, 2 threads', route: 'onnx', threads: 2 },
  { label: 'int8, onnxruntime-web WASM, 1 thread', route: 'onnx-int8', threads: 1 },
  { label: 'int8, onnxruntime-web WASM, 2 threads', route: 'onnx-int8', threads: 2 },
];

async function main(): Promise<void> {
  if (!existsSync(USE_ONNX_MODEL_PATH)) {
    throw new Error('The converted model is missing: run `npm run models:use-onnx` first.');
  }
  if (!existsSync(resolve(ORT_DIR, 'ort-wasm-simd-threaded.wasm'))) {
    throw new Error('public/vendor/ort/ is missing: run `npm run assets` first.');
  }
  const sentences = devSourceSentences(Number(args.sentences));
  const source = devSourceOfWords(2500);
  const sourceSentences = splitSentences(source).map((s) => s.text);
  const summarySentences = splitSentences(benchTexts().otherSummary).map((s) => s.text);
  const reference = await (await loadUseOnnxEmbedder({ batchSize: 8 })).embed(sentences);

  log('building the bench page → .cache/use-browser-build…');
  await build({
    configFile: false,
    root: here,
    base: '/',
    publicDir: false,
    logLevel: 'warn',
    // on a busy machine Rolldown warns that plugins were slow: noise for a benchmark
    worker: { format: 'es', rolldownOptions: { checks: { bundlerTimings: false } } },
    build: {
      rolldownOptions: { checks: { bundlerTimings: false } },
      outDir: BUILD_DIR,
      emptyOutDir: true,
      target: 'es2022',
      chunkSizeWarningLimit: 8192,
      reportCompressedSize: false,
    },
  });
  const server = await startServer(PORT, [
    { prefix: '/vendor/ort/', dirs: [ORT_DIR] },
    { prefix: '/vendor/tfjs/', dirs: [TFJS_WASM_DIR] },
    // the int8 files as `npm run assets` serves them to the app
    {
      prefix: '/models/use-lite/',
      dirs: [USE_MODEL_DIR, resolve(repoRoot, 'public/models/use-lite')],
    },
    { prefix: '/models/use-lite-onnx/', dirs: [dirname(USE_ONNX_MODEL_PATH)] },
    { prefix: '/', dirs: [BUILD_DIR] },
  ]);
  let browser: Browser | undefined;
  let browserVersion: string | undefined;
  const results: { label: string; result?: UseRowResult; error?: string }[] = [];
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    browserVersion = browser.version();
    const page = await browser.newPage();
    const consoleTail: string[] = [];
    page.on('console', (m) => consoleTail.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => consoleTail.push(`pageerror: ${e.message}`));
    await page.goto(`${ORIGIN}/`);
    await page.waitForSelector('body[data-ready="true"]');
    for (const row of ROWS) {
      log(`${row.label}…`);
      const config: UseRowConfig = {
        route: row.route,
        threads: row.threads,
        batchSizes: BATCH_SIZES,
        sentences,
        repeats: REPEATS,
        sourceSentences,
        summarySentences,
      };
      try {
        const result = await page.evaluate(
          (c) =>
            (window as unknown as { sumlensUseBench: UseBenchPageApi }).sumlensUseBench.runRow(c),
          config,
        );
        results.push({ label: row.label, result });
      } catch (error) {
        results.push({ label: row.label, error: (error as Error).message });
        log(consoleTail.slice(-10).join('\n'));
      }
    }
  } finally {
    await browser?.close();
    server.close();
    rmSync(BUILD_DIR, { recursive: true, force: true });
  }

  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  console.log(
    `USE-lite in headless Chromium ${browserVersion} (module worker), ${sentences.length} SummEval source sentences per batch size, fastest of ${REPEATS}; ` +
      `source: ${splitWords(source).length} words, ${sourceSentences.length} sentences; another summary of it: ${summarySentences.length} new sentences (batch 8)`,
  );
  console.log(
    `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; load average after the run: ${load}`,
  );
  // ratios side by side in this run: int8 against fp32 at the same thread count
  const fp32Summary = new Map(
    results
      .filter((r) => r.result && ROWS.find((row) => row.label === r.label)?.route === 'onnx')
      .map((r) => [ROWS.find((row) => row.label === r.label)!.threads, r.result!.summaryMs]),
  );
  const base = results[0]?.result;
  console.log(
    `${'route'.padEnd(40)} ${'load ms'.padStart(8)} ${BATCH_SIZES.map((b) => `b${b} sent/s`.padStart(11)).join(' ')} ${'source ms'.padStart(10)} ${'summary ms'.padStart(11)} ${'x TF.js'.padStart(8)} ${'max |Δ| vs ORT-node'.padStart(20)} ${'min cos'.padStart(8)} COI`,
  );
  for (const { label, result, error } of results) {
    if (!result) {
      console.log(`${label.padEnd(40)} failed: ${error}`);
      continue;
    }
    let maxDiff = 0;
    let minCosine = 1;
    result.vectors.forEach((v, i) => {
      v.forEach((x, d) => (maxDiff = Math.max(maxDiff, Math.abs(x - reference[i][d]))));
      minCosine = Math.min(minCosine, cosine(Float32Array.from(v), reference[i]) ?? 0);
    });
    console.log(
      `${label.padEnd(40)} ${result.loadMs.toFixed(0).padStart(8)} ${result.perSecond.map((x) => x.toFixed(1).padStart(11)).join(' ')} ${result.sourceMs.toFixed(0).padStart(10)} ${result.summaryMs.toFixed(0).padStart(11)} ${(base ? base.sourceMs / result.sourceMs : NaN).toFixed(2).padStart(8)} ${maxDiff.toExponential(1).padStart(20)} ${minCosine.toFixed(4).padStart(8)} ${result.crossOriginIsolated}`,
    );
  }
  int8Ratios(results, fp32Summary);
}

function int8Ratios(
  results: { label: string; result?: UseRowResult }[],
  fp32Summary: Map<number, number>,
): void {
  for (const { label, result } of results) {
    const row = ROWS.find((r) => r.label === label);
    if (!result || row?.route !== 'onnx-int8') continue;
    const fp32 = fp32Summary.get(row.threads);
    if (fp32) {
      console.log(
        `another summary, ${row.threads} thread(s): fp32 ${fp32.toFixed(0)} ms → int8 ${result.summaryMs.toFixed(0)} ms (${(fp32 / result.summaryMs).toFixed(2)}×; goal ≤ 60 ms)`,
      );
    }
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
