/**
 * The fault suite's scenarios, each returning report rows: single cases under every fault and
 * provider kind, a data-set batch with random transient faults and its retry, fatal errors mid-run,
 * a reload mid-run, an offline spell, two tabs, and a full storage quota. Every scenario waits on
 * the run it started (by id) and measures from two sides: what the page stored and shows, and what
 * the fake provider received.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ProviderKind } from '../../src/lib/llm/types.ts';
import type { ProviderChoice } from '../e2e/support/llm.ts';
import {
  FAULTS,
  INJECTION_CLOSE,
  INJECTION_TEXT,
  faultOnWire,
  type FaultId,
  type FaultLlm,
  type FaultLogEntry,
} from '../helpers/fault-llm.ts';
import type { Wire } from '../helpers/fake-llm.ts';
import { singleCase, writeDataset } from './dataset.ts';
import {
  OFFLINE_METRIC_IDS,
  clearJudgeCache,
  clickIn,
  clickResume,
  configureJudge,
  datasetRows,
  domText,
  enterKey,
  exportTexts,
  fillCase,
  hasTimeoutField,
  importDataset,
  openFaultPage,
  poll,
  runView,
  scoreAndWait,
  startRun,
  storageDump,
  storedResults,
  storedRun,
  usageRequests,
  waitSettled,
  watchPage,
  type FaultPage,
  type RunView,
} from './page.ts';
import type { LeakSighting, ReportRow } from './report.ts';

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

const MODELS: Record<ProviderKind, string> = {
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
const BATCH_OFFLINE = ['rouge-1'];
/** Rows scored at once (the provider settings' default "Parallel calls"). */
const CONCURRENCY = 4;
/** The client timeout the suite sets when the page has the field. */
const TIMEOUT_SEC = 5;

function randomTail(n: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
}

/** A canary key of the provider's shape; a local OpenAI-compatible server takes none. */
export function canaryKey(kind: ProviderKind): string | undefined {
  switch (kind) {
    case 'openai':
      return `sk-proj-FAULTCANARY${randomTail(40)}`;
    case 'anthropic':
      return `sk-ant-api03-FAULTCANARY${randomTail(40)}`;
    case 'gemini':
      return `AIzaFAULTCANARY${randomTail(40)}`;
    case 'openai-compatible':
      return undefined;
  }
}

function providerFor(kind: ProviderKind, key: string | undefined): ProviderChoice {
  return { kind, model: MODELS[kind], ...(key ? { key } : {}) };
}

const errorText = (e: unknown) => (e instanceof Error ? e.message.split('\n')[0]! : String(e));

// --- checks ------------------------------------------------------------------------------------

