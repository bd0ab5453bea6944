/**
 * Page steps of the fault suite: configure the judge in the page, score a case and wait for the
 * cards of THIS score, read the stored runs and results from IndexedDB, start a data-set run and
 * find the run it created (by id, never the first matching element), wait for it to settle.
 * Nothing here uses vitest: the CLI runs it under tsx, the e2e spec under vitest.
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { OFFLINE_METRIC_IDS } from '../e2e/support/browser.ts';
import { configureProvider, type ProviderChoice } from '../e2e/support/llm.ts';
import type { FakeLlm } from '../helpers/fake-llm.ts';
import type { CaseText } from './dataset.ts';

export { OFFLINE_METRIC_IDS };

export interface FaultPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** console.error lines, minus the browser's own "Failed to load resource" for 4xx/5xx/offline. */
  consoleErrors: string[];
  /** Every console line (the key must be in none). */
  consoleAll: string[];
}

const RESOURCE_NOISE = /Failed to load resource|net::ERR_/u;

/** Watches one more page of the same context (a second tab; a reload keeps the listeners). */
export function watchPage(page: Page, into: FaultPage): void {
  page.on('pageerror', (error) => into.pageErrors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    into.consoleAll.push(message.text());
    if (message.type() === 'error' && !RESOURCE_NOISE.test(message.text())) {
      into.consoleErrors.push(`console: ${message.text()}`);
    }
  });
}

/** A fresh context (its own IndexedDB and storage) with the app loaded. */
export async function openFaultPage(browser: Browser, origin: string): Promise<FaultPage> {
  // No service worker: it caches the app only (never a provider's answer), and its 36 MiB
  // precache on every fresh context would cost the 2-core machine more than the suite itself.
  const context = await browser.newContext({ serviceWorkers: 'block', acceptDownloads: true });
  // tsx compiles with esbuild's keepNames: functions passed to page.evaluate call `__name`.
  await context.addInitScript({ content: 'globalThis.__name ??= (f) => f;' });
  const page = await context.newPage();
  const out: FaultPage = { context, page, pageErrors: [], consoleErrors: [], consoleAll: [] };
  watchPage(page, out);
  await page.goto(origin);
  await page.getByTestId('score-button').waitFor();
  return out;
}

export async function poll<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeout = 60_000, interval = 200 }: { timeout?: number; interval?: number } = {},
): Promise<{ value: T; ok: boolean }> {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (done(value)) return { value, ok: true };
    if (Date.now() > end) return { value, ok: false };
    await new Promise((r) => setTimeout(r, interval));
  }
}

export interface JudgeSetup {
  provider: ProviderChoice;
  /** LLM metrics to turn on (others off). */
  metrics: readonly string[];
  /** Client timeout in seconds, when the page has the field. */
  timeoutSec?: number;
}

/** Whether the page has the provider timeout field (the lead's change). */
export async function hasTimeoutField(page: Page): Promise<boolean> {
  return (await page.getByTestId('provider-timeout').count()) > 0;
}

/** Provider, key (in memory: the default "Keep it"), LLM metrics, G-Eval greedy (one call). */
export async function configureJudge(page: Page, fake: FakeLlm, setup: JudgeSetup): Promise<void> {
  await configureProvider(page, fake, setup.provider);
  const persistence = page.getByTestId('provider-key-persistence');
  if ((await persistence.count()) > 0 && (await persistence.inputValue()) !== 'memory') {
    throw new Error('The key is not kept in memory only');
  }
  if (setup.timeoutSec !== undefined && (await hasTimeoutField(page))) {
    await page.getByTestId('provider-timeout').fill(String(setup.timeoutSec));
  }
  const panel = page.getByTestId('judge-panel');
  if ((await panel.getAttribute('open')) === null) await panel.locator('summary').click();
  if (!(await page.getByTestId('judge-enabled').isChecked())) {
    await page.getByTestId('judge-enabled').check();
  }
  const boxes = page.locator('[data-testid^="judge-metric-"]');
  for (let i = 0; i < (await boxes.count()); i++) {
    const box = boxes.nth(i);
    const id = ((await box.getAttribute('data-testid')) ?? '').replace('judge-metric-', '');
    const want = setup.metrics.includes(id);
    if ((await box.isChecked()) !== want) await box.setChecked(want);
  }
  await page.getByTestId('judge-geval-method').selectOption('greedy');
}

