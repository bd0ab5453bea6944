/**
 * `npm run bench:responsive`: does a 1,000-row batch run keep the page responsive? Issue 5 asks
 * that no main-thread task run over 50 ms while a data set of 1,000 rows is imported, scored with
 * the offline metrics and its finished run opened. This drives the built app (dist/, served by
 * `vite preview` on SUMLENS_BENCH_PORT, default 4174) in Debian's Chromium and records every
 * main-thread long task (PerformanceObserver 'longtask', buffered, installed before the app's own
 * scripts) and the time windows of each phase:
 *
 *   load          the page loading, up to the import
 *   import        the file given to the page → the data set listed
 *   run           "Run offline metrics" → the run's end (the app's `sumlens:open` mark)
 *   open (auto)   the view the page opens by itself when the run ends, until it is drawn
 *   open (click)  "Open" on the finished run, until its view is drawn again
 *
 * plus, across phases, the tasks that overlap the calibration (the app's `sumlens:calibration`
 * measure). It prints one table: per phase the wall time, the long tasks, the longest, their
 * total and the blocking time (the part of each beyond 50 ms), and says which phases had a task
 * over 50 ms. It measures; it never asserts a time (machines are shared and noisy).
 *
 * A long task is wall time, so on a busy machine a task that needs 15 ms of CPU can last 80 ms
 * while the page's thread waits for a core. A light Chrome trace (the 'toplevel' category) gives
 * each main-thread task's CPU time as well: the last two columns count the tasks that used more
 * than 50 ms of CPU, which is what the page asks of any machine. The load average is printed.
 *
 * The data: SummEval's 600 dev rows (../shared/data/summeval/dev.jsonl) as a cases file with the
 * mean expert and turker ratings, plus 400 more rows made of the first 400 summaries compared
 * with another of their article's human references: the summary, its source and so its ratings
 * are unchanged, the reference-based scores differ. Options: `--rows N` (default 1000),
 * `--trace FILE` (a full Chrome trace with JS samples: DevTools' Performance panel or
 * ui.perfetto.dev show what each long task ran; it slows the page down), `--json FILE`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { preview } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../src/lib/node/chromium.ts';
import { externalPath } from '../src/lib/node/external-data.ts';

const repoRoot = resolve(import.meta.dirname, '..');
const PORT = Number(process.env.SUMLENS_BENCH_PORT ?? 4174);
const ORIGIN = `http://127.0.0.1:${PORT}`;
/** A task longer than this blocks input noticeably (RAIL; the browser's long-task threshold). */
const LONG_TASK_MS = 50;
/** Quiet time after a view is drawn, so that trailing work (chart resizes, GC) is counted. */
const SETTLE_MS = 1500;
const RUN_TIMEOUT_MS = 20 * 60_000;

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000' },
    trace: { type: 'string' },
    json: { type: 'string' },
  },
});
const ROWS = Number(args.rows);
if (!Number.isInteger(ROWS) || ROWS < 2 || ROWS > 1200) {
  throw new Error(
    `--rows must be an integer from 2 to 1200 (600 dev rows, each reused once at most)`,
  );
}

function log(message: string): void {
  process.stderr.write(`[bench:responsive] ${message}\n`);
}

// ---- The cases file ----

interface SummEvalRecord {
  id: string;
  model_id: string;
  text: string;
  decoded: string;
  references: string[];
  expert_annotations: Record<string, number>[];
  turker_annotations: Record<string, number>[];
}

function meanRatings(
  prefix: string,
  annotations: Record<string, number>[],
): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const a of annotations) for (const [k, v] of Object.entries(a)) sums[k] = (sums[k] ?? 0) + v;
  return Object.fromEntries(
    Object.entries(sums).map(([k, v]) => [`${prefix}_${k}`, v / annotations.length]),
  );
}