/** What keeps a failure message from being plain words. */
export function plainProblems(reason: string): string[] {
  const out: string[] = [];
  if (!reason.trim()) out.push('empty message');
  if (/\bundefined\b|\[object Object\]|\bNaN\b/u.test(reason))
    out.push('says undefined/[object Object]');
  if (/\n\s+at \S|\bat \S+ \([^)]*:\d+:\d+\)|\.(?:ts|js|mjs):\d+/u.test(reason))
    out.push('a stack trace');
  if (/[{[]\s*"[\w-]+"\s*:/u.test(reason)) out.push('raw JSON');
  if (/<html|<!doctype/iu.test(reason)) out.push('raw HTML');
  return out;
}

/** The injection must stay inside a fenced block whose nonce the system prompt names. */
export function fencingProblems(entries: readonly FaultLogEntry[]): string[] {
  const out = new Set<string>();
  const carrying = entries.filter((e) => e.messages);
  if (carrying.length === 0) out.add('no request carried the case text');
  for (const e of carrying) {
    const messages = e.messages!;
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    const user = messages
      .filter((m) => m.role !== 'system')
      .map((m) => m.content)
      .join('\n');
    const blocks = [...user.matchAll(/<(\w+) id="(s_[0-9a-f]{6})">\n([\s\S]*?)\n<\/\1>/gu)];
    let outside = user;
    for (const b of blocks) {
      outside = outside.replace(b[0], '');
      if (b[3]!.includes(INJECTION_CLOSE))
        out.add(`${e.sig}: the case's ${INJECTION_CLOSE} is live inside <${b[1]}>`);
      if (!system.includes(`id="${b[2]}"`))
        out.add(`${e.sig}: the system prompt does not name the fence ${b[2]}`);
    }
    if (outside.includes(INJECTION_TEXT))
      out.add(`${e.sig}: the injected text is outside any fence`);
  }
  return [...out];
}

/** Where the key shows besides its credential header: requests, DOM, console, storage, exports. */
async function leaksOf(
  env: SuiteEnv,
  fp: FaultPage,
  key: string | undefined,
  since: { sightings: number; console: number },
  options: { storage?: boolean; exports?: string[] } = {},
): Promise<LeakSighting[]> {
  if (!key) return [];
  const tail = key.slice(-12);
  const has = (text: string) => text.includes(key) || text.includes(tail);
  const out: LeakSighting[] = env.fault.canarySightings
    .slice(since.sightings)
    .map((s) => ({ ...s }));
  for (const page of fp.context.pages()) {
    if (has(await domText(page).catch(() => ''))) out.push({ where: 'DOM', detail: page.url() });
  }
  const lines = fp.consoleAll.slice(since.console).filter(has);
  if (lines.length) out.push({ where: 'console', detail: `${lines.length} lines` });
  if (options.storage && has(await storageDump(fp.page))) {
    out.push({ where: 'storage', detail: 'IndexedDB/localStorage/sessionStorage' });
  }
  for (const [i, text] of (options.exports ?? []).entries()) {
    if (has(text)) out.push({ where: 'export', detail: ['json', 'csv', 'md'][i] ?? String(i) });
  }
  return out;
}

function row(
  partial: Partial<ReportRow> & Pick<ReportRow, 'scenario' | 'fault' | 'kind'>,
): ReportRow {
  return { outcome: 'failed', pageErrors: [], leaks: [], notes: [], ms: 0, ...partial };
}

function finish(r: ReportRow, started: number): ReportRow {
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
const fail = (text: string) => `FAIL ${text}`;

// --- 1. single cases ---------------------------------------------------------------------------

export interface SingleCasePlan {
  kind: ProviderKind;
  faults: readonly FaultId[];
}

/** Every fault of `plan` on one page per provider kind, each on a freshly cleared judge cache. */
export async function singleCases(
  env: SuiteEnv,
  plans: readonly SingleCasePlan[],
): Promise<ReportRow[]> {
  const rows: ReportRow[] = [];
  const cardIds = [...OFFLINE_METRIC_IDS, ...JUDGE_IDS];
  for (const plan of plans) {
    const key = canaryKey(plan.kind);
    env.fault.recover();
    env.fault.clearLog();
    env.fault.setCanary(key);
    const kindStarted = Date.now();
    const fp = await openFaultPage(env.browser, env.origin);
    const kindSince = { sightings: 0, console: 0 };
    try {
      await configureJudge(fp.page, env.fault.fake, {
        provider: providerFor(plan.kind, key),
        metrics: JUDGE_IDS,
        timeoutSec: TIMEOUT_SEC,
      });
      const timeoutField = await hasTimeoutField(fp.page);
      env.fault.setTimeoutMs(timeoutField ? TIMEOUT_SEC * 1000 : 120_000);

      // The fault-free baseline: what one case needs.
      await fillCase(fp.page, singleCase());
      await clearJudgeCache(fp.page);
      env.fault.clearLog();
      const base = await scoreAndWait(fp.page, cardIds);
      const needed = env.fault.log.length;
      const baseBad = base.filter((c) => c.status !== 'ok' && c.status !== 'n/a');
      if (baseBad.length) {
        rows.push(
          finish(
            row({
              scenario: 'single',
              fault: 'baseline',
              kind: plan.kind,
              sent: needed,
              needed,
              notes: baseBad.map((c) => fail(`${c.id} ${c.status} without a fault: ${c.reason}`)),
            }),
            kindStarted,
          ),
        );
      }

      for (const id of plan.faults) {
        const spec = FAULTS[id];
        const started = Date.now();
        const r = row({ scenario: 'single', fault: id, kind: plan.kind, needed });
        if (!faultOnWire(id, WIRE_OF[plan.kind])) {
          r.outcome = 'skipped';
          r.notes.push(`no such fault on the ${WIRE_OF[plan.kind]} wire`);
          rows.push(finish(r, started));
          continue;
        }
        if (id === 'timeout' && !timeoutField) {
          r.outcome = 'skipped';
          r.notes.push(
            'the page has no provider-timeout field yet: a reply past the default 120 s timeout would take minutes',
          );
          rows.push(finish(r, started));
          continue;
        }
        const since = {
          sightings: env.fault.canarySightings.length,
          console: fp.consoleAll.length,
        };
        const errorsBefore = fp.pageErrors.length + fp.consoleErrors.length;
        await clearJudgeCache(fp.page);
        await fillCase(fp.page, singleCase(id === 'prompt-injection'));
        env.fault.clearLog();
        since.sightings = 0;
        const mode = spec.single;
        env.fault.setPlan(
          mode.mode === 'every'
            ? { mode: 'every', fault: id, scope: spec.scope }
            : mode.mode === 'first'
              ? { mode: 'first', fault: id, k: mode.k, scope: spec.scope }
              : { mode: 'none' },
        );
        let cards;
        try {
          cards = await scoreAndWait(fp.page, cardIds, 150_000);
        } catch (e) {
          r.notes.push(fail(`the cards never settled: ${errorText(e)}`));
          await fp.page
            .getByTestId('cancel-button')
            .click()
            .catch(() => undefined);
        }
        env.fault.recover();
        const log = [...env.fault.log];
        r.sent = log.length;
        if (cards) {
          const expectFail: readonly string[] =
            mode.mode === 'every' ? (spec.scope === 'verdict' ? ['vagueness'] : JUDGE_IDS) : [];
          for (const c of cards) {
            const judge = (JUDGE_IDS as readonly string[]).includes(c.id);
            if (!judge) {
              if (c.status === 'error') r.notes.push(fail(`offline ${c.id} failed: ${c.reason}`));
              continue;
            }
            if (expectFail.includes(c.id)) {
              if (c.status !== 'error') {
                r.notes.push(fail(`${c.id} ${c.status}, expected a failure`));
                continue;
              }
              const problems = plainProblems(c.reason);
              if (problems.length)
                r.notes.push(fail(`${c.id}: ${problems.join(', ')}: "${c.reason.slice(0, 160)}"`));
              else if (!spec.message.test(c.reason))
                r.notes.push(fail(`${c.id} not specific: "${c.reason.slice(0, 160)}"`));
            } else if (c.status !== 'ok') {
              r.notes.push(fail(`${c.id} ${c.status}: "${c.reason.slice(0, 160)}"`));
            }
          }
          const retried = r.sent - needed;
          if (spec.class === 'fatal' && retried > 0) {
            r.notes.push(
              fail(`${r.sent} requests for ${needed} needed: a fatal error was retried`),
            );
          } else if (mode.mode === 'first' && retried > mode.k) {
            r.notes.push(`${retried - mode.k} requests beyond the ${mode.k} faulted ones`);
          }
          const failedCard = cards.find(
            (c) => c.status === 'error' && (JUDGE_IDS as readonly string[]).includes(c.id),
          );
          if (failedCard && !r.notes.some((n) => n.startsWith('FAIL')))
            r.notes.push(`"${failedCard.reason.slice(0, 90)}…"`);
          if (id === 'prompt-injection')
            for (const p of fencingProblems(log)) r.notes.push(fail(p));
        }
        const errors = [...fp.pageErrors, ...fp.consoleErrors];
        r.pageErrors = errors.slice(errorsBefore);
        r.leaks = await leaksOf(env, fp, key, since);
        rows.push(finish(r, started));
        env.log(
          `single ${plan.kind} ${id}: ${r.outcome} ${r.sent}/${needed} ${r.notes.join('; ')}`,
        );
      }
      // The key in storage, once per kind (memory only: it must be in none).
      const stored = await leaksOf(
        env,
        fp,
        key,
        { ...kindSince, sightings: env.fault.canarySightings.length },
        { storage: true },
      );
      if (stored.length) rows[rows.length - 1]!.leaks.push(...stored);
      if (key && env.fault.canaryInHeader === 0) {
        rows[rows.length - 1]?.notes.push('the key never reached its header (leak check vacuous)');
      }
    } catch (e) {
      rows.push(
        finish(
          row({ scenario: 'single', fault: 'setup', kind: plan.kind, notes: [fail(errorText(e))] }),
          kindStarted,
        ),
      );
    } finally {
      await fp.context.close();
    }
  }
  return rows;
}

// --- data-set runs ----------------------------------------------------------------------------

interface Baseline {
  /** Requests tied to no row (G-Eval's steps, shared by the run). */
  shared: number;
  /** Requests per row tag, and per row and prompt. */
  perRow: Map<number, number>;
  perRowSig: Map<string, number>;
}

function neededFor(b: Baseline, tags: readonly number[]): number {
  return b.shared + tags.reduce((s, t) => s + (b.perRow.get(t) ?? 2), 0);
}

interface BatchPage {
  fp: FaultPage;
  key: string | undefined;
  dataset: string;
  kind: ProviderKind;
}

async function openBatch(
  env: SuiteEnv,
  kind: ProviderKind,
  rows: number,
  name: string,
): Promise<BatchPage> {
  const key = canaryKey(kind);
  env.fault.recover();
  env.fault.setLatency(0);
  env.fault.setCanary(key);
  env.fault.clearLog();
  const fp = await openFaultPage(env.browser, env.origin);
  await configureJudge(fp.page, env.fault.fake, {
    provider: providerFor(kind, key),
    metrics: JUDGE_IDS,
    timeoutSec: TIMEOUT_SEC,
  });
  const dataset = `${name}-${rows}`;
  await importDataset(fp.page, writeDataset(join(env.dir, `${dataset}.jsonl`), rows));
  return { fp, key, dataset, kind };
}

/**
 * A data-set scenario in a page of its own (`openBatch`): the body's checks, then what every
 * scenario ends with — where the key was seen (the body says what else to search: storage,
 * exports) and the page's errors — and the page closed whatever happened.
 */
async function inBatchPage(
  env: SuiteEnv,
  r: ReportRow,
  started: number,
  open: { kind: ProviderKind; rows: number; name: string },
  body: (b: BatchPage) => Promise<{ storage?: boolean; exports?: string[] }>,
): Promise<ReportRow> {
  const b = await openBatch(env, open.kind, open.rows, open.name);
  try {
    const search = await body(b);
    r.leaks = await leaksOf(env, b.fp, b.key, { sightings: 0, console: 0 }, search);
    r.pageErrors = [...b.fp.pageErrors, ...b.fp.consoleErrors];
  } catch (e) {
    r.notes.push(fail(errorText(e)));
  } finally {
    await b.fp.context.close();
  }
  finish(r, started);
  env.log(
    `${r.scenario} ${r.kind} ${r.fault}: ${r.outcome} ${r.sent}/${r.needed} ${r.notes.join('; ')}`,
  );
  return r;
}

/** The checks a run ends with: the list item against the stored run, rows lost or scored twice,
 * and what was sent against what a fault-free run of all `rows` rows needs. */
async function closingAccount(
  env: SuiteEnv,
  page: Page,
  runId: string,
  r: ReportRow,
  base: Baseline,
  rows: number,
): Promise<void> {
  await contractNotes(page, runId, r);
  accountingNotes(r, await account(page, runId, env.fault.log, base));
  r.sent = env.fault.log.length;
  r.needed = neededFor(
    base,
    Array.from({ length: rows }, (_, i) => i + 1),
  );
}

const RUN_CHOICE = (dataset: string) => ({
  dataset,
  judgeMetrics: JUDGE_IDS,
  offlineMetrics: BATCH_OFFLINE,
});

/** Starts a run of `dataset` and waits until `rows` of its rows are stored: mid-run. */
async function startAndReach(page: Page, dataset: string, rows: number): Promise<string> {
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
  const b = await openBatch(env, 'openai', rows, 'baseline');
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

interface Accounting {
  rows: number;
  lost: number[];
  twice: number[];
  failed: number;
  failedWithReason: number;
  /** Rows stored 'done' whose judge metrics failed: not retried, not counted as failed. */
  judgeErrors: number;
  /** Row tags without a good result (failed, judge error, or missing). */
  unscored: number[];
  /** Row tags stored without a good result (failed or judge error): `unscored` minus the rows
   * not stored (yet). */
  bad: number[];
}

/** Lost, twice, failed, from the stored results and what the fake answered successfully. */
async function account(
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
  const successes = new Map<string, number>();
  for (const e of log) {
    if (e.success && e.row !== undefined)
      successes.set(`${e.row}|${e.sig}`, (successes.get(`${e.row}|${e.sig}`) ?? 0) + 1);
  }
  for (const [k, n] of successes)
    if (n > (base.perRowSig.get(k) ?? 1)) twice.add(Number(k.split('|')[0]));
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
    failed: failed.length,
    failedWithReason: failed.filter((r) => (r.error ?? '').trim() !== '').length,
    judgeErrors: results.filter(judgeError).length,
    unscored: [...unscored].sort((a, b) => a - b),
    bad: [...bad].sort((a, b) => a - b),
  };
}

const tags = (list: readonly number[]) =>
  list.length > 8 ? `${list.slice(0, 8).join(',')}…` : list.join(',');

function accountingNotes(r: ReportRow, a: Accounting, unscored = true): void {
  r.rowsLost = a.lost.length;
  r.rowsTwice = a.twice.length;
  r.rowsFailedWithReason ??= a.failedWithReason;
  if (a.lost.length) r.notes.push(fail(`rows lost: ${tags(a.lost)}`));
  if (a.twice.length) r.notes.push(fail(`rows scored twice: ${tags(a.twice)}`));
  if (unscored && a.unscored.length) {
    r.notes.push(
      fail(
        `${a.unscored.length}/${a.rows} rows without a good result at the end (${tags(a.unscored)})`,
      ),
    );
  }
}

/** The run item against the contract: its data-status and counts are the stored ones; it names its run. */
async function contractNotes(page: Page, runId: string, r: ReportRow): Promise<void> {
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

async function settleOrPause(
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

async function resumeToDone(
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

const countDone = async (page: Page, runId: string) =>
  (await storedRun(page, runId))?.counts.done ?? 0;

// --- 2. a batch with random transient faults ----------------------------------------------------

export async function batchRandom(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
  seed = 7,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'batch',
    fault: 'random 30% transient, 10% rows 500 until recovery',
    kind: 'openai',
  });
  return inBatchPage(env, r, started, { kind: 'openai', rows, name: 'batch' }, async (b) => {
    const page = b.fp.page;
    env.fault.setPlan({
      mode: 'random',
      p: 0.3,
      seed,
      sticky: { fraction: 0.1, fault: 'server-500-always' },
    });
    const runId = await startRun(page, RUN_CHOICE(b.dataset));
    let view = await settleOrPause(page, runId, 300_000, r);
    if (base.shared > 1) {
      r.notes.push(
        `the fault-free baseline asked G-Eval's steps ${base.shared}× (1 needed: concurrent rows miss the cache)`,
      );
    }
    const faulty = env.fault.log.length;
    const injected = env.fault.log.filter((e) => e.fault).length;
    r.notes.push(`${injected}/${faulty} requests faulted`);
    env.fault.recover();
    if (view.stored?.status === 'paused') {
      r.notes.push(`paused during the faults: "${view.message.slice(0, 100)}"`);
      view = await resumeToDone(page, runId, r, 'paused during the faults');
    }
    const phase1 = await account(page, runId, env.fault.log, base);
    r.rowsFailedWithReason = phase1.failedWithReason;
    if (phase1.failed > phase1.failedWithReason) {
      r.notes.push(fail(`${phase1.failed - phase1.failedWithReason} failed rows without a reason`));
    }
    if (phase1.judgeErrors) {
      r.notes.push(
        fail(
          `${phase1.judgeErrors} rows stored as done with a failed judge metric (not marked failed)`,
        ),
      );
    }
    const tried = new Set(phase1.unscored);
    // Retry failed rows: only those rows, on the same run.
    const markRetry = env.fault.log.length;
    if (view.canRetry) {
      await clickIn(page, runId, 'run-retry-failed');
      await waitSettled(page, runId, 180_000);
      const touched = new Set(
        env.fault.log.slice(markRetry).flatMap((e) => (e.row === undefined ? [] : [e.row])),
      );
      const extra = [...touched].filter((t) => !tried.has(t));
      if (extra.length)
        r.notes.push(fail(`Retry failed rows re-sent rows that had not failed: ${tags(extra)}`));
      r.notes.push(`retry: ${env.fault.log.length - markRetry} requests for ${tried.size} rows`);
    } else if (tried.size > 0) {
      r.notes.push(fail(`no "Retry failed rows" on the run (${tried.size} rows to retry)`));
    }
    const sentOnRun = env.fault.log.length;
    const counter = usageRequests(await runView(page, runId));
    if (counter !== sentOnRun) {
      r.notes.push(
        fail(`the run's counter says ${counter ?? '?'} requests, the provider got ${sentOnRun}`),
      );
    }
    const final = await account(page, runId, env.fault.log, base);
    await contractNotes(page, runId, r);
    accountingNotes(r, final);
    // Again with the same metrics: every answer is cached now.
    const markRerun = env.fault.log.length;
    const rerun = await startRun(page, RUN_CHOICE(b.dataset));
    await waitSettled(page, rerun, 180_000);
    const rerunSent = env.fault.log.length - markRerun;
    if (rerunSent > 0)
      r.notes.push(fail(`the same metrics again made ${rerunSent} requests (0 expected)`));
    else r.notes.push('the same metrics again: 0 requests');
    r.sent = env.fault.log.length;
    const allTags = Array.from({ length: rows }, (_, i) => i + 1);
    r.needed = neededFor(base, allTags);
    const exports = await exportTexts(page, runId).catch((e) => {
      r.notes.push(`exports not read: ${errorText(e)}`);
      return [] as string[];
    });
    return { storage: true, exports };
  });
}

// --- 3. fatal errors mid-run, and a persistent 529 -------------------------------------------

export async function fatalMidRun(
  env: SuiteEnv,
  kind: ProviderKind,
  faultId: FaultId,
  rows: number,
  base: Baseline,
): Promise<ReportRow> {
  const started = Date.now();
  const persistent = FAULTS[faultId].class === 'transient';
  const afterRows = persistent ? 5 : 10;
  const r = row({
    scenario: persistent ? 'persistent' : 'fatal',
    fault: `${faultId} after ${afterRows} rows`,
    kind,
  });
  return inBatchPage(env, r, started, { kind: kind, rows, name: `fatal-${faultId}` }, async (b) => {
    const page = b.fp.page;
    env.fault.setPlan({ mode: 'after', fault: faultId, rows: afterRows });
    const runId = await startRun(page, RUN_CHOICE(b.dataset));
    const view = await settleOrPause(page, runId, persistent ? 75_000 : 120_000, r);
    const log = env.fault.log;
    const first = log.find((e) => e.fault);
    const firstAt = first?.repliedAt ?? Infinity;
    const after = log.filter((e) => e.arrivedAt > firstAt).length;
    const status = view.stored?.status;
    const atStop = await account(page, runId, log, base);
    const bad = atStop.bad.length;
    r.rowsFailedWithReason = atStop.failedWithReason;
    if (!first) r.notes.push(fail('the fault never fired'));
    if (persistent) {
      r.notes.push(`${after} requests after the first 529, ${bad} rows burned`);
      if (status !== 'paused' || r.notes.some((n) => n.includes('paused by hand'))) {
        r.notes.push(fail(`the run did not pause by itself (${status} in the end)`));
      } else if (bad > CONCURRENCY + 3) {
        r.notes.push(fail(`paused only after ${bad} failed rows`));
      }
    } else {
      if (after > CONCURRENCY)
        r.notes.push(
          fail(`${after} requests after the first fatal reply (≤ ${CONCURRENCY} expected)`),
        );
      if (status !== 'paused')
        r.notes.push(fail(`the run did not pause (${status}): ${bad} rows burned`));
      else if (!FAULTS[faultId].message.test(view.message)) {
        r.notes.push(fail(`paused without saying why: "${view.message.slice(0, 120)}"`));
      } else {
        r.notes.push(
          `${after} requests after the first fatal reply (≤ ${CONCURRENCY}), paused: "${view.message.slice(0, 90)}"`,
        );
      }
    }
    env.fault.recover();
    if (view.stored?.status === 'paused') await resumeToDone(page, runId, r, 'paused');
    else if (view.canRetry) {
      await clickIn(page, runId, 'run-retry-failed');
      await waitSettled(page, runId, 180_000);
    }
    await closingAccount(env, page, runId, r, base, rows);
    return { storage: true };
  });
}

// --- 4. a reload mid-run -----------------------------------------------------------------------

export async function reloadMidRun(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'reload',
    fault: 'page.reload() mid-run, key in memory',
    kind: 'openai',
  });
  return inBatchPage(env, r, started, { kind: 'openai', rows, name: 'reload' }, async (b) => {
    const page = b.fp.page;
    env.fault.setLatency(300);
    const runId = await startAndReach(page, b.dataset, 3);
    await page.reload();
    await page.getByTestId('score-button').waitFor();
    const waited = await poll(
      () => runView(page, runId),
      (v) => v.stored?.status === 'paused' && v.canResume,
      { timeout: 30_000 },
    );
    if (!waited.ok)
      r.notes.push(
        fail(`after the reload the run is ${waited.value.stored?.status}, not waiting paused`),
      );
    else if (!/key/iu.test(waited.value.message))
      r.notes.push(fail(`paused without naming the key: "${waited.value.message}"`));
    else
      r.notes.push(
        `paused at ${waited.value.stored?.counts.done}/${rows}: "${waited.value.message.slice(0, 80)}"`,
      );
    env.fault.setLatency(0);
    if (b.key) await enterKey(page, b.key);
    await resumeToDone(page, runId, r, 'after the reload');
    await closingAccount(env, page, runId, r, base, rows);
    return { storage: true };
  });
}

// --- 5. an offline spell -----------------------------------------------------------------------

export async function offlineSpell(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
  spellMs = 5_000,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'offline',
    fault: `context.setOffline for ${spellMs / 1000} s mid-run`,
    kind: 'openai',
  });
  return inBatchPage(env, r, started, { kind: 'openai', rows, name: 'offline' }, async (b) => {
    const page = b.fp.page;
    env.fault.setLatency(400);
    const runId = await startAndReach(page, b.dataset, 3);
    const badBefore = (await account(page, runId, env.fault.log, base)).bad.length;
    await b.fp.context.setOffline(true);
    const seen: RunView[] = [];
    const end = Date.now() + spellMs;
    while (Date.now() < end) {
      seen.push(await runView(page, runId));
      await new Promise((res) => setTimeout(res, 250));
    }
    await b.fp.context.setOffline(false);
    const paused = seen.find((v) => v.stored?.status === 'paused');
    const said = paused ? paused.message || paused.stored?.message || '' : '';
    if (!paused) r.notes.push(fail('did not pause while offline'));
    else if (!/offline|network|connection/iu.test(said)) {
      r.notes.push(fail(`paused without saying offline: "${said.slice(0, 100)}"`));
    }
    const back = await poll(
      () => runView(page, runId),
      (v) => v.stored?.status === 'done' || (v.stored?.status === 'running' && v.running),
      { timeout: 20_000 },
    );
    if (!back.ok) {
      r.notes.push(fail(`did not resume by itself (${back.value.stored?.status})`));
      if (back.value.stored?.status === 'paused')
        await resumeToDone(page, runId, r, 'after the spell');
    }
    const { view } = await waitSettled(page, runId, 180_000);
    if (view.stored?.status !== 'done') r.notes.push(fail(`ended ${view.stored?.status}`));
    env.fault.setLatency(0);
    // Nothing but the spell failed anything: every row without a good result now was burned by it.
    const final = await account(page, runId, env.fault.log, base);
    const burned = final.bad.length - badBefore;
    if (burned > CONCURRENCY) r.notes.push(fail(`${burned} rows failed or burned by the spell`));
    else r.notes.push(`${burned} rows failed or burned by the spell`);
    await contractNotes(page, runId, r);
    accountingNotes(r, final, false);
    r.sent = env.fault.log.length;
    r.needed = neededFor(
      base,
      Array.from({ length: rows }, (_, i) => i + 1),
    );
    return { storage: true };
  });
}

