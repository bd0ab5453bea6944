/**
 * `npm run bench:responsive`: does a 1,000-row batch run keep the page responsive? Issue 5 asks
 * that no main-thread task run over 50 ms while a data set of 1,000 rows is imported, scored with
 * the offline metrics and its finished run opened; issue 15 asks the same of a comparison of two
 * 1,000-row runs. This drives the built app (dist/, served by `vite preview` on
 * SUMLENS_BENCH_PORT, default 4174) in Debian's Chromium and records every main-thread long task
 * (PerformanceObserver 'longtask', buffered, installed before the app's own scripts) and the time
 * windows of each phase:
 *
 *   load                   the page loading, up to the import
 *   import                 the file given to the page → the data set listed
 *   run                    "Run offline metrics" → the run's end (the app's `sumlens:open` mark)
 *   open (auto)            the view the page opens by itself when the run ends, until it is drawn
 *   open (click)           "Open" on the finished run, until its view is drawn again
 *   import B, run B,       the same for data set B (below)
 *   open B (auto)
 *   compare (click)        "Compare" on run A, then B picked, until the comparison of A and B
 *                          (its metric summary and its first rows) is drawn
 *   sort (row order),      the per-row table sorted, until its rows are in that order
 *   sort (regression)
 *   only changed           "Only changed" ticked
 *   pair diff (click)      the first pair clicked, until its two summaries' word diff is drawn
 *   reload (page start)    the page reloaded on the comparison's hash, up to the app drawn
 *   compare (hash reload)  then until the comparison of A and B is drawn again
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
 * The reload starts a new document with its own clock and long-task list: the bench keeps the
 * first document's before it reloads, and ties each document's clock to the trace's by a mark.
 *
 * The data: SummEval's 600 dev rows (../shared/data/summeval/dev.jsonl) as a cases file with the
 * mean expert and turker ratings, plus 400 more rows made of the first 400 summaries compared
 * with another of their article's human references: the summary, its source and so its ratings
 * are unchanged, the reference-based scores differ. Data set B has the same rows' record ids,
 * sources and references, each with another system's summary of the same article (the next of
 * its 12 systems, rotated) and that summary's ratings, so the comparison pairs the runs by record
 * id and its deltas are real. Options: `--rows N` (default 1000), `--trace FILE` (a full Chrome
 * trace with JS samples: DevTools' Performance panel or ui.perfetto.dev show what each long task
 * ran; it slows the page down), `--json FILE`.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { preview } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../src/lib/node/chromium.ts';
import { readDevRows, type DevRow } from '../src/lib/node/validity/summeval.ts';
import {
  clockOf,
  LIGHT_TRACE,
  traceEvents,
  type PageClock,
  type TraceEvent,
} from './support/trace.ts';

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

/** The dev file's records carry the turkers' ratings too, which the cases file keeps. */
type SummEvalRecord = DevRow & { turker_annotations: Record<string, number>[] };

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

/**
 * Per record, another system's summary of its article (the next of the article's systems in
 * file order, rotated): what run B scores in place of run A's summary.
 */
function otherSystem(records: readonly SummEvalRecord[]): SummEvalRecord[] {
  const byArticle = new Map<string, SummEvalRecord[]>();
  for (const r of records) byArticle.set(r.id, [...(byArticle.get(r.id) ?? []), r]);
  return records.map((r) => {
    const same = byArticle.get(r.id)!;
    return same[(same.indexOf(r) + 1) % same.length]!;
  });
}

/**
 * Data set A, and data set B over the same record ids (so the comparison pairs them by id) with
 * another system's summary of each row's article and that summary's ratings.
 */
