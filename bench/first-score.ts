/**
 * `npm run bench:first-score`: how soon a visitor can score, once the first visit has kept the
 * default encoder (issue 30, "A light first visit"). Serves the built app (dist/, `vite preview` on
 * SUMLENS_BENCH_PORT, default a free port) to Debian's Chromium, in one fresh browser profile:
 *
 *   first visit   a new profile opens the app and waits until the page says "Works offline" (the
 *                 app shell precached and the default encoder, USE-lite int8 and ONNX Runtime's
 *                 wasm, in Cache Storage). Reported: the time until then, and until the page's
 *                 `sumlens:encoder-ready` mark.
 *   reload        a new page in the same profile, served from its caches: the time from navigation
 *                 to the page's `sumlens:encoder-ready` mark (User Timing, set when the embedding
 *                 worker has loaded USE-lite and embedded its warm-up sentence). Goal ≤ 2 s. The
 *                 server's count of encoder bytes sent during the phase shows that it came from the
 *                 cache (0).
 *   score         a new page in the same profile, once its workers have loaded: a source of real news
 *                 (SummEval dev, CNN/DailyMail: `--source-words`, default 2,500) and a summary of
 *                 it (its human highlights, `--summary-words`, default 120) put into the form, then
 *                 Score clicked at once (no pause for the page to embed the source ahead of Score),
 *                 until the last offline metric card has its result. Goal ≤ 3 s.
 *
 * `--runs N` (default 3) repeats reload and score, each on a fresh page (a fresh worker, so no
 * vector is cached); the medians are held against the goals. Times are read on the page's own clock
 * (performance.now(), from navigation), and each is printed with the machine's load average: the
 * machine is shared and noisy, so this measures and never asserts. Writes `--json FILE` (default
 * bench/results/first-score.json).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { freePort } from './support/free-port.ts';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { preview, type Plugin } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../src/lib/node/chromium.ts';
import { countWords } from '../src/lib/metrics/text/tokenize.ts';
import { METRICS } from '../src/lib/metrics/registry.ts';
import { benchTexts, takeWords } from './texts.ts';

const repoRoot = resolve(import.meta.dirname, '..');

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'source-words': { type: 'string', default: '2500' },
    'summary-words': { type: 'string', default: '120' },
    json: { type: 'string', default: resolve(repoRoot, 'bench/results/first-score.json') },
    label: { type: 'string', default: '' },
  },
});

const RUNS = Math.max(1, Number(args.runs));
const RELOAD_GOAL_MS = 2000;
const SCORE_GOAL_MS = 3000;
const PHASE_TIMEOUT_MS = 240_000;
const OFFLINE_METRIC_IDS = METRICS.filter((m) => m.needs !== 'llm').map((m) => m.id);
const ENCODER_MARK = 'sumlens:encoder-ready';

/** Bytes the server sent for the default encoder's files (models/use-lite, ORT's wasm). */
let encoderBytesSent = 0;

function countEncoderBytes(): Plugin {
  return {
    name: 'sumlens:bench-count-encoder-bytes',
    enforce: 'pre',
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (!/^\/(models\/use-lite\/|vendor\/ort\/.*\.wasm$)/u.test(path)) return next();
        const write = res.write.bind(res) as (...a: unknown[]) => boolean;
        const end = res.end.bind(res) as (...a: unknown[]) => typeof res;
        const count = (chunk: unknown) => {
          if (typeof chunk === 'string') encoderBytesSent += Buffer.byteLength(chunk);
          else if (chunk instanceof Uint8Array) encoderBytesSent += chunk.byteLength;
        };
        res.write = ((...a: unknown[]) => (count(a[0]), write(...a))) as typeof res.write;
        res.end = ((...a: unknown[]) => (count(a[0]), end(...a))) as typeof res.end;
        next();
      });
    },
  };
}

/** The `sumlens:encoder-ready` mark's time from navigation, once the page has set it. */
async function encoderReadyMs(page: Page): Promise<number> {
  await page.waitForFunction(
    (name) => performance.getEntriesByName(name).length > 0,
    ENCODER_MARK,
    { timeout: PHASE_TIMEOUT_MS, polling: 50 },
  );
  return page.evaluate((name) => performance.getEntriesByName(name)[0]!.startTime, ENCODER_MARK);
}

