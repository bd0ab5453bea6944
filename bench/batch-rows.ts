/**
 * `npm run bench:batch`: how many rows per second a data-set run of the default offline metrics
 * scores in the page (issue 17 asks for ≥ 150 rows/s on a 2-core machine). It drives the built app
 * (dist/, served by `vite preview` on SUMLENS_BENCH_PORT, default 4184) in Debian's Chromium: for
 * each size it opens a fresh page, imports the first N SummEval dev rows (source, summary, one
 * human reference) as a cases file, presses "Run offline metrics" and waits for the run's end (the
 * app's `sumlens:open` mark). Each size runs cold, in a browser of its own: the workers start, the
 * models load and every text is parsed for the first time, as for a user.
 *
 * It also measures the time from Score to the first metric result in the single-case form, a
 * fresh page each time (`--first N` times, default 5; 0 skips it), since the lexical worker's
 * start-up is what that result waits for.
 *
 * For each run it also prints when the first row was done (the runs list's progress bar, read in
 * the page every 50 ms), so start-up and the rows that follow are told apart.
 *
 * It prints numbers; it never asserts a time (machines are shared and noisy). Options:
 * `--rows 120,600`, `--first 5`, `--root DIR` (another checkout's built app, for a side-by-side
 * "before"), `--json FILE`.
 */
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { preview } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../src/lib/node/chromium.ts';
import { readDevRows } from '../src/lib/node/validity/summeval.ts';

const PORT = Number(process.env.SUMLENS_BENCH_PORT ?? 4184);
const ORIGIN = `http://127.0.0.1:${PORT}`;
const RUN_TIMEOUT_MS = 10 * 60_000;

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '120,600' },
    first: { type: 'string', default: '5' },
    root: { type: 'string', default: resolve(import.meta.dirname, '..') },
    json: { type: 'string' },
  },
});
const SIZES = args.rows.split(',').map(Number);
const FIRST_RESULTS = Number(args.first);
const root = resolve(args.root);

function log(message: string): void {
  process.stderr.write(`[bench:batch] ${message}\n`);
}

function casesFile(dir: string, rows: number): string {
  const records = readDevRows();
  if (rows < 1 || rows > records.length || !Number.isInteger(rows)) {
    throw new Error(`--rows takes sizes from 1 to ${records.length}, not ${rows}`);
  }
  const lines = records.slice(0, rows).map((r) =>
    JSON.stringify({
      id: `${r.id}/${r.model_id}`,
      source: r.text,
      summary: r.decoded,
      reference: r.references[0],
    }),
  );
  const file = join(dir, `summeval-${rows}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const now = (page: Page) => page.evaluate(() => performance.now());

async function freshPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(ORIGIN);
  return { page, errors };
}

interface BatchReport {
  rows: number;
  seconds: number;
  rowsPerSec: number;
  /** Start → the first row done: the workers starting and the models loading. */
  firstRowSeconds: number | null;
  /** Rows per second after the first row was done. */
  steadyRowsPerSec: number | null;
}

async function batchRun(browser: Browser, file: string, rows: number): Promise<BatchReport> {
  const { page, errors } = await freshPage(browser);
  await page.getByTestId('dataset-file').setInputFiles(file);
  await page.waitForSelector('[data-testid="dataset-import"][data-done="true"]', {
    timeout: 120_000,
  });
  await page.getByTestId('run-offline').first().waitFor();
  // The runs list's progress bar, read every 50 ms in the page: when the first row was done.
  await page.evaluate(() => {
    const w = window as unknown as { benchFirstRowAt?: number };
    const timer = setInterval(() => {
      const bar = document.querySelector<HTMLProgressElement>('[data-testid="run-progress"]');
      if (bar && bar.value >= 1) {
        w.benchFirstRowAt = performance.now();
        clearInterval(timer);
      }
    }, 50);
  });
  const start = await now(page);
  await page.getByTestId('run-offline').first().click();
  await page.waitForFunction(() => performance.getEntriesByName('sumlens:open').length > 0, null, {
    timeout: RUN_TIMEOUT_MS,
    polling: 50,
  });
  const end = await page.evaluate(() => performance.getEntriesByName('sumlens:open')[0]!.startTime);
  const firstRowAt = await page.evaluate(
    () => (window as unknown as { benchFirstRowAt?: number }).benchFirstRowAt ?? null,
  );
  if (errors.length > 0) log(`page errors: ${errors.join(' | ')}`);
  await page.context().close();
  const seconds = (end - start) / 1000;
  const firstRowSeconds = firstRowAt === null ? null : (firstRowAt - start) / 1000;
  const steadyRowsPerSec =
    firstRowSeconds === null || rows < 2 ? null : (rows - 1) / (seconds - firstRowSeconds);
  return { rows, seconds, rowsPerSec: rows / seconds, firstRowSeconds, steadyRowsPerSec };
}

/** Score pressed on a fresh page → the first metric card with a result. */
async function firstResult(browser: Browser): Promise<number> {
  const { page } = await freshPage(browser);
  const record = readDevRows()[0]!;
  await page.getByTestId('source-input').fill(record.text);
  await page.getByTestId('summary-input').fill(record.decoded);
  await page.getByTestId('reference-input').fill(record.references[0] ?? '');
  const start = await now(page);
  await page.getByTestId('score-button').click();
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('[data-testid^="metric-"][data-status]')].some((card) =>
        ['ok', 'n/a', 'error'].includes(card.getAttribute('data-status') ?? ''),
      ),
    null,
    { timeout: 60_000, polling: 'raf' },
  );
  const ms = (await now(page)) - start;
  await page.context().close();
  return ms;
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'dist/index.html'))) {
    throw new Error(
      `No build in ${root}/dist: run "npm run build" first (npm run bench:batch does).`,
    );
  }
  const work = mkdtempSync(join(tmpdir(), 'sumlens-batch-rows-'));
  const server = await preview({
    root,
    configFile: join(root, 'vite.config.ts'),
    logLevel: 'warn',
    preview: { port: PORT, strictPort: true, host: '127.0.0.1' },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const batches: BatchReport[] = [];
  const firsts: number[] = [];
  try {
    for (let i = 0; i < FIRST_RESULTS; i++) firsts.push(await firstResult(browser));
    for (const rows of SIZES) {
      log(`${rows} rows…`);
      batches.push(await batchRun(browser, casesFile(work, rows), rows));
    }
  } finally {
    await browser.close();
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
  const load = loadavg().map((l) => l.toFixed(1));
  console.log(`app: ${root} · ${cpus().length} cores · load ${load.join(' ')}`);
  if (firsts.length > 0) {
    const sorted = [...firsts].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    console.log(
      `Score → first result: median ${median.toFixed(0)} ms (${firsts.map((f) => f.toFixed(0)).join(', ')})`,
    );
  }
  for (const b of batches) {
    const after =
      b.firstRowSeconds === null || b.steadyRowsPerSec === null
        ? ''
        : ` (first row done after ${b.firstRowSeconds.toFixed(2)} s, then ${b.steadyRowsPerSec.toFixed(1)} rows/s)`;
    console.log(
      `${String(b.rows).padStart(5)} rows: ${b.seconds.toFixed(2)} s, ${b.rowsPerSec.toFixed(1)} rows/s${after}`,
    );
  }
  if (args.json) writeFileSync(args.json, JSON.stringify({ firsts, batches }, null, 2));
}

await main();
