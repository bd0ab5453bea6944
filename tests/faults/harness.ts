/**
 * What the fault suite's scenarios share: the environment, the canary keys, report rows and their
 * outcome, the fault-free baseline, a data-set scenario's page (opened, searched for the key and
 * closed whatever happens), the accounting of rows lost or scored twice and of answers bought
 * twice, and the bound a scenario's requests must stay within.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ProviderKind } from '../../src/lib/llm/types.ts';
import type { ProviderChoice } from '../e2e/support/llm.ts';
import { FAULTS, type FaultLlm, type FaultLogEntry } from '../helpers/fault-llm.ts';
import type { Wire } from '../helpers/fake-llm.ts';
import { writeDataset } from './dataset.ts';
import { keyLeaks, type KeyChoice } from './leaks.ts';
import {
  clickIn,
  clickResume,
  compareExports,
  configureJudge,
  datasetRows,
  importDataset,
  lastHiddenAt,
  openFaultPage,
  poll,
  runExports,
  runView,
  settled,
  startRun,
  storedResults,
  storedRun,
  waitSettled,
  type FaultPage,
  type KeyPersistence,
  type RunView,
  type SavedFile,
} from './page.ts';
import type { ReportRow } from './report.ts';

export interface SuiteEnv {
  browser: Browser;
  /** The built app, e.g. http://127.0.0.1:4180 */
  origin: string;
  fault: FaultLlm;
  /** Where the data-set files go. */
  dir: string;
  log: (line: string) => void;
}

export const KINDS: readonly ProviderKind[] = [
  'openai',
  'anthropic',
  'gemini',
  'openai-compatible',
];

export const MODELS: Record<ProviderKind, string> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-haiku-4-5',
  gemini: 'gemini-2.5-flash-lite',
  'openai-compatible': 'llama3.1',
};

export const WIRE_OF: Record<ProviderKind, Wire> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  'openai-compatible': 'openai',
};

/** The page's judge metrics in every scenario: one JSON verdict, one G-Eval criterion. */
export const JUDGE_IDS = ['vagueness', 'geval-coherence'] as const;
/** Data-set runs keep one cheap offline metric beside them. */
export const BATCH_OFFLINE = ['rouge-1'];
/** Rows scored at once (the provider settings' default "Parallel calls"). */
export const CONCURRENCY = 4;
/** The client timeout the suite sets when the page has the field. */
export const TIMEOUT_SEC = 5;

function randomTail(n: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
}

/**
 * A canary key of the provider's shape. An OpenAI-compatible server (a gateway: LiteLLM, a
 * company proxy) takes an opaque one of its own: no known key shape, so that only a redaction of
 * the literal key hides it.
 */
export function canaryKey(kind: ProviderKind): string {
  switch (kind) {
    case 'openai':
      return `sk-proj-FAULTCANARY${randomTail(40)}`;
    case 'anthropic':
      return `sk-ant-api03-FAULTCANARY${randomTail(40)}`;
    case 'gemini':
      return `AIzaFAULTCANARY${randomTail(40)}`;
    case 'openai-compatible':
      return `gw-FAULTCANARY${randomTail(40)}`;
  }
}

export function providerFor(kind: ProviderKind, key: string | undefined): ProviderChoice {
  return { kind, model: MODELS[kind], ...(key ? { key } : {}) };
}

export const errorText = (e: unknown) =>
  e instanceof Error ? e.message.split('\n')[0]! : String(e);

export function row(
  partial: Partial<ReportRow> & Pick<ReportRow, 'scenario' | 'fault' | 'kind'>,
): ReportRow {
  return { outcome: 'failed', pageErrors: [], leaks: [], notes: [], ms: 0, ...partial };
}

export function finish(r: ReportRow, started: number): ReportRow {
  r.ms = Date.now() - started;
  if (r.outcome !== 'skipped') {
    r.outcome =
      r.notes.some((n) => n.startsWith('FAIL')) || r.pageErrors.length || r.leaks.length
        ? 'failed'
        : 'survived';
  }
  return r;
}

/** Marks a note as a failed check (the outcome follows from these). */
export const fail = (text: string) => `FAIL ${text}`;

// --- data-set runs ----------------------------------------------------------------------------

export interface Baseline {
  /** Requests tied to no row (G-Eval's steps, shared by the run). */
  shared: number;
  /** Requests per row tag, and per row and prompt. */
  perRow: Map<number, number>;
  perRowSig: Map<string, number>;
}

export function neededFor(b: Baseline, tags: readonly number[]): number {
  return b.shared + tags.reduce((s, t) => s + (b.perRow.get(t) ?? 2), 0);
}