// --- 6. two tabs -----------------------------------------------------------------------------

export async function twoTabs(env: SuiteEnv, rows: number, base: Baseline): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'two-tabs',
    fault: 'tab B opens mid-run, no key in B',
    kind: 'openai',
  });
  return inBatchPage(env, r, started, { kind: 'openai', rows, name: 'tabs' }, async (b) => {
    const page = b.fp.page;
    env.fault.setLatency(300);
    const runId = await startAndReach(page, b.dataset, 2);
    const tabB = await b.fp.context.newPage();
    watchPage(tabB, b.fp);
    await tabB.goto(env.origin);
    await tabB.getByTestId('score-button').waitFor();
    const statuses = new Set<string>();
    const end = Date.now() + 6_000;
    while (Date.now() < end) {
      const s = await storedRun(page, runId);
      if (s && s.counts.done < s.counts.total) statuses.add(s.status);
      await new Promise((res) => setTimeout(res, 200));
    }
    if ([...statuses].some((s) => s !== 'running')) {
      const s = await storedRun(page, runId);
      r.notes.push(
        fail(
          `tab B rewrote the running run's status: ${[...statuses].join(' → ')}${s?.message ? ` ("${s.message.slice(0, 90)}")` : ''}`,
        ),
      );
    }
    env.fault.setLatency(0);
    const { view, ok: settledOk } = await waitSettled(page, runId, 180_000);
    if (!settledOk || view.stored?.status !== 'done') {
      r.notes.push(fail(`tab A's run ended ${view.stored?.status}`));
      if (view.stored?.status === 'paused') await resumeToDone(page, runId, r, 'tab A after tab B');
    }
    await tabB.close();
    await closingAccount(env, page, runId, r, base, rows);
    return { storage: true };
  });
}