/** Every worker has loaded its backend: the model-progress rows are gone. */
async function workersLoaded(page: Page): Promise<void> {
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="model-progress"]').length === 0,
    undefined,
    { timeout: PHASE_TIMEOUT_MS, polling: 100 },
  );
}

interface ScoreRun {
  /** Click on Score → the last offline card's result, on the page's clock. */
  ms: number;
  lastCard: string;
  cards: Record<string, number>;
  coherenceBackend: string | null;
}

/**
 * Fills the form, clicks Score and times, on the page's clock, each offline card until it holds a
 * result (ok, n/a or error).
 */
async function scoreOnce(page: Page, source: string, summary: string): Promise<ScoreRun> {
  await page.getByTestId('source-input').fill(source);
  await page.getByTestId('summary-input').fill(summary);
  await page.evaluate((ids) => {
    const state: { click?: number; cards: Record<string, number>; done?: number } = { cards: {} };
    (window as unknown as { __firstScore: typeof state }).__firstScore = state;
    const settled = (id: string) =>
      ['ok', 'n/a', 'error'].includes(
        document.querySelector(`[data-testid="metric-${id}"]`)?.getAttribute('data-status') ?? '',
      );
    const look = () => {
      if (state.click === undefined || state.done !== undefined) return;
      const now = performance.now();
      for (const id of ids) {
        if (state.cards[id] === undefined && settled(id)) state.cards[id] = now - state.click;
      }
      if (ids.every((id) => state.cards[id] !== undefined)) {
        state.done = now - state.click;
        observer.disconnect();
      }
    };
    const observer = new MutationObserver(look);
    observer.observe(document.body, {
      subtree: true,
      attributes: true,
      attributeFilter: ['data-status'],
      childList: true,
    });
    document.querySelector('[data-testid="score-button"]')!.addEventListener(
      'click',
      () => {
        state.click = performance.now();
        // The cards turn "running" in this same task; anything settled after it is this run's.
        queueMicrotask(look);
      },
      { capture: true, once: true },
    );
  }, OFFLINE_METRIC_IDS);
  await page.getByTestId('score-button').click();
  await page.waitForFunction(
    () =>
      (window as unknown as { __firstScore: { done?: number } }).__firstScore.done !== undefined,
    undefined,
    { timeout: PHASE_TIMEOUT_MS, polling: 50 },
  );
  const state = await page.evaluate(
    () =>
      (window as unknown as { __firstScore: { done: number; cards: Record<string, number> } })
        .__firstScore,
  );
  const [lastCard] = Object.entries(state.cards).sort((a, b) => b[1] - a[1])[0]!;
  return {
    ms: state.done,
    lastCard,
    cards: state.cards,
    coherenceBackend: await page.getByTestId('metric-coherence').getAttribute('data-backend'),
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const ms = (x: number) => `${Math.round(x)} ms`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

async function newPage(context: BrowserContext, origin: string): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`  page error: ${error.message}`));
  await page.goto(origin);
  return page;
}