function casesFiles(dir: string): { a: string; b: string } {
  const records = readDevRows() as SummEvalRecord[];
  const others = otherSystem(records);
  const lines: { a: string[]; b: string[] } = { a: [], b: [] };
  for (let i = 0; i < ROWS; i++) {
    const r = records[i % records.length]!;
    // The second pass compares the same summary with another reference of its article.
    const pass = Math.floor(i / records.length);
    const id = `${r.id}/${r.model_id}/${pass}`;
    const reference = r.references[pass % r.references.length];
    for (const [side, s] of [
      ['a', r],
      ['b', others[i % records.length]!],
    ] as const) {
      lines[side].push(
        JSON.stringify({
          id,
          source: r.text,
          summary: s.decoded,
          reference,
          doc_id: r.id,
          model_id: s.model_id,
          ...meanRatings('expert', s.expert_annotations),
          ...meanRatings('turker', s.turker_annotations),
        }),
      );
    }
  }
  const a = join(dir, `summeval-${ROWS}.jsonl`);
  const b = join(dir, `summeval-${ROWS}-other-system.jsonl`);
  writeFileSync(a, lines.a.join('\n') + '\n');
  writeFileSync(b, lines.b.join('\n') + '\n');
  return { a, b };
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

/**
 * The tasks on a document's main thread that used more than LONG_TASK_MS of CPU and started
 * within [from, to) on the trace's clock (ms), on the document's clock.
 */
function cpuLongTasks(
  events: readonly TraceEvent[],
  clock: PageClock,
  from = -Infinity,
  to = Infinity,
): CpuTask[] {
  const onThread = events.filter((e) => e.pid === clock.pid && e.tid === clock.tid && e.ph === 'X');
  // 'toplevel' names a task ThreadControllerImpl::RunTask; a full trace adds the same task as
  // RunTask (devtools.timeline): count each task once.
  const name = onThread.some((e) => e.name === 'ThreadControllerImpl::RunTask')
    ? 'ThreadControllerImpl::RunTask'
    : 'RunTask';
  return onThread
    .filter((e) => e.name === name && (e.tdur ?? 0) / 1000 > LONG_TASK_MS)
    .filter((e) => e.ts / 1000 >= from && e.ts / 1000 < to)
    .map((e) => ({
      start: e.ts / 1000 - clock.offset,
      duration: e.dur! / 1000,
      cpu: e.tdur! / 1000,
    }));
}

/** One document's life in the page (the bench reloads it once): its phases and what it saw. */
interface PageLife {
  phases: Phase[];
  tasks: LongTask[];
  timings: TimedEntry[];
  /** The mark the bench set in it, which ties its clock to the trace's (clockOf). */
  clockMark: string;
}

const timingsNamed = async (page: Page, name: string) =>
  (await appTimings(page)).filter((t) => t.name === name).length;

/** Picks a file and waits until the data set is listed (one more than before) and stored. */
async function importFile(page: Page, file: string, datasets: number): Promise<void> {
  await page.getByTestId('dataset-file').setInputFiles(file);
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid="dataset-item"]').length >= n,
    datasets,
    { timeout: 120_000, polling: 100 },
  );
  await page.waitForSelector('[data-testid="dataset-import"][data-done="true"]', {
    timeout: 120_000,
  });
}

/** The ids of the listed runs, newest first. */
const runIds = (page: Page) =>
  page
    .getByTestId('run-item')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-run-id') ?? ''));

/**
 * The comparison of runs a and b drawn: its metric summary and its first rows, in the compare
 * view that names both runs (not an earlier answer's).
 */
async function comparisonDrawn(page: Page, a: string, b: string): Promise<void> {
  const view = `[data-testid="compare-view"][data-a="${a}"][data-b="${b}"]`;
  for (const drawn of [
    `${view} [data-testid="compare-summary"] [data-testid="compare-metric"]`,
    `${view} [data-testid="compare-rows"] [data-testid="compare-row"]`,
  ]) {
    await page.waitForSelector(drawn, { timeout: 120_000 });
  }
}