function casesFile(dir: string): string {
  const records = readFileSync(externalPath('data/summeval/dev.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SummEvalRecord);
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    const r = records[i % records.length]!;
    // The second pass compares the same summary with another reference of its article.
    const pass = Math.floor(i / records.length);
    lines.push(
      JSON.stringify({
        source: r.text,
        summary: r.decoded,
        reference: r.references[pass % r.references.length],
        doc_id: r.id,
        model_id: r.model_id,
        ...meanRatings('expert', r.expert_annotations),
        ...meanRatings('turker', r.turker_annotations),
      }),
    );
  }
  const file = join(dir, `summeval-${ROWS}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

// ---- In the page ----

interface LongTask {
  start: number;
  duration: number;
}

declare global {
  interface Window {
    __sumlensLongTasks?: LongTask[];
  }
}

/** Installed before the app's scripts, so every long task of the page's life is seen. */
function observeLongTasks(): void {
  window.__sumlensLongTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      window.__sumlensLongTasks?.push({ start: entry.startTime, duration: entry.duration });
    }
  }).observe({ type: 'longtask', buffered: true });
}

const now = (page: Page) => page.evaluate(() => performance.now());

/** Two animation frames: whatever the last change scheduled has been painted. */
const painted = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))),
  );

async function settle(page: Page): Promise<number> {
  await painted(page);
  await page.waitForTimeout(SETTLE_MS);
  return now(page);
}

interface TimedEntry {
  name: string;
  start: number;
  end: number;
}

/** The app's own User Timing marks and measures (`sumlens:*`). */
function appTimings(page: Page): Promise<TimedEntry[]> {
  return page.evaluate(() =>
    performance
      .getEntries()
      .filter(
        (e) =>
          (e.entryType === 'mark' || e.entryType === 'measure') && e.name.startsWith('sumlens:'),
      )
      .map((e) => ({ name: e.name, start: e.startTime, end: e.startTime + e.duration })),
  );
}

async function waitForAppTiming(page: Page, name: string, count: number, timeout: number) {
  await page.waitForFunction(
    ([n, c]) => performance.getEntriesByName(n as string).length >= (c as number),
    [name, count] as const,
    { timeout, polling: 100 },
  );
}

// ---- The run ----

interface Phase {
  name: string;
  start: number;
  end: number;
}

interface PhaseReport {
  phase: string;
  wallMs: number;
  longTasks: number;
  longestMs: number;
  totalMs: number;
  blockingMs: number;
  /** Tasks that used more than LONG_TASK_MS of the main thread's CPU. */
  cpuLongTasks: number;
  longestCpuMs: number;
}

function report(
  name: string,
  wallMs: number,
  tasks: readonly LongTask[],
  cpuTasks: readonly CpuTask[],
): PhaseReport {
  return {
    phase: name,
    wallMs,
    longTasks: tasks.length,
    longestMs: tasks.reduce((m, t) => Math.max(m, t.duration), 0),
    totalMs: tasks.reduce((s, t) => s + t.duration, 0),
    blockingMs: tasks.reduce((s, t) => s + Math.max(0, t.duration - LONG_TASK_MS), 0),
    cpuLongTasks: cpuTasks.length,
    longestCpuMs: cpuTasks.reduce((m, t) => Math.max(m, t.cpu), 0),
  };
}

// ---- CPU time per task, from a Chrome trace ----

/** Tasks and User Timing marks only: cheap enough not to change what is measured. */
const LIGHT_TRACE = ['toplevel', 'blink.user_timing', '__metadata'];
const FULL_TRACE = [
  ...LIGHT_TRACE,
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8.execute',
  'disabled-by-default-v8.cpu_profiler',
];

interface CpuTask extends LongTask {
  /** Thread (CPU) time of the task, ms. */
  cpu: number;
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { data?: { startTime?: number } };
}

/**
 * The page's main-thread tasks that used more than LONG_TASK_MS of CPU, on the page's clock. The
 * thread and the clock come from the app's first `sumlens:open` mark: its trace event carries
 * both the trace timestamp (µs) and `performance.now()` (ms).
 */
function cpuLongTasks(trace: Buffer): CpuTask[] {
  const parsed = JSON.parse(trace.toString('utf8')) as TraceEvent[] | { traceEvents: TraceEvent[] };
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const mark = events.find((e) => e.name === 'sumlens:open' && e.args?.data?.startTime);
  if (!mark) throw new Error('The trace has no sumlens:open mark: was the run opened?');
  const offset = mark.ts / 1000 - mark.args!.data!.startTime!;
  const onThread = events.filter((e) => e.pid === mark.pid && e.tid === mark.tid && e.ph === 'X');
  // 'toplevel' names a task ThreadControllerImpl::RunTask; a full trace adds the same task as
  // RunTask (devtools.timeline): count each task once.
  const name = onThread.some((e) => e.name === 'ThreadControllerImpl::RunTask')
    ? 'ThreadControllerImpl::RunTask'
    : 'RunTask';
  return onThread
    .filter((e) => e.name === name && (e.tdur ?? 0) / 1000 > LONG_TASK_MS)
    .map((e) => ({ start: e.ts / 1000 - offset, duration: e.dur! / 1000, cpu: e.tdur! / 1000 }));
}

async function main(): Promise<void> {
  if (!existsSync(resolve(repoRoot, 'dist/index.html'))) {
    throw new Error(
      'No build in dist/: run "npm run build" first (npm run bench:responsive does).',
    );
  }
  const startLoad = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const work = mkdtempSync(join(tmpdir(), 'sumlens-responsive-'));
  const file = casesFile(work);
  log(`${ROWS} rows in ${file}`);

  const server = await preview({
    root: repoRoot,
    logLevel: 'warn',
    preview: { port: PORT, strictPort: true, host: '127.0.0.1' },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.addInitScript(observeLongTasks);
    await browser.startTracing(page, {
      categories: args.trace ? FULL_TRACE : LIGHT_TRACE,
      ...(args.trace ? { path: args.trace } : {}),
    });
    await page.goto(ORIGIN);
    await page.getByTestId('dataset-file').waitFor();
    const phases: Phase[] = [];

    // Import.
    await painted(page);
    let start = await now(page);
    phases.push({ name: 'load', start: 0, end: start });
    await page.getByTestId('dataset-file').setInputFiles(file);
    await page.getByTestId('dataset-item').first().waitFor({ timeout: 120_000 });
    await page.waitForSelector('[data-testid="dataset-import"][data-done="true"]', {
      timeout: 120_000,
    });
    let end = await settle(page);
    phases.push({ name: 'import', start, end });
    log(`imported: ${await page.getByTestId('dataset-import').innerText()}`);

    // Run: ends where the app starts opening the finished run.
    start = await now(page);
    await page.getByTestId('run-offline').first().click();
    log('running the offline metrics…');
    await waitForAppTiming(page, 'sumlens:open', 1, RUN_TIMEOUT_MS);
    const runEnd = (await appTimings(page)).find((t) => t.name === 'sumlens:open')!.start;
    phases.push({ name: 'run', start, end: runEnd });
    log(`run: ${await page.getByTestId('run-item').first().locator('span').first().innerText()}`);

    // The view the page opens by itself.
    await waitForAppTiming(page, 'sumlens:calibration', 1, 120_000);
    await page.getByTestId('calibration-matrix').waitFor({ timeout: 120_000 });
    end = await settle(page);
    phases.push({ name: 'open (auto)', start: runEnd, end });

    // Open again, as a user does from the list.
    const before = await appTimings(page);
    const opens = before.filter((t) => t.name === 'sumlens:open').length;
    const calibrated = before.filter((t) => t.name === 'sumlens:calibration').length;
    start = await now(page);
    await page.getByTestId('run-open').first().click();
    await waitForAppTiming(page, 'sumlens:open', opens + 1, 120_000);
    await waitForAppTiming(page, 'sumlens:calibration', calibrated + 1, 120_000);
    await page.getByTestId('calibration-matrix').waitFor({ timeout: 120_000 });
    end = await settle(page);
    phases.push({ name: 'open (click)', start, end });

    const trace = await browser.stopTracing();
    if (args.trace) log(`trace: ${args.trace}`);
    const tasks = await page.evaluate(() => window.__sumlensLongTasks ?? []);
    const cpuTasks = cpuLongTasks(trace);
    const timings = await appTimings(page);
    const calibrations = timings.filter((t) => t.name === 'sumlens:calibration');

    const within = (p: Phase) => (t: LongTask) => t.start >= p.start && t.start < p.end;
    const rows = phases.map((p) =>
      report(p.name, p.end - p.start, tasks.filter(within(p)), cpuTasks.filter(within(p))),
    );
    const outside = (t: LongTask) => !phases.some((p) => within(p)(t));
    if (tasks.some(outside) || cpuTasks.some(outside)) {
      rows.push(report('between phases', 0, tasks.filter(outside), cpuTasks.filter(outside)));
    }
    const overlaps = (t: LongTask) =>
      calibrations.some((c) => t.start < c.end && t.start + t.duration > c.start);
    rows.push(
      report(
        'of which during calibration',
        calibrations.reduce((sum, c) => sum + (c.end - c.start), 0),
        tasks.filter(overlaps),
        cpuTasks.filter(overlaps),
      ),
    );

    const row = await page.getByTestId('calibration-row').count();
    printTable(rows, calibrations.length, row, startLoad);
    if (errors.length > 0) log(`page errors: ${errors.join(' | ')}`);
    if (args.json) {
      writeFileSync(
        args.json,
        JSON.stringify({ rows: ROWS, phases: rows, tasks, cpuTasks }, null, 2),
      );
    }
  } finally {
    await browser.close();
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

function printTable(
  rows: readonly PhaseReport[],
  calibrations: number,
  pairs: number,
  startLoad: string,
): void {
  const ms = (v: number) => v.toFixed(0);
  const header = [
    'phase',
    'wall ms',
    'long tasks',
    'longest ms',
    'in long tasks ms',
    'blocking ms',
    `tasks > ${LONG_TASK_MS} ms CPU`,
    'longest CPU ms',
  ];
  const lines = rows.map((r) => [
    r.phase,
    r.wallMs ? ms(r.wallMs) : '—',
    String(r.longTasks),
    ms(r.longestMs),
    ms(r.totalMs),
    ms(r.blockingMs),
    String(r.cpuLongTasks),
    ms(r.longestCpuMs),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(`\nMain-thread long tasks (> ${LONG_TASK_MS} ms), ${ROWS} rows, offline metrics`);
  console.log(`Chromium ${CHROMIUM_PATH}, calibration computed ${calibrations}× (${pairs} pairs)`);
  console.log(
    `${cpus().length} CPUs, load average (1, 5, 15 min) ${startLoad} at the start, ${load} at the end\n`,
  );
  console.log(fmt(header));
  console.log(
    `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`,
  );
  for (const l of lines) console.log(fmt(l));
  const phases = rows.filter((r) => r.phase !== 'of which during calibration');
  const over = phases.filter((r) => r.longTasks > 0);
  const overCpu = phases.filter((r) => r.cpuLongTasks > 0);
  const list = (
    selected: PhaseReport[],
    count: (r: PhaseReport) => number,
    longest: (r: PhaseReport) => number,
  ) => selected.map((r) => `${r.phase} (${count(r)}, longest ${ms(longest(r))} ms)`).join('; ');
  console.log(
    over.length === 0
      ? `\nNo main-thread task over ${LONG_TASK_MS} ms in any phase.`
      : `\nTasks over ${LONG_TASK_MS} ms: ${list(
          over,
          (r) => r.longTasks,
          (r) => r.longestMs,
        )}.`,
  );
  console.log(
    overCpu.length === 0
      ? `No main-thread task used more than ${LONG_TASK_MS} ms of CPU in any phase.`
      : `Tasks over ${LONG_TASK_MS} ms of CPU: ${list(
          overCpu,
          (r) => r.cpuLongTasks,
          (r) => r.longestCpuMs,
        )}.`,
  );
}

await main();