export interface BatchPage {
  fp: FaultPage;
  key: string;
  dataset: string;
  kind: ProviderKind;
  /** Where this scenario's downloads are saved. */
  downloads: string;
}

export interface BatchOpen {
  kind: ProviderKind;
  rows: number;
  name: string;
  /** Where the key is kept (default memory). */
  persistence?: KeyPersistence;
  /** Runs once the judge is set, before the data set is stored. */
  beforeImport?: (page: Page) => Promise<void>;
}

export async function openBatch(env: SuiteEnv, open: BatchOpen): Promise<BatchPage> {
  const key = canaryKey(open.kind);
  env.fault.recover();
  env.fault.setLatency(0);
  env.fault.setEchoKey(false);
  env.fault.setCanary(key);
  env.fault.clearLog();
  const fp = await openFaultPage(env.browser, env.origin);
  try {
    await configureJudge(fp.page, env.fault.fake, {
      provider: providerFor(open.kind, key),
      metrics: JUDGE_IDS,
      timeoutSec: TIMEOUT_SEC,
      ...(open.persistence ? { persistence: open.persistence } : {}),
    });
    await open.beforeImport?.(fp.page);
    const dataset = `${open.name}-${open.rows}`;
    await importDataset(fp.page, writeDataset(join(env.dir, `${dataset}.jsonl`), open.rows));
    // The fake's log starts with the run: configuring the page sends nothing, but be sure.
    env.fault.clearLog();
    return { fp, key, dataset, kind: open.kind, downloads: join(env.dir, 'downloads', dataset) };
  } catch (e) {
    await fp.context.close();
    throw e;
  }
}

/** What a scenario's body tells the closing key search. */
export interface BodyResult {
  /** Search the origin's storage (IndexedDB, local/sessionStorage, Cache Storage, OPFS). */
  storage?: boolean;
  /** Where the user chose to keep the key (it may be there, under its own entry). */
  allowed?: KeyChoice;
  /** Files the page offered and the suite saved (exports). */
  files?: SavedFile[];
}

/**
 * A data-set scenario in a page of its own (`openBatch`): the body's checks, then what every
 * scenario ends with — where the key was seen (the body says what else to search: storage,
 * exports) and the page's errors — and the page closed whatever happened.
 */
export async function inBatchPage(
  env: SuiteEnv,
  r: ReportRow,
  started: number,
  open: BatchOpen,
  body: (b: BatchPage) => Promise<BodyResult>,
): Promise<ReportRow> {
  let b: BatchPage;
  try {
    b = await openBatch(env, open);
  } catch (e) {
    r.notes.push(fail(`setup: ${errorText(e)}`));
    return logged(env, finish(r, started));
  }
  try {
    const search = await body(b);
    r.leaks.push(
      ...(await keyLeaks(env, b.fp, b.key, { persistence: open.persistence, ...search })),
    );
  } catch (e) {
    r.notes.push(fail(errorText(e)));
  } finally {
    r.pageErrors = [...b.fp.pageErrors, ...b.fp.consoleErrors];
    await b.fp.context.close();
  }
  return logged(env, finish(r, started));
}

/** The row's line in the suite's progress log. */
export function logged(env: SuiteEnv, r: ReportRow): ReportRow {
  const counts = r.sent === undefined ? '' : ` ${r.sent}/${r.needed}/${r.bound ?? '?'}`;
  env.log(`${r.scenario} ${r.kind} ${r.fault}: ${r.outcome}${counts} ${r.notes.join('; ')}`);
  return r;
}

/** The checks a run ends with: the list item against the stored run, rows lost or scored twice,
 * answers bought twice, and what was sent against what a fault-free run of all `rows` rows needs
 * and the bound the faults allow (`spells`: see `boundOf`). */
export async function closingAccount(
  env: SuiteEnv,
  page: Page,
  runId: string,
  r: ReportRow,
  base: Baseline,
  rows: number,
  spells: Spells = {},
): Promise<void> {
  await contractNotes(page, runId, r);
  accountingNotes(r, await account(page, runId, answeredLog(env.fault.log, spells.goneAt), base));
  checkBound(r, env.fault.log, neededFor(base, allRows(rows)), 'run', spells);
}

/**
 * When the page went away, on the fake's clock: the moment its document was hidden (it writes
 * it, page.ts), read in `alive`, a page still there; else `fallback` (the moment the reload or
 * close was asked for).
 */
export async function goneAt(env: SuiteEnv, alive: Page, fallback: number): Promise<number> {
  const hidden = await lastHiddenAt(alive).catch(() => undefined);
  if (hidden === undefined) return fallback;
  const at = hidden - (Date.now() - env.fault.elapsed());
  return at >= fallback ? at : fallback;
}