/** Re-enters the key (after a reload: it lived in memory only). */
export async function enterKey(page: Page, key: string): Promise<void> {
  const provider = page.getByTestId('provider-settings');
  if ((await provider.getAttribute('open')) === null) await provider.locator('summary').click();
  await page.getByTestId('provider-key').fill(key);
  await page.getByTestId('provider-key-save').click();
}

// --- IndexedDB, read from the page ---------------------------------------------------------------

/** Reads one store (or one index range) of the app's database inside the page; closed after. */
async function idbAll<T>(
  page: Page,
  store: string,
  index?: { name: string; key: string },
): Promise<T[]> {
  return page.evaluate(
    async ({ store, index }) => {
      const database = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open('sumlens');
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      try {
        if (!database.objectStoreNames.contains(store)) return [];
        const s = database.transaction(store, 'readonly').objectStore(store);
        return await new Promise<unknown[]>((resolve, reject) => {
          const r = index ? s.index(index.name).getAll(index.key) : s.getAll();
          r.onsuccess = () => resolve(r.result);
          r.onerror = () => reject(r.error);
        });
      } finally {
        database.close();
      }
    },
    { store, index },
  ) as Promise<T[]>;
}

async function idbCount(page: Page, store: string): Promise<number> {
  return page.evaluate(async (store) => {
    const database = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('sumlens');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    try {
      if (!database.objectStoreNames.contains(store)) return 0;
      return await new Promise<number>((resolve, reject) => {
        const r = database.transaction(store, 'readonly').objectStore(store).count();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    } finally {
      database.close();
    }
  }, store);
}

export interface StoredRunView {
  id: string;
  datasetId: string;
  createdAt: number;
  updatedAt?: number;
  status: string;
  message?: string;
  counts: { total: number; done: number; failed: number };
  judgeUsage?: { httpCalls: number; cachedCalls: number; calls: number };
  metrics: string[];
}

export async function storedRuns(page: Page): Promise<StoredRunView[]> {
  const runs = await idbAll<StoredRunView>(page, 'runs');
  return runs.sort((a, b) => b.createdAt - a.createdAt);
}

export async function storedRun(page: Page, runId: string): Promise<StoredRunView | undefined> {
  return (await storedRuns(page)).find((r) => r.id === runId);
}

export interface StoredResultView {
  row: number;
  status: 'done' | 'failed';
  error?: string;
  results: Array<{ id: string; status: string; reason?: string }>;
}

export async function storedResults(page: Page, runId: string): Promise<StoredResultView[]> {
  const results = await idbAll<StoredResultView>(page, 'run-results', {
    name: 'by-run',
    key: runId,
  });
  return results.map((r) => ({
    row: r.row,
    status: r.status,
    ...(r.error !== undefined ? { error: r.error } : {}),
    results: r.results.map((m) => ({
      id: m.id,
      status: m.status,
      ...(m.reason !== undefined ? { reason: m.reason } : {}),
    })),
  }));
}

/** Row numbers of a data set, with the row tag its text carries. */
export async function datasetRows(
  page: Page,
  datasetId: string,
): Promise<Array<{ row: number; tag: number | undefined }>> {
  const rows = await idbAll<{ row: number; input?: { source?: string } }>(page, 'dataset-rows', {
    name: 'by-dataset',
    key: datasetId,
  });
  return rows.map((r) => {
    const m = /Dossier (\d{3})/u.exec(r.input?.source ?? '');
    return { row: r.row, tag: m ? Number(m[1]) : undefined };
  });
}

export async function judgeCacheSize(page: Page): Promise<number> {
  return idbCount(page, 'judge-cache');
}

/** Every IndexedDB store, localStorage and sessionStorage as one string (the key must be in none). */
export async function storageDump(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const parts: string[] = [];
    for (const store of [localStorage, sessionStorage]) {
      for (let i = 0; i < store.length; i++) {
        const k = store.key(i)!;
        parts.push(`${k}=${store.getItem(k)}`);
      }
    }
    const dbs = (await indexedDB.databases?.()) ?? [{ name: 'sumlens' }];
    for (const info of dbs) {
      if (!info.name) continue;
      const database = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open(info.name!);
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      try {
        for (const name of Array.from(database.objectStoreNames)) {
          const rows = await new Promise<unknown[]>((resolve, reject) => {
            const r = database.transaction(name, 'readonly').objectStore(name).getAll();
            r.onsuccess = () => resolve(r.result);
            r.onerror = () => reject(r.error);
          });
          parts.push(`${info.name}/${name}:${JSON.stringify(rows)}`);
        }
      } finally {
        database.close();
      }
    }
    return parts.join('\n');
  });
}

