/**
 * `npm run bench:long-paste`: does a very long source keep the page responsive? The issue pasted a
 * 300,000-word source (1.79 M characters): the page was blocked for 31 s (a bare textarea takes
 * 4 s), and a reload with that draft took 23 s. The goals: no main-thread task over 200 ms during
 * or after the paste, and a reload with the draft usable within 2 s.
 *
 * This serves the built app (dist/, `vite preview` on SUMLENS_BENCH_PORT, default a free port) to Debian's
 * Chromium and records every main-thread long task (PerformanceObserver 'longtask', buffered,
 * installed before the app's scripts). Two phases:
 *
 *   paste    the text put on the clipboard and pasted into the empty source box with Ctrl+V (a
 *            trusted key press, so the browser pastes as it does for a person; Input.insertText,
 *            which inserts line by line, took a bare textarea 237 s for this text where a real
 *            paste took it 3.4 s), then one key typed into the summary box; until the page is
 *            idle (no long task for IDLE_MS).
 *            Reported: the longest task, the blocking time (each task's part beyond 50 ms), the
 *            time until the typed key was on screen, and until the word count was shown (when
 *            the page shows one, `data-words` on the source box's counter).
 *   reload   once the draft holds the whole text, the page reloaded: the time from navigation
 *            until the source box holds the draft and Score is enabled, until a key typed into
 *            the summary box is on screen ("usable"), and the longest task until idle; beside
 *            it, the first visit's time until the empty form is shown (the page's own start).
 *
 * Times are read on the page's clock in animation frames, so a blocked page cannot report early.
 * A long task is wall time: on a busy machine a task needing 50 ms of CPU lasts 300 ms while the
 * page's thread waits for a core, so a light Chrome trace gives each phase's longest task's CPU
 * time too. It measures; it never asserts a time (the machine is shared and noisy).
 * `--words N` (default 300000), `--json FILE` (default bench/results/long-paste.json),
 * `--before FILE` (an earlier run's JSON: the table prints both columns), `--label TEXT` (stored
 * in the JSON), `--dist DIR` (another build, e.g. of an earlier commit, to measure it the same
 * way back to back with this one on the same load).
 */
import { freePort } from './support/free-port.ts';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { preview } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../src/lib/node/chromium.ts';
import { longText } from './long-paste-text.ts';
import {
  clockOf,
  LIGHT_TRACE,
  traceEvents,
  type PageClock,
  type TraceEvent,
} from './support/trace.ts';

const repoRoot = resolve(import.meta.dirname, '..');
/** SUMLENS_BENCH_PORT, else a port nobody listens on (other checkouts run their own servers). */
const PORT = process.env.SUMLENS_BENCH_PORT
  ? Number(process.env.SUMLENS_BENCH_PORT)
  : await freePort();
const ORIGIN = `http://127.0.0.1:${PORT}`;

/** The browser's long-task threshold; the part of a task beyond it is blocking time. */
const LONG_TASK_MS = 50;
/** No long task for this long: the page is idle. */
const IDLE_MS = 3000;
const PHASE_TIMEOUT_MS = 180_000;

const { values: args } = parseArgs({
  options: {
    words: { type: 'string', default: '300000' },
    json: { type: 'string', default: resolve(repoRoot, 'bench/results/long-paste.json') },
    before: { type: 'string' },
    label: { type: 'string', default: '' },
    dist: { type: 'string', default: 'dist' },
  },
});
const WORDS = Number(args.words);
if (!Number.isInteger(WORDS) || WORDS < 1000) throw new Error('--words must be an integer ≥ 1000');

function log(message: string): void {
  process.stderr.write(`[bench:long-paste] ${message}\n`);
}

// ---- In the page ----

interface LongTask {
  start: number;
  duration: number;
}

declare global {
  interface Window {
    __longTasks?: LongTask[];
    __wordsShownAt?: number;
  }
}

function observeLongTasks(): void {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      window.__longTasks?.push({ start: entry.startTime, duration: entry.duration });
    }
  }).observe({ type: 'longtask', buffered: true });
}

/**
 * The page's clock at the first animation frame where `check` returns a time (it returns
 * `performance.now()` when its condition holds, else false): a blocked page cannot answer early.
 */