/**
 * How long a page may take, from the moment the fake wrote an answer to the socket, to have it
 * kept: the browser reads the body, the page hashes and writes it to IndexedDB. On this busy
 * two-core machine that took up to a few hundred ms; an answer written less than this before the
 * page went was still in transit, as one the page never received.
 */
export const IN_TRANSIT_MS = 1_000;

/**
 * The log with the answers that reached a page no longer there (a reload or a closed tab after
 * the request left, `goneAt` on the fake's clock), or that were still in transit when it went,
 * counted as not delivered: nobody could keep them, so asking again is not buying twice. An
 * answer delivered longer before the page went is one it could have kept.
 */
export function answeredLog(
  log: readonly FaultLogEntry[],
  goneAt: readonly number[] = [],
): FaultLogEntry[] {
  return log.map((e) =>
    e.success &&
    goneAt.some((t) => e.arrivedAt < t && (e.repliedAt ?? Infinity) >= t - IN_TRANSIT_MS)
      ? { ...e, success: false }
      : e,
  );
}

/** Row tags 1..n. */
export const allRows = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

export const RUN_CHOICE = (dataset: string) => ({
  dataset,
  judgeMetrics: JUDGE_IDS,
  offlineMetrics: BATCH_OFFLINE,
});

/** Starts a run of `dataset` and waits until `rows` of its rows are stored: mid-run. */
export async function startAndReach(page: Page, dataset: string, rows: number): Promise<string> {
  const runId = await startRun(page, RUN_CHOICE(dataset));
  const { ok } = await poll(
    () => countDone(page, runId),
    (n) => n >= rows,
    { timeout: 60_000 },
  );
  if (!ok) throw new Error(`the run did not get to ${rows} rows`);
  return runId;
}

/** The requests a fault-free run of the first `rows` rows makes, per row and prompt. */
export async function baseline(env: SuiteEnv, rows: number): Promise<Baseline> {
  const b = await openBatch(env, { kind: 'openai', rows, name: 'baseline' });
  try {
    const runId = await startRun(b.fp.page, RUN_CHOICE(b.dataset));
    const { view, ok } = await waitSettled(b.fp.page, runId, 180_000);
    if (!ok || view.stored?.status !== 'done')
      throw new Error(`the baseline run ended ${view.stored?.status}`);
    const out: Baseline = { shared: 0, perRow: new Map(), perRowSig: new Map() };
    for (const e of env.fault.log) {
      if (e.row === undefined) out.shared++;
      else {
        out.perRow.set(e.row, (out.perRow.get(e.row) ?? 0) + 1);
        out.perRowSig.set(`${e.row}|${e.sig}`, (out.perRowSig.get(`${e.row}|${e.sig}`) ?? 0) + 1);
      }
    }
    env.log(`baseline: ${env.fault.log.length} requests for ${rows} rows (${out.shared} shared)`);
    return out;
  } finally {
    await b.fp.context.close();
  }
}

export interface Accounting {
  rows: number;
  lost: number[];
  /** Rows stored twice, or judged more often than the baseline needs. */
  twice: number[];
  /** Rows stored twice (the results alone say so). */
  storedTwice: number[];
  failed: number;
  failedWithReason: number;
  /** Rows stored 'done' whose judge metrics failed: not retried, not counted as failed. */
  judgeErrors: number;
  /** Row tags without a good result (failed, judge error, or missing). */
  unscored: number[];
  /** Row tags stored without a good result (failed or judge error): `unscored` minus the rows
   * not stored (yet). */
  bad: number[];
  /** Judge answers the provider delivered beyond what the fault-free baseline needed for the
   * same row and prompt: bought twice. */
  answersTwice: number;
}