/** What the page shows, input values included (a key left in a field counts). */
export async function domText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const values = Array.from(document.querySelectorAll('input, textarea, select')).map(
      (e) => (e as HTMLInputElement).value,
    );
    return `${document.documentElement.outerHTML}\n${values.join('\n')}`;
  });
}

// --- single case ---------------------------------------------------------------------------------

export async function clearJudgeCache(page: Page): Promise<void> {
  if ((await judgeCacheSize(page)) === 0) return;
  await page.getByTestId('judge-clear-cache').click();
  const { ok } = await poll(
    () => judgeCacheSize(page),
    (n) => n === 0,
    { timeout: 10_000 },
  );
  if (!ok) throw new Error('The judge cache was not cleared');
}

export async function fillCase(page: Page, text: CaseText): Promise<void> {
  await page.getByTestId('source-input').fill(text.source);
  await page.getByTestId('summary-input').fill(text.summary);
}

export interface CardView {
  id: string;
  status: string | null;
  reason: string;
}

/**
 * Presses Score and waits until every card in `ids` has gone through "running" after the press
 * (a mutation observer sees every status it takes) and settled: the cards of THIS score.
 */
export async function scoreAndWait(
  page: Page,
  ids: readonly string[],
  timeout = 150_000,
): Promise<CardView[]> {
  await page.evaluate((ids) => {
    const w = window as unknown as { __faultsSeen?: Record<string, boolean> };
    const seen: Record<string, boolean> = Object.fromEntries(ids.map((id) => [id, false]));
    w.__faultsSeen = seen;
    const mark = (el: Element) => {
      const id = el.getAttribute('data-testid')?.replace(/^metric-/, '');
      if (id && id in seen && el.getAttribute('data-status') === 'running') seen[id] = true;
    };
    const observer = new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes' && r.target instanceof Element) mark(r.target);
        for (const n of Array.from(r.addedNodes)) {
          if (!(n instanceof Element)) continue;
          if (n.matches('[data-testid^="metric-"]')) mark(n);
          n.querySelectorAll('[data-testid^="metric-"]').forEach(mark);
        }
      }
    });
    observer.observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-status'],
    });
  }, ids);
  await page.getByTestId('score-button').click();
  await page.waitForFunction(
    (ids) => {
      const seen = (window as unknown as { __faultsSeen: Record<string, boolean> }).__faultsSeen;
      // A run the provider refused as a whole hides its red cards behind one notice.
      const stopped = document.querySelector('[data-testid="judge-notice"]') !== null;
      return ids.every((id) => {
        const card = document.querySelector(`[data-testid="metric-${id}"]`);
        const s = card?.getAttribute('data-status');
        return seen[id] && (s === 'ok' || s === 'n/a' || s === 'error' || (!card && stopped));
      });
    },
    ids,
    { timeout, polling: 100 },
  );
  return cardViews(page, ids);
}