/** The shown rows ordered as `sort` says (data-delta ascending, or row A ascending). */
async function rowsSorted(page: Page, sort: 'regression' | 'row'): Promise<void> {
  await page.waitForFunction(
    (by) => {
      if (!location.hash.includes(`sort=${by}`)) return false;
      const rows = [...document.querySelectorAll('[data-testid="compare-row"]')];
      const keys = rows.map((r) =>
        by === 'row'
          ? Number(r.getAttribute('data-row-a'))
          : Number(r.getAttribute('data-delta') || Infinity),
      );
      return keys.length > 1 && keys.every((k, i) => i === 0 || keys[i - 1]! <= k);
    },
    sort,
    { timeout: 60_000, polling: 'raf' },
  );
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
  const files = casesFiles(work);
  log(`${ROWS} rows in ${files.a} and ${files.b}`);

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
    await page.evaluate(() => performance.mark('bench:clock-1'));
    const first: PageLife = { phases: [], tasks: [], timings: [], clockMark: 'bench:clock-1' };
    const phases = first.phases;

    // Import.
    await painted(page);
    let start = await now(page);
    phases.push({ name: 'load', start: 0, end: start });
    await importFile(page, files.a, 1);
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
    const [runA] = await runIds(page);

    // The view the page opens by itself.
    await waitForAppTiming(page, 'sumlens:calibration', 1, 120_000);
    await page.getByTestId('calibration-matrix').waitFor({ timeout: 120_000 });
    end = await settle(page);
    phases.push({ name: 'open (auto)', start: runEnd, end });

    // Open again, as a user does from the list.
    let opens = await timingsNamed(page, 'sumlens:open');
    let calibrated = await timingsNamed(page, 'sumlens:calibration');
    start = await now(page);
    await page.getByTestId('run-open').first().click();
    await waitForAppTiming(page, 'sumlens:open', opens + 1, 120_000);
    await waitForAppTiming(page, 'sumlens:calibration', calibrated + 1, 120_000);
    await page.getByTestId('calibration-matrix').waitFor({ timeout: 120_000 });
    end = await settle(page);
    phases.push({ name: 'open (click)', start, end });
    const pairs = await page.getByTestId('calibration-row').count();

    // Data set B (the same record ids, another system's summaries) and its run; the list is
    // newest first, so B is the first data set and its run the first run.
    start = await now(page);
    await importFile(page, files.b, 2);
    end = await settle(page);
    phases.push({ name: 'import B', start, end });
    opens = await timingsNamed(page, 'sumlens:open');
    calibrated = await timingsNamed(page, 'sumlens:calibration');
    start = await now(page);
    await page.getByTestId('run-offline').first().click();
    log('running the offline metrics on B…');
    await waitForAppTiming(page, 'sumlens:open', opens + 1, RUN_TIMEOUT_MS);
    const runBEnd = (await appTimings(page)).filter((t) => t.name === 'sumlens:open')[opens]!.start;
    phases.push({ name: 'run B', start, end: runBEnd });
    const [runB] = await runIds(page);
    if (!runA || !runB || runA === runB) throw new Error(`Two runs expected, got ${runA}, ${runB}`);
    await waitForAppTiming(page, 'sumlens:calibration', calibrated + 1, 120_000);
    await page.getByTestId('calibration-matrix').waitFor({ timeout: 120_000 });
    end = await settle(page);
    phases.push({ name: 'open B (auto)', start: runBEnd, end });

    // Compare as a user does: "Compare" on run A (A alone is read), then B picked.
    start = await now(page);
    await page
      .locator(`[data-testid="run-item"][data-run-id="${runA}"] [data-testid="run-compare"]`)
      .click();
    const aAlone = `[data-testid="compare-view"][data-a="${runA}"][data-loading="false"]`;
    await page.waitForSelector(aAlone, { timeout: 120_000 });
    const optionB = await page
      .locator('[data-testid="compare-b"] option')
      .evaluateAll(
        (options, id) =>
          options.map((o) => (o as HTMLOptionElement).value).find((v) => v === `${id}\n`),
        runB,
      );
    if (!optionB) throw new Error(`Run ${runB} is not offered as B.`);
    await page.getByTestId('compare-b').selectOption(optionB);
    await comparisonDrawn(page, runA, runB);
    end = await settle(page);
    phases.push({ name: 'compare (click)', start, end });
    const pairing = await page.getByTestId('compare-pairing').innerText();
    log(`compared: ${pairing.split('.')[0]}`);

    start = await now(page);
    await page.getByTestId('compare-sort').selectOption('row');
    await rowsSorted(page, 'row');
    end = await settle(page);
    phases.push({ name: 'sort (row order)', start, end });

    start = await now(page);
    await page.getByTestId('compare-sort').selectOption('regression');
    await rowsSorted(page, 'regression');
    end = await settle(page);
    phases.push({ name: 'sort (regression)', start, end });

    start = await now(page);
    await page.getByTestId('compare-changed').check();
    await page.waitForFunction(() => location.hash.includes('changed=1'), undefined, {
      timeout: 60_000,
      polling: 'raf',
    });
    end = await settle(page);
    phases.push({ name: 'only changed', start, end });
    const changed = await page.getByTestId('compare-row-count').innerText();

    start = await now(page);
    await page.getByTestId('compare-row').first().click();
    await page.getByTestId('compare-diff').waitFor({ timeout: 60_000 });
    end = await settle(page);
    phases.push({ name: 'pair diff (click)', start, end });

    // A reload on the comparison's hash (a bookmark): the page starts again, reads the hash and
    // asks the worker for both runs. A document's long tasks and marks go with it: keep them.
    first.tasks = await page.evaluate(() => window.__sumlensLongTasks ?? []);
    first.timings = await appTimings(page);
    const leftAt = await now(page);
    const hash = await page.evaluate(() => location.hash);
    await page.reload();
    await page.getByTestId('dataset-file').waitFor();
    await painted(page);
    await page.evaluate(() => performance.mark('bench:clock-2'));
    const second: PageLife = { phases: [], tasks: [], timings: [], clockMark: 'bench:clock-2' };
    start = await now(page);
    second.phases.push({ name: 'reload (page start)', start: 0, end: start });
    await comparisonDrawn(page, runA, runB);
    end = await settle(page);
    second.phases.push({ name: 'compare (hash reload)', start, end });
    if ((await page.evaluate(() => location.hash)) !== hash) {
      throw new Error('The reload did not keep the comparison hash.');
    }
    second.tasks = await page.evaluate(() => window.__sumlensLongTasks ?? []);
    second.timings = await appTimings(page);

    const trace = await browser.stopTracing();
    if (args.trace) log(`trace: ${args.trace}`);
    const events = traceEvents(trace);
    const lives = [first, second];
    const clocks = lives.map((life) => clockOf(events, life.clockMark));
    // Each document's tasks: from its start on the trace's clock (the first's is the trace's
    // start) to the next document's.
    const reloadAt = leftAt + clocks[0]!.offset;
    const cpuByLife = [
      cpuLongTasks(events, clocks[0]!, -Infinity, reloadAt),
      cpuLongTasks(events, clocks[1]!, reloadAt),
    ];

    const within = (p: Phase) => (t: LongTask) => t.start >= p.start && t.start < p.end;
    const rows: PhaseReport[] = [];
    const outside = { tasks: [] as LongTask[], cpu: [] as CpuTask[] };
    const duringCalibration = { wall: 0, tasks: [] as LongTask[], cpu: [] as CpuTask[] };
    let calibrations = 0;
    lives.forEach((life, i) => {
      const cpu = cpuByLife[i]!;
      for (const p of life.phases) {
        rows.push(
          report(p.name, p.end - p.start, life.tasks.filter(within(p)), cpu.filter(within(p))),
        );
      }
      const between = (t: LongTask) => !life.phases.some((p) => within(p)(t));
      outside.tasks.push(...life.tasks.filter(between));
      outside.cpu.push(...cpu.filter(between));
      const measured = life.timings.filter((t) => t.name === 'sumlens:calibration');
      calibrations += measured.length;
      const overlaps = (t: LongTask) =>
        measured.some((c) => t.start < c.end && t.start + t.duration > c.start);
      duringCalibration.wall += measured.reduce((sum, c) => sum + (c.end - c.start), 0);
      duringCalibration.tasks.push(...life.tasks.filter(overlaps));
      duringCalibration.cpu.push(...cpu.filter(overlaps));
    });
    if (outside.tasks.length > 0 || outside.cpu.length > 0) {
      rows.push(report('between phases', 0, outside.tasks, outside.cpu));
    }
    rows.push(
      report(
        'of which during calibration',
        duringCalibration.wall,
        duringCalibration.tasks,
        duringCalibration.cpu,
      ),
    );

    printTable(
      rows,
      calibrations,
      pairs,
      startLoad,
      `${pairing.split('.')[0]}; only changed: ${changed}`,
    );
    if (errors.length > 0) log(`page errors: ${errors.join(' | ')}`);
    if (args.json) {
      writeFileSync(
        args.json,
        JSON.stringify(
          {
            rows: ROWS,
            phases: rows,
            pages: lives.map((life, i) => ({
              phases: life.phases,
              tasks: life.tasks,
              cpuTasks: cpuByLife[i],
            })),
          },
          null,
          2,
        ),
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
  comparison: string,
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
  console.log(`Run B against run A: ${comparison}`);
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