/** Lost, twice, failed, from the stored results and what the fake answered successfully. */
export async function account(
  page: Page,
  runId: string,
  log: readonly FaultLogEntry[],
  base: Baseline,
): Promise<Accounting> {
  const run = await storedRun(page, runId);
  const rows = run ? await datasetRows(page, run.datasetId) : [];
  const tagOf = new Map(rows.map((r) => [r.row, r.tag ?? r.row]));
  const results = await storedResults(page, runId);
  const stored = new Map<number, number>();
  for (const r of results) stored.set(r.row, (stored.get(r.row) ?? 0) + 1);
  const lost = rows.filter((r) => !stored.has(r.row)).map((r) => tagOf.get(r.row)!);
  const twice = new Set<number>();
  for (const [r, n] of stored) if (n > 1) twice.add(tagOf.get(r)!);
  const storedTwice = [...twice];
  const successes = new Map<string, number>();
  for (const e of log) {
    if (e.success && e.row !== undefined)
      successes.set(`${e.row}|${e.sig}`, (successes.get(`${e.row}|${e.sig}`) ?? 0) + 1);
  }
  let answersTwice = 0;
  for (const [k, n] of successes) {
    const need = base.perRowSig.get(k) ?? 1;
    if (n <= need) continue;
    twice.add(Number(k.split('|')[0]));
    answersTwice += n - need;
  }
  const failed = results.filter((r) => r.status === 'failed');
  const judgeError = (r: (typeof results)[number]) =>
    r.status === 'done' &&
    (JUDGE_IDS as readonly string[]).some((id) => {
      const m = r.results.find((x) => x.id === id);
      return !m || m.status === 'error';
    });
  const bad = new Set<number>();
  for (const r of results) if (r.status === 'failed' || judgeError(r)) bad.add(tagOf.get(r.row)!);
  const unscored = new Set<number>([...lost, ...bad]);
  return {
    rows: rows.length,
    lost,
    twice: [...twice],
    storedTwice,
    failed: failed.length,
    failedWithReason: failed.filter((r) => (r.error ?? '').trim() !== '').length,
    judgeErrors: results.filter(judgeError).length,
    unscored: [...unscored].sort((a, b) => a - b),
    bad: [...bad].sort((a, b) => a - b),
    answersTwice,
  };
}

export const tags = (list: readonly number[]) =>
  list.length > 8 ? `${list.slice(0, 8).join(',')}…` : list.join(',');

export function accountingNotes(r: ReportRow, a: Accounting, unscored = true): void {
  r.rowsLost = a.lost.length;
  r.rowsTwice = a.twice.length;
  r.answersTwice = a.answersTwice;
  r.rowsFailedWithReason ??= a.failedWithReason;
  if (a.lost.length) r.notes.push(fail(`rows lost: ${tags(a.lost)}`));
  if (a.twice.length)
    r.notes.push(
      fail(`rows scored twice: ${tags(a.twice)} (${a.answersTwice} answers bought twice)`),
    );
  if (unscored && a.unscored.length) {
    r.notes.push(
      fail(
        `${a.unscored.length}/${a.rows} rows without a good result at the end (${tags(a.unscored)})`,
      ),
    );
  }
}

/** The run item against the contract: its data-status and counts are the stored ones; it names its run. */
export async function contractNotes(page: Page, runId: string, r: ReportRow): Promise<void> {
  const v = await runView(page, runId);
  if (v.dataStatus !== null && v.dataStatus !== v.stored?.status) {
    r.notes.push(fail(`the run item says ${v.dataStatus}, the stored run ${v.stored?.status}`));
  }
  for (const k of ['done', 'failed', 'total'] as const) {
    const shown = v.dataCounts[k];
    if (shown !== null && Number(shown) !== v.stored?.counts[k]) {
      r.notes.push(
        fail(`the run item's data-${k} is ${shown}, the stored run's ${v.stored?.counts[k]}`),
      );
    }
  }
  if (v.dataRunId === null)
    r.notes.push('no data-run-id on the run item (found by its place in the list)');
}

/**
 * Waits until the run settles, or until nothing moves (no row stored, no request sent) for
 * `stallMs`: a run shown running that nothing runs is a finding, not a reason to wait minutes.
 */
export async function settleOrStall(
  env: SuiteEnv,
  page: Page,
  runId: string,
  stallMs = 20_000,
  timeout = 180_000,
): Promise<{ view: RunView; ok: boolean; stalled: boolean }> {
  let mark = '';
  let since = Date.now();
  const end = Date.now() + timeout;
  for (;;) {
    const view = await runView(page, runId);
    if (settled(view)) return { view, ok: true, stalled: false };
    const now = JSON.stringify([view.stored?.counts, env.fault.log.length, view.stored?.status]);
    if (now !== mark) {
      mark = now;
      since = Date.now();
    }
    if (Date.now() - since > stallMs) return { view, ok: false, stalled: true };
    if (Date.now() > end) return { view, ok: false, stalled: false };
    await new Promise((r) => setTimeout(r, 300));
  }
}

export async function settleOrPause(
  page: Page,
  runId: string,
  timeout: number,
  r: ReportRow,
): Promise<RunView> {
  const { view, ok } = await waitSettled(page, runId, timeout);
  if (ok) return view;
  r.notes.push(
    fail(`the run was still going after ${Math.round(timeout / 1000)} s: paused by hand`),
  );
  await clickIn(page, runId, 'run-pause');
  const second = await waitSettled(page, runId, 120_000);
  if (!second.ok) {
    await clickIn(page, runId, 'run-cancel');
    return (await waitSettled(page, runId, 60_000)).view;
  }
  return second.view;
}