// --- 7. a full storage quota -------------------------------------------------------------------

export async function storageQuota(env: SuiteEnv): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'storage',
    fault: 'quota overridden to 1 byte, single case',
    kind: 'none',
  });
  const fp = await openFaultPage(env.browser, env.origin);
  try {
    const cdp = await fp.context.newCDPSession(fp.page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: env.origin, quotaSize: 1 });
    await fillCase(fp.page, singleCase());
    await scoreAndWait(fp.page, OFFLINE_METRIC_IDS);
    const alert = fp.page.locator('p.storage-error');
    const shown = await poll(
      async () => ((await alert.count()) > 0 ? await alert.first().innerText() : ''),
      (t) => t !== '',
      { timeout: 15_000 },
    );
    if (!shown.ok)
      r.notes.push(fail('no message: the case was silently not saved (or saved past the quota)'));
    else if (!/not saved/iu.test(shown.value) || !/quota|full|space|storage/iu.test(shown.value)) {
      r.notes.push(
        fail(`the message does not say why it was not saved: "${shown.value.slice(0, 140)}"`),
      );
    } else r.notes.push(`"${shown.value.slice(0, 120)}"`);
    r.pageErrors = [...fp.pageErrors, ...fp.consoleErrors];
  } catch (e) {
    r.notes.push(fail(errorText(e)));
  } finally {
    await fp.context.close();
  }
  finish(r, started);
  env.log(`storage: ${r.outcome} ${r.notes.join('; ')}`);
  return r;
}