export async function cardViews(page: Page, ids: readonly string[]): Promise<CardView[]> {
  return page.evaluate(
    (ids) =>
      ids.map((id) => {
        const card = document.querySelector(`[data-testid="metric-${id}"]`);
        const notice = document.querySelector<HTMLElement>('[data-testid="judge-notice"]');
        // The notice stands for every card it hid: the same error, said once.
        if (!card && notice) return { id, status: 'error', reason: notice.innerText };
        return {
          id,
          status: card?.getAttribute('data-status') ?? null,
          reason:
            (card?.querySelector('[data-testid="reason"]') as HTMLElement | null)?.innerText ?? '',
        };
      }),
    ids,
  );
}

// --- data sets and runs --------------------------------------------------------------------------

/** Picks a file in the data-set view and waits until one more data set is listed. */
export async function importDataset(page: Page, file: string): Promise<void> {
  const before = await page.getByTestId('dataset-item').count();
  await page.getByTestId('dataset-file').setInputFiles(file);
  const { ok } = await poll(
    () => page.getByTestId('dataset-item').count(),
    (n) => n === before + 1,
    { timeout: 60_000 },
  );
  if (!ok) throw new Error(`The data set ${file} was not imported`);
}

export interface RunChoice {
  /** The data set's name (the file name without extension). */
  dataset: string;
  judgeMetrics: readonly string[];
  offlineMetrics: readonly string[];
}

/** Opens the run setup of a data set, ticks exactly the chosen metrics, presses Start, and
 * returns the id of the run that appeared (a diff of the stored runs). */
export async function startRun(page: Page, choice: RunChoice): Promise<string> {
  const before = new Set((await storedRuns(page)).map((r) => r.id));
  const item = page.getByTestId('dataset-item').filter({ hasText: choice.dataset });
  await item.getByTestId('run-configure').click();
  const setup = page.getByTestId('run-setup');
  await setup.waitFor();
  const boxes = setup.locator('[data-testid^="run-metric-"]');
  const want = new Set([...choice.judgeMetrics, ...choice.offlineMetrics]);
  for (let i = 0; i < (await boxes.count()); i++) {
    const box = boxes.nth(i);
    const id = ((await box.getAttribute('data-testid')) ?? '').replace('run-metric-', '');
    if ((await box.isChecked()) !== want.has(id)) await box.setChecked(want.has(id));
  }
  await page.getByTestId('run-start').click();
  const { value, ok } = await poll(
    async () => (await storedRuns(page)).filter((r) => !before.has(r.id)),
    (fresh) => fresh.length === 1,
    { timeout: 30_000 },
  );
  if (!ok) throw new Error(`Start made ${value.length} new runs, not 1`);
  return value[0]!.id;
}

/**
 * The list item of run `runId`: by `data-run-id` when the page has it, else by its place in the
 * list (the list shows the stored runs newest first).
 */
export async function runItem(page: Page, runId: string): Promise<Locator> {
  const items = page.getByTestId('run-item');
  if ((await page.locator('[data-testid="run-item"][data-run-id]').count()) > 0) {
    return page.locator(`[data-testid="run-item"][data-run-id="${runId}"]`);
  }
  const order = (await storedRuns(page)).map((r) => r.id);
  return items.nth(Math.max(0, order.indexOf(runId)));
}

export interface RunView {
  stored: StoredRunView | undefined;
  /** The item's attributes (the contract) and texts. */
  dataStatus: string | null;
  dataRunId: string | null;
  /** data-done, data-failed, data-total (null where the item lacks them). */
  dataCounts: { done: string | null; failed: string | null; total: string | null };
  message: string;
  usage: string;
  httpCallsAttr: string | null;
  running: boolean;
  canResume: boolean;
  canRetry: boolean;
}