export async function resumeToDone(
  page: Page,
  runId: string,
  r: ReportRow,
  why: string,
): Promise<RunView> {
  if (!(await clickResume(page, runId))) {
    r.notes.push(fail(`no Resume on the run (${why})`));
    return runView(page, runId);
  }
  const { view, ok } = await waitSettled(page, runId, 180_000);
  if (!ok || view.stored?.status !== 'done') {
    r.notes.push(
      fail(
        `after Resume the run is ${view.stored?.status}${view.message ? `: ${view.message}` : ''}`,
      ),
    );
  }
  return view;
}

export const countDone = async (page: Page, runId: string) =>
  (await storedRun(page, runId))?.counts.done ?? 0;

// --- the bound on requests ----------------------------------------------------------------------

/**
 * What one faulted request may cost beyond the fault-free need (README "Provider faults",
 * src/lib/llm/transport.ts): a transient fault or an unusable answer is asked again, once per
 * faulted attempt (up to five attempts; a garbled body once, a network error twice), so it costs
 * at most the one request that replaces it. A fatal reply is never retried in a single case; in a
 * run, the row it stopped is scored again on Resume, once.
 */
export const EXTRA_PER_FAULT: Record<'single' | 'run', Record<string, number>> = {
  single: { transient: 1, content: 1, fatal: 0, special: 0 },
  run: { transient: 1, content: 1, fatal: 1, special: 0 },
};

/** Events a scenario causes besides the provider's faults. */
export interface Spells {
  /** A reload, an offline spell, a pause, a closed tab, a full disk: each drops at most the
   * requests in flight (the concurrency), which are asked again. */
  interruptions?: number;
  /** Site data cleared: what the run shares (G-Eval's steps, the capability probe) is asked
   * again. */
  resets?: number;
  /** When (the fake's clock) the page that asked went away: reloaded, closed. */
  goneAt?: readonly number[];
}

export interface Bound {
  needed: number;
  faulted: number;
  bound: number;
  /** How the bound was made, for the notes. */
  formula: string;
}

/** The most requests a scenario may send: what it needs without faults, plus what each fault
 * and spell may cost. */
export function boundOf(
  needed: number,
  log: readonly FaultLogEntry[],
  where: 'single' | 'run',
  spells: Spells = {},
  shared = 1,
): Bound {
  let extra = 0;
  let faulted = 0;
  for (const e of log) {
    if (!e.fault) continue;
    faulted++;
    extra += EXTRA_PER_FAULT[where][FAULTS[e.fault].class] ?? 1;
  }
  const interruptions = spells.interruptions ?? 0;
  const resets = spells.resets ?? 0;
  const bound = needed + extra + interruptions * CONCURRENCY + resets * shared;
  const parts = [`needed ${needed}`, `${faulted} faulted → +${extra}`];
  if (interruptions) parts.push(`${interruptions} interruptions × ${CONCURRENCY} in flight`);
  if (resets) parts.push(`${resets} resets × ${shared} shared`);
  return { needed, faulted, bound, formula: parts.join(' + ') };
}

/** Sets the row's sent/needed/bound and fails it when it sent more than its bound. */
export function checkBound(
  r: ReportRow,
  log: readonly FaultLogEntry[],
  needed: number,
  where: 'single' | 'run',
  spells: Spells = {},
  shared = 1,
): Bound {
  const b = boundOf(needed, log, where, spells, shared);
  r.sent = log.length;
  r.needed = needed;
  r.bound = b.bound;
  if (r.sent > b.bound) {
    r.notes.push(fail(`sent ${r.sent} requests, over the bound ${b.bound} (${b.formula})`));
  }
  return b;
}

/**
 * Every export the page offers for run `runId`: the run view's (JSON, CSV, Markdown, HTML) and,
 * with a second run `other`, the comparison's (pairs and summary CSV, JSON, Markdown, HTML).
 * Saved under `dir`, to be searched on disk; a button that downloads nothing fails the row.
 */
export async function everyExport(
  page: Page,
  runId: string,
  other: string | undefined,
  dir: string,
  r: ReportRow,
): Promise<SavedFile[]> {
  const files: SavedFile[] = [];
  try {
    files.push(...(await runExports(page, runId, dir)));
    if (other) files.push(...(await compareExports(page, runId, other, dir)));
  } catch (e) {
    r.notes.push(fail(`exports not read: ${errorText(e)}`));
  }
  r.notes.push(`${files.length} exports searched`);
  return files;
}