async function frameWhen<A>(
  page: Page,
  check: (arg: A) => number | false,
  arg: A,
): Promise<number> {
  const handle = await page.waitForFunction(check as (arg: unknown) => number | false, arg, {
    polling: 'raf',
    timeout: PHASE_TIMEOUT_MS,
  });
  return (await handle.jsonValue()) as number;
}

/** performance.now() once the summary box holds `value`. */
function summaryHolds(value: string): number | false {
  const box = document.querySelector<HTMLTextAreaElement>('[data-testid="summary-input"]');
  return box?.value === value ? performance.now() : false;
}

/**
 * performance.now() once the source field holds `length` characters (in its box, or in the view
 * the page shows instead of a box for a text too long for one) and Score is enabled.
 */
function draftShown(length: number): number | false {
  const box = document.querySelector<HTMLTextAreaElement>('[data-testid="source-input"]');
  const large = document.querySelector('[data-testid="source-input-large"]');
  const score = document.querySelector<HTMLButtonElement>('[data-testid="score-button"]');
  const held = box?.value.length === length || large?.getAttribute('data-chars') === String(length);
  return held && score && !score.disabled ? performance.now() : false;
}

/** Waits until no long task has ended for IDLE_MS; returns the page's tasks since `from`. */
async function untilIdle(page: Page, from: number): Promise<{ tasks: LongTask[]; idleAt: number }> {
  const deadline = Date.now() + PHASE_TIMEOUT_MS;
  for (;;) {
    const { tasks, now } = await page.evaluate(() => ({
      tasks: window.__longTasks ?? [],
      now: performance.now(),
    }));
    const since = tasks.filter((t) => t.start + t.duration >= from);
    const lastEnd = since.reduce((m, t) => Math.max(m, t.start + t.duration), from);
    if (now - lastEnd >= IDLE_MS) return { tasks: since, idleAt: lastEnd };
    if (Date.now() > deadline) throw new Error('The page did not become idle.');
    await new Promise((done) => setTimeout(done, 250));
  }
}

/**
 * The draft in IndexedDB (storage/cases.ts), read with the bare API: its source's length, or -1
 * when there is none or its summary is not `summary` yet.
 */
const storedDraftLength = (page: Page, summary: string) =>
  page.evaluate(
    (summary) =>
      new Promise<number>((done) => {
        const open = indexedDB.open('sumlens');
        open.onerror = () => done(-1);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('drafts')) return (done(-1), db.close());
          const get = db.transaction('drafts').objectStore('drafts').get('current');
          get.onsuccess = () => {
            const draft = get.result as
              { input?: { source?: string; summary?: string } } | undefined;
            done(draft?.input?.summary === summary ? (draft.input.source?.length ?? -1) : -1);
            db.close();
          };
          get.onerror = () => (done(-1), db.close());
        };
      }),
    summary,
  );

// ---- CPU time per task, from a light Chrome trace (as bench/responsive.ts reads it) ----

/**
 * The CPU (thread) time of the longest task on a document's main thread that started within
 * [from, to) on the trace's clock: what the page asks of the machine, whatever else runs on it (a
 * task needing 80 ms of CPU lasts 300 ms of wall time while the machine's cores are busy).
 */
function longestCpu(events: readonly TraceEvent[], clock: PageClock, from: number, to: number) {
  const name = events.some((e) => e.name === 'ThreadControllerImpl::RunTask')
    ? 'ThreadControllerImpl::RunTask'
    : 'RunTask';
  return events
    .filter((e) => e.pid === clock.pid && e.tid === clock.tid && e.ph === 'X' && e.name === name)
    .filter((e) => e.ts / 1000 >= from && e.ts / 1000 < to)
    .reduce((m, e) => Math.max(m, (e.tdur ?? 0) / 1000), 0);
}

// ---- The report ----

interface PhaseResult {
  longestTaskMs: number;
  longTasks: number;
  blockingMs: number;
  /** The main-thread CPU time of the phase's longest task (a Chrome trace's thread time). */
  longestCpuMs?: number;
  /** Every long task: start (ms from the phase's start) and duration. */
  tasks?: LongTask[];
}

