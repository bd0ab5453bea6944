/**
 * `npm run bench:models`: transformers.js speed in a Chromium worker, as the app runs it.
 *
 *   tsx bench/models/run.ts [--json out.json] [--sentences 96] [--budget-s 8] [--regenerate]
 *                           [--webgpu-full]
 *
 * Generates (never commits) a random-weight model with all-MiniLM-L6-v2's exact shape in
 * .cache/bench-models/ when it is missing, builds bench/models/ with its own Vite config, serves it
 * cross-origin isolated on 127.0.0.1:4373 and drives Debian's Chromium through playwright-core.
 * Rows: MiniLM shape fp32 and q8 on WASM with 1 and 2 threads, and WebGPU: on a software
 * (fallback) adapter only the tiny test model, beside its WASM row, because SwiftShader is far
 * slower than WASM; on a real adapter the MiniLM shape in fp32 (and fp16 with shader-f16).
 * Prints a Markdown table; it measures, it never asserts a speed. Each batch size of a row stops
 * after --budget-s seconds (and the table says how many sentences it ran), which keeps the whole
 * run to about 3 minutes on a quiet 2-core machine.
 */
import { messageOf } from '../../src/lib/errors.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import type { BenchPageApi, Probe, RowConfig, RowResult, UseLiteRequest } from './protocol.ts';
import { createRequire } from 'node:module';
import { USE_MODEL_DIR } from '../../src/lib/node/load-use.ts';
import { SENTENCES } from './sentences.ts';
import { startServer } from './server.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH, WEBGPU_ARGS } from '../../src/lib/node/chromium.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const PORT = 4373;
const ORIGIN = `http://127.0.0.1:${PORT}`;
const BENCH_MODELS_DIR = resolve(repoRoot, '.cache/bench-models');
const TEST_MODELS_DIR = resolve(repoRoot, 'tests/fixtures/models');
const BUILD_DIR = resolve(repoRoot, '.cache/bench-models-build');
const ORT_DIR = resolve(repoRoot, 'public/vendor/ort');
const PYTHON = '/usr/bin/python3';
const TFJS_WASM_DIR = dirname(
  createRequire(import.meta.url).resolve(
    '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm',
  ),
);

const MINILM = 'sumlens-bench/minilm-shape';
const MINILM_LABEL = 'MiniLM-L6 shape (random weights)';
const TINY = 'sumlens-test/tiny-embedding';
const TINY_LABEL = 'tiny test model (hidden 32, 2 layers)';
const BATCH_SIZES = [1, 8, 32];
const ROW_TIMEOUT_MS = 240_000;

const { values: args } = parseArgs({
  options: {
    json: { type: 'string' },
    sentences: { type: 'string', default: String(SENTENCES.length) },
    'budget-s': { type: 'string', default: '8' },
    regenerate: { type: 'boolean', default: false },
    // Runs the MiniLM-shape WebGPU rows even on a software adapter: slow, only to test that path.
    'webgpu-full': { type: 'boolean', default: false },
    // Only the USE-lite rows (TF.js): no generated MiniLM model needed.
    'use-lite-only': { type: 'boolean', default: false },
  },
});

function log(message: string): void {
  process.stderr.write(`[bench:models] ${message}\n`);
}

function runPython(script: string, out: string): void {
  const result = spawnSync(PYTHON, [script, '--out', out], { cwd: repoRoot, stdio: 'inherit' });
  if (result.error) {
    throw new Error(
      `${PYTHON} could not run (${result.error.message}): apt-get install python3-onnx python3-numpy`,
    );
  }
  if (result.status !== 0) throw new Error(`${relative(repoRoot, script)} failed`);
}