async function main(): Promise<void> {
  const port = process.env.SUMLENS_BENCH_PORT
    ? Number(process.env.SUMLENS_BENCH_PORT)
    : await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const texts = benchTexts();
  const source = takeWords([texts.source], Number(args['source-words']));
  const summary = takeWords(texts.summary.split('\n'), Number(args['summary-words']));
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: repoRoot,
    encoding: 'utf8',
  }).stdout.trim();
  const loadAtStart = loadavg();

  const server = await preview({
    root: repoRoot,
    logLevel: 'warn',
    preview: { port, strictPort: true, host: '127.0.0.1' },
    plugins: [countEncoderBytes()],
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    console.log(
      `first score: ${origin}, commit ${commit}, ${cpus().length} cores, load average ${load()}`,
    );
    // One fresh profile for the whole bench: its service worker and Cache Storage carry over.
    const context = await browser.newContext();
    // tsx compiles with esbuild's keepNames: functions passed to page.evaluate call `__name`.
    await context.addInitScript({ content: 'globalThis.__name ??= (f) => f;' });

    // First visit.
    const first = await newPage(context, origin);
    await first
      .getByTestId('offline-ready')
      .waitFor({ timeout: PHASE_TIMEOUT_MS, state: 'attached' });
    const offlineReadyMs = await first.evaluate(() => performance.now());
    const firstEncoderMs = await encoderReadyMs(first);
    const firstVisitBytes = encoderBytesSent;
    const controlled = await first.evaluate(() => navigator.serviceWorker.controller !== null);
    await first.close();
    console.log(
      `(a) first visit, fresh profile: "Works offline" after ${ms(offlineReadyMs)}, encoder ready after ${ms(firstEncoderMs)}; encoder bytes sent ${firstVisitBytes}; service worker in control: ${controlled}  [load ${load()}]`,
    );

    // Reloads from the caches.
    const reloads: { encoderReadyMs: number; encoderBytesSent: number; controlled: boolean }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const before = encoderBytesSent;
      const page = await newPage(context, origin);
      const readyMs = await encoderReadyMs(page);
      const controlled = await page.evaluate(() => navigator.serviceWorker.controller !== null);
      reloads.push({
        encoderReadyMs: readyMs,
        encoderBytesSent: encoderBytesSent - before,
        controlled,
      });
      await page.close();
      console.log(
        `(b) new page ${i + 1}/${RUNS}, same profile: navigation → encoder ready ${ms(readyMs)} (goal ≤ ${ms(RELOAD_GOAL_MS)}); encoder bytes from the server ${encoderBytesSent - before}; controlled ${controlled}  [load ${load()}]`,
      );
    }

    // Score on a fresh page.
    const scores: ScoreRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      const page = await newPage(context, origin);
      await encoderReadyMs(page);
      await workersLoaded(page);
      const run = await scoreOnce(page, source, summary);
      scores.push(run);
      await page.close();
      console.log(
        `(c) score ${i + 1}/${RUNS}: ${countWords(source)}-word source, ${countWords(summary)}-word summary: click → last card ${ms(run.ms)} (${run.lastCard}; goal ≤ ${ms(SCORE_GOAL_MS)}); coherence by ${run.coherenceBackend}  [load ${load()}]`,
      );
    }
    await context.close();

    const reloadMs = median(reloads.map((r) => r.encoderReadyMs));
    const scoreMs = median(scores.map((s) => s.ms));
    const loadAtEnd = loadavg();
    console.log('\nsummary (medians):');
    console.log(
      `  reload → encoder ready   ${ms(reloadMs).padStart(8)}   goal ≤ ${ms(RELOAD_GOAL_MS)}   ${reloadMs <= RELOAD_GOAL_MS ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `  Score → last card        ${ms(scoreMs).padStart(8)}   goal ≤ ${ms(SCORE_GOAL_MS)}   ${scoreMs <= SCORE_GOAL_MS ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `  load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(', ')}, at end ${loadAtEnd.map((l) => l.toFixed(2)).join(', ')} (${cpus().length} cores)`,
    );

    const report = {
      label: args.label,
      commit,
      date: new Date().toISOString(),
      cores: cpus().length,
      loadAverage: { start: loadAtStart, end: loadAtEnd },
      texts: { sourceWords: countWords(source), summaryWords: countWords(summary) },
      firstVisit: {
        offlineReadyMs,
        encoderReadyMs: firstEncoderMs,
        encoderBytesSent: firstVisitBytes,
      },
      reload: {
        goalMs: RELOAD_GOAL_MS,
        medianMs: reloadMs,
        pass: reloadMs <= RELOAD_GOAL_MS,
        runs: reloads,
      },
      score: {
        goalMs: SCORE_GOAL_MS,
        medianMs: scoreMs,
        pass: scoreMs <= SCORE_GOAL_MS,
        runs: scores,
      },
    };
    mkdirSync(dirname(args.json), { recursive: true });
    // As Prettier writes it, so that `npm run check` passes on the committed results.
    const options = (await resolveConfig(args.json)) ?? {};
    writeFileSync(args.json, await format(JSON.stringify(report), { ...options, parser: 'json' }));
    console.log(`written: ${args.json}`);
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