export async function runView(page: Page, runId: string): Promise<RunView> {
  const stored = await storedRun(page, runId);
  const item = await runItem(page, runId);
  if ((await item.count()) === 0) {
    return {
      stored,
      dataStatus: null,
      dataRunId: null,
      dataCounts: { done: null, failed: null, total: null },
      message: '',
      usage: '',
      httpCallsAttr: null,
      running: false,
      canResume: false,
      canRetry: false,
    };
  }
  return item.evaluate((el, stored) => {
    const text = (id: string) =>
      (el.querySelector(`[data-testid="${id}"]`) as HTMLElement | null)?.innerText ?? '';
    const resume =
      el.querySelector('[data-testid="run-resume"]') ??
      Array.from(el.querySelectorAll('button')).find((b) => b.textContent?.trim() === 'Resume');
    return {
      stored,
      dataStatus: el.getAttribute('data-status'),
      dataRunId: el.getAttribute('data-run-id'),
      dataCounts: {
        done: el.getAttribute('data-done'),
        failed: el.getAttribute('data-failed'),
        total: el.getAttribute('data-total'),
      },
      message: text('run-message'),
      usage: text('run-judge-usage'),
      httpCallsAttr:
        el.querySelector('[data-testid="run-judge-usage"]')?.getAttribute('data-http-calls') ??
        null,
      running: el.querySelector('[data-testid="run-pause"]') !== null,
      canResume: resume !== undefined && resume !== null,
      canRetry: el.querySelector('[data-testid="run-retry-failed"]') !== null,
    };
  }, stored);
}

/** Done or cancelled, or paused with nothing scoring (a Resume on offer, no Pause). */
export function settled(v: RunView): boolean {
  const s = v.stored?.status;
  if (s === 'done' || s === 'cancelled') return !v.running;
  return s === 'paused' && !v.running && v.canResume;
}

export async function waitSettled(
  page: Page,
  runId: string,
  timeout: number,
): Promise<{ view: RunView; ok: boolean }> {
  const { value, ok } = await poll(() => runView(page, runId), settled, { timeout, interval: 300 });
  return { view: value, ok };
}

/** After a click on a run's button: until the stored run changes (up to 5 s), so that a wait for
 * it to settle does not return on the state before the click. */
async function afterClick(
  page: Page,
  runId: string,
  before: StoredRunView | undefined,
): Promise<void> {
  const mark = JSON.stringify([before?.updatedAt, before?.status, before?.counts]);
  await poll(
    () => storedRun(page, runId),
    (now) => JSON.stringify([now?.updatedAt, now?.status, now?.counts]) !== mark,
    { timeout: 5_000, interval: 100 },
  );
}

/** Clicks the run's Resume (the stored-run one, or the in-page one). */
export async function clickResume(page: Page, runId: string): Promise<boolean> {
  const item = await runItem(page, runId);
  const before = await storedRun(page, runId);
  const byId = item.getByTestId('run-resume');
  const byText = item.getByRole('button', { name: 'Resume', exact: true });
  const button = (await byId.count()) > 0 ? byId : (await byText.count()) > 0 ? byText : undefined;
  if (!button) return false;
  await button.first().click();
  await afterClick(page, runId, before);
  return true;
}

export async function clickIn(page: Page, runId: string, testid: string): Promise<boolean> {
  const button = (await runItem(page, runId)).getByTestId(testid);
  if ((await button.count()) === 0) return false;
  const before = await storedRun(page, runId);
  await button.click();
  await afterClick(page, runId, before);
  return true;
}

/** The "N requests (M cached)" counter of the run item, as a number. */
export function usageRequests(v: RunView): number | undefined {
  if (v.httpCallsAttr !== null && v.httpCallsAttr !== '') return Number(v.httpCallsAttr);
  const m = /([\d,]+) requests/u.exec(v.usage);
  return m ? Number(m[1]!.replace(/,/gu, '')) : undefined;
}

/** Opens the run and downloads its exports; returns their texts. */
export async function exportTexts(page: Page, runId: string): Promise<string[]> {
  const item = await runItem(page, runId);
  await item.getByTestId('run-open').click();
  await page.getByTestId('run-view').waitFor({ timeout: 30_000 });
  const out: string[] = [];
  for (const id of ['export-json', 'export-csv', 'export-md']) {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId(id).click(),
    ]);
    const path = await download.path();
    if (path) out.push((await import('node:fs')).readFileSync(path, 'utf8'));
  }
  return out;
}