interface BenchResult {
  label: string;
  when: string;
  machine: { cpus: number; model: string; loadBefore: string };
  words: number;
  chars: number;
  paste: PhaseResult & {
    /** The Ctrl+V key press, as the caller waited for it. */
    pasteKeyMs: number;
    /** Paste start → the key typed into the summary box on screen. */
    typingEchoMs: number;
    /** Paste start → the word count shown, when the page shows one. */
    wordCountMs: number | null;
    /** Paste start → idle (no long task for IDLE_MS), less the idle wait. */
    busyMs: number;
  };
  /** Navigation → the empty form shown and Score enabled, on the first visit (no draft). */
  emptyFormShownMs?: number;
  reload: PhaseResult & {
    /** Navigation → the source box holds the draft and Score is enabled. */
    draftShownMs: number;
    /** Navigation → a key typed into the summary box is on screen. */
    usableMs: number;
  };
}

function phase(tasks: readonly LongTask[], from: number, longestCpuMs: number): PhaseResult {
  return {
    longestCpuMs: Math.round(longestCpuMs),
    tasks: tasks.map((t) => ({
      start: Math.round(t.start - from),
      duration: Math.round(t.duration),
    })),
    longestTaskMs: Math.round(tasks.reduce((m, t) => Math.max(m, t.duration), 0)),
    longTasks: tasks.length,
    blockingMs: Math.round(tasks.reduce((s, t) => s + Math.max(0, t.duration - LONG_TASK_MS), 0)),
  };
}

const ROWS: [string, (r: BenchResult) => number | null][] = [
  ['paste: longest task (ms)', (r) => r.paste.longestTaskMs],
  ['paste: longest task, CPU (ms)', (r) => r.paste.longestCpuMs ?? null],
  ['paste: blocking time (ms)', (r) => r.paste.blockingMs],
  ['paste: long tasks', (r) => r.paste.longTasks],
  ['paste: Ctrl+V handled (ms)', (r) => r.paste.pasteKeyMs],
  ['paste: typing in summary echoed (ms)', (r) => r.paste.typingEchoMs],
  ['paste: word count shown (ms)', (r) => r.paste.wordCountMs],
  ['paste: busy until idle (ms)', (r) => r.paste.busyMs],
  ['first visit: empty form shown (ms)', (r) => r.emptyFormShownMs ?? null],
  ['reload: draft shown, Score enabled (ms)', (r) => r.reload.draftShownMs],
  ['reload: usable, typing echoed (ms)', (r) => r.reload.usableMs],
  ['reload: longest task (ms)', (r) => r.reload.longestTaskMs],
  ['reload: longest task, CPU (ms)', (r) => r.reload.longestCpuMs ?? null],
  ['reload: blocking time (ms)', (r) => r.reload.blockingMs],
];

function table(after: BenchResult, before?: BenchResult): string {
  const cell = (v: number | null) => (v === null ? '—' : String(Math.round(v)));
  const head = before
    ? [
        '',
        `before${before.label ? ` (${before.label})` : ''}`,
        `after${after.label ? ` (${after.label})` : ''}`,
      ]
    : ['', after.label || 'this run'];
  const lines = [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i ? ' ---: ' : ' --- ')).join('|')}|`,
  ];
  for (const [name, get] of ROWS) {
    const values = before ? [get(before), get(after)] : [get(after)];
    lines.push(`| ${name} | ${values.map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}

// ---- The run ----