function ensureModels(): void {
  const minilmFiles = ['model.onnx', 'model_quantized.onnx', 'model_fp16.onnx'].map((f) =>
    resolve(BENCH_MODELS_DIR, MINILM, 'onnx', f),
  );
  if (args.regenerate || !minilmFiles.every((f) => existsSync(f))) {
    log('generating the MiniLM-shape model (random weights, ~160 MB in .cache/bench-models)…');
    runPython(resolve(here, 'make_bench_model.py'), BENCH_MODELS_DIR);
  }
  if (!existsSync(resolve(TEST_MODELS_DIR, TINY, 'onnx/model.onnx'))) {
    log('generating the tiny test models (npm run models:test)…');
    runPython(resolve(repoRoot, 'scripts/models/make_test_models.py'), TEST_MODELS_DIR);
  }
  for (const f of ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm']) {
    if (!existsSync(resolve(ORT_DIR, f))) {
      throw new Error(`public/vendor/ort/${f} is missing: run \`npm run assets\` first.`);
    }
  }
}

async function runRow(page: Page, config: RowConfig): Promise<RowResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`row timed out after ${ROW_TIMEOUT_MS} ms`)),
      ROW_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([
      page.evaluate(
        (c) => (window as unknown as { sumlensBench: BenchPageApi }).sumlensBench.runRow(c),
        config,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function maxAbsDiff(a: number[], b: number[]): number {
  return a.reduce((m, x, i) => Math.max(m, Math.abs(x - (b[i] ?? NaN))), 0);
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

function rate(n: number): string {
  return n >= 100 ? fmt(n) : n >= 10 ? fmt(n, 1) : fmt(n, 2);
}

interface Planned {
  config: RowConfig;
  /** Compare this row's sample vector with the row of this key (same model, fp32 WASM 1 thread). */
  baselineKey?: string;
}

function key(c: Pick<RowConfig, 'modelId' | 'device' | 'dtype' | 'threads'>): string {
  return `${c.modelId}|${c.device}|${c.dtype}|${c.threads}`;
}

function plan(
  probe: Probe,
  sentences: string[],
  budgetMs: number,
): { rows: Planned[]; notes: string[] } {
  const notes: string[] = [];
  const rows: Planned[] = [];
  const base = { batchSizes: BATCH_SIZES, sentences, budgetMs, primerModelId: TINY };
  const wasm = (
    modelId: string,
    modelLabel: string,
    dtype: 'fp32' | 'q8',
    threads: number,
  ): Planned => ({
    config: { ...base, where: 'WASM', modelId, modelLabel, device: 'wasm', dtype, threads },
    baselineKey: key({ modelId, device: 'wasm', dtype: 'fp32', threads: 1 }),
  });
  const threadCounts = probe.hardwareConcurrency >= 2 ? [1, 2] : [1];
  if (threadCounts.length === 1) notes.push('One logical core: the 2-thread rows are skipped.');

  const adapter = probe.adapter;
  if (adapter?.isFallbackAdapter) {
    rows.push(wasm(TINY, TINY_LABEL, 'fp32', 1));
    rows.push({
      config: {
        ...base,
        where: 'WebGPU (software fallback adapter, tiny model)',
        modelId: TINY,
        modelLabel: TINY_LABEL,
        device: 'webgpu',
        dtype: 'fp32',
        threads: 1,
      },
      baselineKey: key({ modelId: TINY, device: 'wasm', dtype: 'fp32', threads: 1 }),
    });
    notes.push(
      'The only WebGPU adapter is a software one (isFallbackAdapter): its row uses the tiny model, ' +
        'with the tiny model on WASM beside it for the ratio. Real WebGPU speed needs a GPU.',
    );
  }
  for (const dtype of ['fp32', 'q8'] as const) {
    for (const threads of threadCounts) rows.push(wasm(MINILM, MINILM_LABEL, dtype, threads));
  }
  if (adapter && (!adapter.isFallbackAdapter || args['webgpu-full'])) {
    const gpuDtypes: ('fp32' | 'fp16')[] = adapter.shaderF16 ? ['fp32', 'fp16'] : ['fp32'];
    if (!adapter.shaderF16) notes.push('The adapter lacks shader-f16: no fp16 WebGPU row.');
    for (const dtype of gpuDtypes) {
      rows.push({
        config: {
          ...base,
          where: adapter.isFallbackAdapter ? 'WebGPU (software fallback adapter)' : 'WebGPU',
          modelId: MINILM,
          modelLabel: MINILM_LABEL,
          device: 'webgpu',
          dtype,
          threads: 1,
        },
        baselineKey: key({ modelId: MINILM, device: 'wasm', dtype: 'fp32', threads: 1 }),
      });
    }
  }
  if (!adapter)
    notes.push(
      `No WebGPU adapter in a worker (${probe.adapterError ?? 'unknown'}): no WebGPU row.`,
    );
  return { rows, notes };
}

interface Row {
  result?: RowResult;
  config: Omit<RowConfig, 'sentences'>;
  error?: string;
  diff?: number;
}

function table(rows: Row[], sentenceCount: number): string {
  const header = [
    'where',
    'model',
    'dtype',
    'threads',
    'start-up ms',
    'load ms',
    ...BATCH_SIZES.map((bs) => `sent/s bs ${bs}`),
    'notes',
  ];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) {
    const c = row.config;
    const threads = c.device === 'webgpu' ? '–' : String(row.result?.numThreads ?? c.threads);
    if (!row.result) {
      const cells = [
        c.where,
        c.modelLabel,
        c.dtype,
        threads,
        '–',
        '–',
        ...BATCH_SIZES.map(() => '–'),
      ];
      lines.push(`| ${cells.join(' | ')} | failed: ${row.error?.split('\n')[0] ?? '?'} |`);
      continue;
    }
    const r = row.result;
    const notes: string[] = [];
    const short = r.cells.filter((cell) => cell.sentences < sentenceCount);
    if (short.length) {
      notes.push(
        `time budget: ${short.map((cell) => `bs ${cell.batchSize} ran ${cell.sentences}`).join(', ')} of ${sentenceCount}`,
      );
    }
    if (row.diff !== undefined)
      notes.push(`max abs diff vs fp32 WASM 1 thread ${row.diff.toExponential(1)}`);
    if (!r.crossOriginIsolated) notes.push('NOT cross-origin isolated');
    const cells = [
      c.where,
      c.modelLabel,
      c.dtype,
      threads,
      fmt(r.startupMs),
      fmt(r.loadMs),
      ...BATCH_SIZES.map((bs) => {
        const cell = r.cells.find((x) => x.batchSize === bs);
        return cell ? rate(cell.sentencesPerSecond) : '–';
      }),
      notes.join('; '),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/**
 * USE-lite through the app's worker loader: ONNX Runtime WASM with 1 and 2 threads (the app's
 * route), TF.js WASM on one thread (the fallback), and WebGPU when the worker has an adapter (a
 * software one is reported as such; the loader may fall back to WASM).
 */
async function useLiteRows(
  page: Page,
  probe: Probe,
  sentences: string[],
  budgetMs: number,
): Promise<string[]> {
  const runs: { where: string; request: UseLiteRequest }[] = (['int8', 'fp32'] as const).flatMap(
    (precision) =>
      [1, 2].map((threads) => ({
        where: `WASM ${precision}, ${threads} thread(s) asked`,
        request: {
          device: 'wasm' as const,
          threads,
          precision,
          sentences,
          batchSizes: BATCH_SIZES,
          budgetMs,
        },
      })),
  );
  runs.push({
    where: 'WASM, TF.js (the fallback)',
    request: {
      device: 'wasm',
      threads: 1,
      runtime: 'tfjs',
      precision: 'fp32',
      sentences,
      batchSizes: BATCH_SIZES,
      budgetMs,
    },
  });
  if (probe.adapter) {
    runs.push({
      where: probe.adapter.isFallbackAdapter ? 'WebGPU (software adapter)' : 'WebGPU',
      request: {
        device: 'webgpu',
        threads: 1,
        precision: 'fp32',
        sentences,
        batchSizes: BATCH_SIZES,
        budgetMs,
      },
    });
  }
  const lines = [
    '## USE-lite in a Chromium worker (workers/use-lite.ts)',
    '',
    `| where | backend | runtime | threads | load ms | ${BATCH_SIZES.map((b) => `bs ${b} sent/s`).join(' | ')} | notes |`,
    `|---|---|---|---|---|${BATCH_SIZES.map(() => '---').join('|')}|---|`,
  ];
  for (const { where, request } of runs) {
    log(`running USE-lite · ${where}…`);
    try {
      const r = await page.evaluate(
        (q) => (window as unknown as { sumlensBench: BenchPageApi }).sumlensBench.useLite(q),
        request,
      );
      const cells = BATCH_SIZES.map((b) => {
        const c = r.cells.find((x) => x.batchSize === b);
        return c ? `${rate(c.sentencesPerSecond)} (${c.sentences})` : '–';
      });
      lines.push(
        `| ${where} | ${r.backend} | ${r.runtime} | ${r.threads} | ${fmt(r.loadMs)} | ${cells.join(' | ')} | ${r.notes.join(' ')} |`,
      );
    } catch (error) {
      const message = messageOf(error).split('\n')[0];
      log(`  failed: ${message}`);
      lines.push(
        `| ${where} | failed | – | – | – | ${BATCH_SIZES.map(() => '–').join(' | ')} | ${message} |`,
      );
    }
  }
  lines.push(
    '',
    'Sentences/s after one untimed call per batch size, sentences sent in chunks of 4 batches (the sentences run in parentheses). Load = fetching the model from localhost (int8 7.6 MB, fp32 28 MB), building the graph and one warm-up call.',
  );
  return lines;
}

async function main(): Promise<void> {
  const sentenceCount = Math.max(1, Math.min(SENTENCES.length, Number(args.sentences)));
  const sentences = SENTENCES.slice(0, sentenceCount);
  const budgetMs = Number(args['budget-s']) * 1000;
  const started = Date.now();

  if (!args['use-lite-only']) ensureModels();
  log('building the bench page (bench/models/vite.config.ts → .cache/bench-models-build)…');
  const buildStart = Date.now();
  await build({ configFile: resolve(here, 'vite.config.ts') });
  log(`  built in ${fmt((Date.now() - buildStart) / 1000, 1)} s`);
  const loadBefore = loadavg()[0];

  const notFound = new Set<string>();
  const server = await startServer(
    PORT,
    [
      { prefix: '/vendor/ort/', dirs: [ORT_DIR] },
      { prefix: '/vendor/tfjs/', dirs: [TFJS_WASM_DIR] },
      // The TF.js model from its package, the converted graph as `npm run assets` copied it.
      {
        prefix: '/models/use-lite/',
        dirs: [USE_MODEL_DIR, resolve(repoRoot, 'public/models/use-lite')],
      },
      { prefix: '/models/', dirs: [BENCH_MODELS_DIR, TEST_MODELS_DIR] },
      { prefix: '/', dirs: [BUILD_DIR] },
    ],
    (pathname) => notFound.add(pathname),
  );
  let browser: Browser | undefined;
  const externalRequests = new Set<string>();
  const consoleTail: string[] = [];
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...CHROMIUM_ARGS, ...WEBGPU_ARGS],
    });
    const page = await browser.newPage();
    page.on('request', (request) => {
      const url = request.url();
      // blob: and data: URLs (ONNX Runtime's own worker scripts) never leave the page.
      if (/^(https?|wss?):/.test(url) && !url.startsWith(`${ORIGIN}/`)) externalRequests.add(url);
    });
    page.on('console', (message) => {
      consoleTail.push(`${message.type()}: ${message.text()}`);
      if (consoleTail.length > 40) consoleTail.shift();
    });
    page.on('pageerror', (error) => consoleTail.push(`pageerror: ${error.message}`));
    await page.goto(`${ORIGIN}/`);
    await page.waitForSelector('body[data-ready="true"]');

    const pageIsolated = await page.evaluate(() => crossOriginIsolated);
    const probe = await page.evaluate(() =>
      (window as unknown as { sumlensBench: BenchPageApi }).sumlensBench.probe(),
    );
    log(
      `page crossOriginIsolated=${pageIsolated}, worker crossOriginIsolated=${probe.crossOriginIsolated}, ` +
        `hardwareConcurrency=${probe.hardwareConcurrency}, adapter=${
          probe.adapter
            ? `${probe.adapter.vendor} ${probe.adapter.architecture} ${probe.adapter.description}`.trim() +
              (probe.adapter.isFallbackAdapter ? ' (fallback)' : '')
            : `none (${probe.adapterError})`
        }`,
    );

    const { rows: allPlanned, notes } = plan(probe, sentences, budgetMs);
    const planned = args['use-lite-only'] ? [] : allPlanned;
    const done: Row[] = [];
    const byKey = new Map<string, RowResult>();
    for (const { config, baselineKey } of planned) {
      const label = `${config.where} · ${config.modelId} · ${config.dtype} · ${config.threads} thread(s)`;
      log(`running ${label}…`);
      const { sentences: _omit, ...shown } = config;
      try {
        const result = await runRow(page, config);
        byKey.set(key(config), result);
        const baseline =
          baselineKey && baselineKey !== key(config) ? byKey.get(baselineKey) : undefined;
        done.push({
          config: shown,
          result,
          ...(baseline ? { diff: maxAbsDiff(result.sample, baseline.sample) } : {}),
        });
        log(
          `  load ${fmt(result.loadMs)} ms; sentences/s ${result.cells
            .map((c) => `bs ${c.batchSize}: ${rate(c.sentencesPerSecond)}`)
            .join(', ')}`,
        );
      } catch (error) {
        const message = messageOf(error);
        log(`  failed: ${message}\n${consoleTail.slice(-10).join('\n')}`);
        done.push({ config: shown, error: message });
      }
    }

    const useLiteLines = await useLiteRows(page, probe, sentences, budgetMs);

    const chromiumVersion = browser.version();
    const cpu = cpus();
    const tokensRow = done.find((r) => r.config.modelId === MINILM && r.result)?.result;
    const tinyWasm = done.find(
      (r) => r.config.modelId === TINY && r.config.device === 'wasm',
    )?.result;
    const tinyGpu = done.find(
      (r) => r.config.modelId === TINY && r.config.device === 'webgpu',
    )?.result;

    const out: string[] = [];
    out.push('## Model benchmark (transformers.js 4.3.2 in a Chromium worker)', '');
    out.push(table(done, sentenceCount), '');
    out.push(
      `Sentences/s after one untimed warm-up call per batch size; mean pooling + normalize. ` +
        `${sentenceCount} fixed sentences` +
        (tokensRow
          ? `, mean ${tokensRow.meanTokens.toFixed(1)} tokens with [CLS]/[SEP] (MiniLM-shape tokenizer)`
          : '') +
        '. Every row runs in a fresh worker. Start-up = ONNX Runtime starting there (WASM, and the' +
        ' WebGPU device on WebGPU rows) while loading the tiny model; load = then creating the' +
        " row's pipeline: files from localhost and session creation.",
    );
    if (tinyWasm && tinyGpu) {
      const ratios = BATCH_SIZES.map((bs) => {
        const w = tinyWasm.cells.find((c) => c.batchSize === bs);
        const g = tinyGpu.cells.find((c) => c.batchSize === bs);
        return w && g
          ? `bs ${bs}: ${fmt(w.sentencesPerSecond / g.sentencesPerSecond, 1)}×`
          : `bs ${bs}: –`;
      });
      out.push(
        '',
        `Software WebGPU vs WASM on the tiny model: WASM is faster by ${ratios.join(', ')}.`,
      );
    }
    for (const note of notes) out.push('', note);
    out.push('', ...useLiteLines);
    out.push('', '**Machine**', '');
    out.push(
      `- CPU: ${cpu.length} logical cores (${cpu[0]?.model.trim() ?? '?'}), ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, ${platform()} ${release()}`,
    );
    out.push(
      `- Node ${process.version}; Chromium ${chromiumVersion} (headless, --enable-unsafe-webgpu)`,
    );
    out.push(
      `- Worker: hardwareConcurrency ${probe.hardwareConcurrency}, crossOriginIsolated ${probe.crossOriginIsolated} (page ${pageIsolated})`,
    );
    out.push(
      `- WebGPU adapter: ${
        probe.adapter
          ? [
              `vendor "${probe.adapter.vendor}"`,
              `architecture "${probe.adapter.architecture}"`,
              probe.adapter.device ? `device "${probe.adapter.device}"` : '',
              probe.adapter.description ? `description "${probe.adapter.description}"` : '',
              `isFallbackAdapter ${probe.adapter.isFallbackAdapter}`,
              `shader-f16 ${probe.adapter.shaderF16}`,
            ]
              .filter(Boolean)
              .join(', ')
          : `none (${probe.adapterError ?? '?'})`
      }`,
    );
    out.push(
      `- Requests that left 127.0.0.1: ${externalRequests.size ? [...externalRequests].join(', ') : 'none'}`,
    );
    if (notFound.size) out.push(`- Not found (404): ${[...notFound].join(', ')}`);
    const loadAfter = loadavg()[0];
    out.push(
      `- Load average (1 min) before/after the rows: ${fmt(loadBefore, 2)} / ${fmt(loadAfter, 2)}` +
        (Math.max(loadBefore, loadAfter) > cpu.length
          ? ' — the machine was busy with other work: treat these numbers as rough'
          : ''),
    );
    out.push(`- Wall time: ${fmt((Date.now() - started) / 1000, 1)} s`);
    console.log(out.join('\n'));

    if (args.json) {
      const jsonPath = resolve(process.cwd(), args.json);
      mkdirSync(dirname(jsonPath), { recursive: true });
      const report = {
        generatedAt: new Date().toISOString(),
        machine: {
          cpus: cpu.length,
          cpuModel: cpu[0]?.model.trim() ?? null,
          totalMemBytes: totalmem(),
          platform: `${platform()} ${release()}`,
          node: process.version,
          chromium: chromiumVersion,
          pageCrossOriginIsolated: pageIsolated,
          loadAverage1m: { before: loadBefore, after: loadAfter },
          probe,
        },
        sentences: { count: sentenceCount, meanTokens: tokensRow?.meanTokens ?? null },
        batchSizes: BATCH_SIZES,
        budgetMs,
        notes,
        externalRequests: [...externalRequests],
        rows: done.map(({ result, config, error, diff }) => ({
          ...config,
          ...(result
            ? {
                startupMs: result.startupMs,
                loadMs: result.loadMs,
                numThreads: result.numThreads,
                crossOriginIsolated: result.crossOriginIsolated,
                meanTokens: result.meanTokens,
                cells: result.cells,
              }
            : { error }),
          ...(diff !== undefined ? { maxAbsDiffVsFp32Wasm1Thread: diff } : {}),
        })),
      };
      writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
      log(`wrote ${relative(process.cwd(), jsonPath)}`);
    }
    if (done.some((r) => r.error)) process.exitCode = 1;
  } finally {
    await browser?.close();
    await new Promise<void>((r) => server.close(() => r()));
    // Rebuilt on every run; removing it keeps 27 MB of bundled JS and wasm out of linters' way.
    rmSync(BUILD_DIR, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(messageOf(error));
  process.exit(1);
});