async function main(): Promise<void> {
  const before = args.before
    ? (JSON.parse(readFileSync(args.before, 'utf8')) as BenchResult)
    : undefined;
  const { text, words } = longText(WORDS);
  log(`${words} words, ${text.length} characters`);
  const loadBefore = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

  const server = await preview({
    root: repoRoot,
    logLevel: 'warn',
    preview: { port: PORT, strictPort: true, host: '127.0.0.1' },
    build: { outDir: args.dist },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
    const page = await context.newPage();
    page.on('pageerror', (e) => log(`page error: ${e.message}`));
    await page.addInitScript(observeLongTasks);
    await page.goto(ORIGIN);
    const source = page.getByTestId('source-input');
    const summary = page.getByTestId('summary-input');
    // The page's own start with an empty form, for comparison with the reload below.
    const emptyShownAt = await frameWhen(page, draftShown, 0);
    await source.waitFor();
    await untilIdle(page, 0);

    // Paste, with an observer that notes when the source's word count shows the right number.
    await page.evaluate((expected) => {
      new MutationObserver(() => {
        const counter = document.querySelector('[data-testid="source-input-words"]');
        if (window.__wordsShownAt === undefined && counter?.getAttribute('data-words') === expected)
          window.__wordsShownAt = performance.now();
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    }, String(words));
    await page.evaluate((text) => navigator.clipboard.writeText(text), text);
    await source.focus();
    await browser.startTracing(page, { categories: LIGHT_TRACE });
    await page.evaluate(() => performance.mark('bench:clock-1'));
    const pasteAt = await page.evaluate(() => performance.now());
    const pressed = Date.now();
    await page.keyboard.press('ControlOrMeta+V');
    const pasteKeyMs = Date.now() - pressed;
    log(`Ctrl+V handled after ${pasteKeyMs} ms`);
    await summary.focus();
    await page.keyboard.type('x');
    const echoAt = await frameWhen(page, summaryHolds, 'x');
    log(`typing echoed ${Math.round(echoAt - pasteAt)} ms after the paste began`);
    const pasted = await untilIdle(page, pasteAt);
    const counted = await page.evaluate(() => ({
      shownAt: window.__wordsShownAt ?? null,
      counter: document.querySelector('[data-testid="source-input-words"]')?.textContent ?? null,
    }));
    if (counted.counter !== null && counted.shownAt === null) {
      throw new Error(`The word count never showed ${words}: "${counted.counter}".`);
    }
    if (!(await page.evaluate(draftShown, text.length))) {
      throw new Error('The source field does not hold the whole text.');
    }

    // The draft, stored in full, then a reload.
    const draftDeadline = Date.now() + PHASE_TIMEOUT_MS;
    while ((await storedDraftLength(page, 'x')) !== text.length) {
      if (Date.now() > draftDeadline) throw new Error('The draft was never stored in full.');
      await new Promise((done) => setTimeout(done, 250));
    }
    log('draft stored; reloading');
    await page.reload({ waitUntil: 'commit' });
    const draftShownAt = await frameWhen(page, draftShown, text.length);
    await summary.focus();
    await page.keyboard.press('End');
    await page.keyboard.type('y');
    const usableAt = await frameWhen(page, summaryHolds, 'xy');
    const reloaded = await untilIdle(page, 0);
    await page.evaluate(() => performance.mark('bench:clock-2'));
    const events = traceEvents(await browser.stopTracing());
    const pasteClock = clockOf(events, 'bench:clock-1');
    const reloadClock = clockOf(events, 'bench:clock-2');
    const reloadStart = reloadClock.offset; // the new document's time 0, on the trace's clock
    const pasteCpu = longestCpu(events, pasteClock, pasteAt + pasteClock.offset, reloadStart);
    const reloadCpu = longestCpu(events, reloadClock, reloadStart, Infinity);

    const result: BenchResult = {
      label: args.label,
      when: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '', loadBefore },
      words,
      chars: text.length,
      paste: {
        ...phase(pasted.tasks, pasteAt, pasteCpu),
        pasteKeyMs,
        typingEchoMs: Math.round(echoAt - pasteAt),
        wordCountMs: counted.shownAt === null ? null : Math.round(counted.shownAt - pasteAt),
        busyMs: Math.round(Math.max(pasted.idleAt, echoAt) - pasteAt),
      },
      emptyFormShownMs: Math.round(emptyShownAt),
      reload: {
        ...phase(reloaded.tasks, 0, reloadCpu),
        draftShownMs: Math.round(draftShownAt),
        usableMs: Math.round(usableAt),
      },
    };
    mkdirSync(dirname(args.json), { recursive: true });
    writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
    console.log(
      `\n${words} words, ${text.length} characters; ${result.machine.cpus} CPUs (${result.machine.model}), load ${loadBefore} → ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n`,
    );
    console.log(table(result, before));
    log(`JSON: ${args.json}`);
  } finally {
    await browser.close();
    await new Promise<void>((done) => server.httpServer.close(() => done()));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
