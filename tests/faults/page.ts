/**
 * Page steps of the fault suite: configure the judge in the page, score a case and wait for the
 * cards of THIS score, read the stored runs and results from IndexedDB, start a data-set run and
 * find the run it created (by id, never the first matching element), wait for it to settle.
 * Nothing here uses vitest: the CLI runs it under tsx, the e2e spec under vitest.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { OFFLINE_METRIC_IDS } from '../e2e/support/browser.ts';
import {
  configureProvider,
  openProviderSettings,
  type ProviderChoice,
} from '../e2e/support/llm.ts';
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
  // No service worker: it caches the app only (never a provider's answer), and its precache (the
  // app shell, ~15 MB on disk) on every fresh context would cost the 2-core machine more than the
  // suite itself.
  const context = await browser.newContext({ serviceWorkers: 'block', acceptDownloads: true });
  // tsx compiles with esbuild's keepNames: functions passed to page.evaluate call `__name`.
  await context.addInitScript({ content: 'globalThis.__name ??= (f) => f;' });
  await context.addInitScript(installPageHelpers);
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

/** Where the page keeps the key: the provider settings' "Keep it" choices. */
export type KeyPersistence = 'memory' | 'session' | 'device';

export interface JudgeSetup {
  provider: ProviderChoice;
  /** LLM metrics to turn on (others off). */
  metrics: readonly string[];
  /** Client timeout in seconds, when the page has the field. */
  timeoutSec?: number;
  /** Where the key is kept (default memory, the page's default). */
  persistence?: KeyPersistence;
}

/** Whether the page has the provider timeout field (the lead's change). */
export async function hasTimeoutField(page: Page): Promise<boolean> {
  return (await page.getByTestId('provider-timeout').count()) > 0;
}

/** Saves `key` kept where `persistence` says (the choice is made before "Use key"). */
export async function saveKey(page: Page, key: string, persistence: KeyPersistence): Promise<void> {
  await openProviderSettings(page);
  await page.getByTestId('provider-key-persistence').selectOption(persistence);
  await page.getByTestId('provider-key').fill(key);
  await page.getByTestId('provider-key-save').click();
}

/** Provider, key (kept where `persistence` says: memory by default), LLM metrics, G-Eval greedy
 * (one call). */
export async function configureJudge(page: Page, fake: FakeLlm, setup: JudgeSetup): Promise<void> {
  const { key, ...provider } = setup.provider;
  await configureProvider(page, fake, provider);
  const persistence = setup.persistence ?? 'memory';
  if (key !== undefined) await saveKey(page, key, persistence);
  const kept = page.getByTestId('provider-key-persistence');
  if ((await kept.count()) > 0 && (await kept.inputValue()) !== persistence) {
    throw new Error(`The key is not kept as chosen (${persistence})`);
  }
  if (setup.timeoutSec !== undefined && (await hasTimeoutField(page))) {
    await page.getByTestId('provider-timeout').fill(String(setup.timeoutSec));
  }
  const panel = page.getByTestId('judge-panel');
  if ((await panel.getAttribute('open')) === null) await panel.locator('summary').click();
  if (!(await page.getByTestId('judge-enabled').isChecked())) {
    await page.getByTestId('judge-enabled').check();
  }
  await tick(page.locator('[data-testid^="judge-metric-"]'), 'judge-metric-', setup.metrics);
  await page.getByTestId('judge-geval-method').selectOption('greedy');
}

/**
 * Checks exactly the boxes of `ids` among `boxes` (test ids `prefix` + metric id), clicking the
 * ones that must change in one go: a setup step, not what is under test, and a dozen actions one
 * by one cost seconds on a busy machine.
 */
async function tick(boxes: Locator, prefix: string, ids: readonly string[]): Promise<void> {
  await boxes.evaluateAll(
    (els, { prefix, ids }) => {
      for (const e of els as HTMLInputElement[]) {
        const want = ids.includes((e.getAttribute('data-testid') ?? '').replace(prefix, ''));
        if (e.checked !== want) e.click();
      }
    },
    { prefix, ids },
  );
  const states = await boxes.evaluateAll((els) =>
    els.map((e) => [e.getAttribute('data-testid') ?? '', (e as HTMLInputElement).checked] as const),
  );
  const wrong = states.filter(([id, on]) => on !== ids.includes(id.replace(prefix, '')));
  if (wrong.length) throw new Error(`boxes not as chosen: ${wrong.map(([id]) => id).join(', ')}`);
}

/** Re-enters the key (after a reload: it lived in memory only). */
export async function enterKey(page: Page, key: string): Promise<void> {
  await openProviderSettings(page);
  await page.getByTestId('provider-key').fill(key);
  await page.getByTestId('provider-key-save').click();
}

// --- in-page helpers ---------------------------------------------------------------------------

/** A run item and its stored record, read in the page at one moment (the sampler's unit). */
export interface RunSampleView {
  /** The item as shown; undefined when the list has no item for the run. */
  shown?: {
    /** The status word the item shows ("running", "paused", …). */
    word: string;
    dataStatus: string | null;
    done: number | undefined;
    failed: number;
    total: number | undefined;
    /** The "N requests" counter; undefined when the item shows none. */
    requests: number | undefined;
    message: string;
    pause: boolean;
    resume: boolean;
  };
  /** The stored run; null when the database or the record is gone. */
  stored: {
    status: string;
    message?: string;
    done: number;
    failed: number;
    total: number;
    requests: number | undefined;
  } | null;
  /** A Web Lock naming the run is held (anywhere in the origin: any tab, any worker). */
  locked: boolean;
  /** The clients (tabs, workers) holding such a lock. */
  lockClients: string[];
}

/** Where a needle (the key) was found in the origin's storage: `where` names the place. */
export interface StoragePlace {
  where: string;
  /** The stored value is the key itself (a key the user chose to keep there, under its name). */
  exact: boolean;
}

/**
 * Installed in every page of a fault context (an init script: it survives reloads). Reads
 * IndexedDB without ever creating the app's database (an open that would create it is aborted:
 * a read after "clear site data" must not leave an empty v1 database the app cannot upgrade),
 * searches every storage for a needle, and samples a run item against its stored record.
 */
function installPageHelpers(): void {
  const w = globalThis as unknown as Record<string, unknown>;
  // When this document went away (reloaded, closed): an answer that came after found no page.
  // (HIDDEN_AT: this function runs in the page, serialised, without the module's names.)
  addEventListener('pagehide', () => localStorage.setItem('faults.hiddenAt', String(Date.now())));
  const request = <T>(r: IDBRequest<T>) =>
    new Promise<T>((resolve, reject) => {
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
  const openDb = (name: string) =>
    new Promise<IDBDatabase | undefined>((resolve, reject) => {
      const r = indexedDB.open(name);
      r.onupgradeneeded = () => r.transaction?.abort();
      r.onsuccess = () => {
        r.result.onversionchange = () => r.result.close();
        resolve(r.result);
      };
      r.onerror = (event) => {
        event.preventDefault();
        if (r.error?.name === 'AbortError') resolve(undefined);
        else reject(r.error);
      };
    });
  const withDb = async <T>(name: string, empty: T, read: (db: IDBDatabase) => Promise<T>) => {
    const db = await openDb(name);
    if (!db) return empty;
    try {
      return await read(db);
    } finally {
      db.close();
    }
  };
  // A run's status is stored in IndexedDB, or, where IndexedDB refused the write (the disk is
  // full), in localStorage until IndexedDB takes it (src/lib/storage/run-status-journal.ts): the
  // newer of the two is the stored status, as every read the app makes sees it.
  const withJournal = (record: unknown): unknown => {
    const run = record as { id?: string; updatedAt?: number } | undefined;
    if (!run?.id) return record;
    const raw = localStorage.getItem(`sumlens.run-status.${run.id}`);
    if (!raw) return record;
    try {
      const entry = JSON.parse(raw) as { status: string; message?: string; at: number };
      if (entry.at < (run.updatedAt ?? 0)) return record;
      const { message: _message, ...rest } = run as { message?: string };
      return {
        ...rest,
        status: entry.status,
        ...(entry.message !== undefined ? { message: entry.message } : {}),
      };
    } catch {
      return record;
    }
  };
  const all = (store: string, index?: { name: string; key: string }) =>
    withDb('sumlens', [] as unknown[], async (db) => {
      if (!db.objectStoreNames.contains(store)) return [];
      const s = db.transaction(store, 'readonly').objectStore(store);
      const records = await request(index ? s.index(index.name).getAll(index.key) : s.getAll());
      return store === 'runs' ? records.map(withJournal) : records;
    });
  const get = (store: string, key: string) =>
    withDb('sumlens', undefined as unknown, async (db) => {
      if (!db.objectStoreNames.contains(store)) return undefined;
      const record = await request(db.transaction(store, 'readonly').objectStore(store).get(key));
      return store === 'runs' ? withJournal(record) : record;
    });
  const count = (store: string) =>
    withDb('sumlens', 0, async (db) => {
      if (!db.objectStoreNames.contains(store)) return 0;
      return request(db.transaction(store, 'readonly').objectStore(store).count());
    });

  const encoder = new TextEncoder();
  const hasBytes = (hay: Uint8Array, needle: Uint8Array) => {
    for (let i = hay.indexOf(needle[0]!); i >= 0; i = hay.indexOf(needle[0]!, i + 1)) {
      let j = 1;
      while (j < needle.length && hay[i + j] === needle[j]) j++;
      if (j === needle.length) return true;
    }
    return false;
  };
  /** Every place of the origin's storage that holds one of `needles`. */
  const find = async (needles: string[]): Promise<StoragePlace[]> => {
    const out: StoragePlace[] = [];
    const has = (text: string) => needles.some((n) => text.includes(n));
    for (const [label, store] of [
      ['localStorage', localStorage],
      ['sessionStorage', sessionStorage],
    ] as const) {
      for (let i = 0; i < store.length; i++) {
        const k = store.key(i)!;
        const v = store.getItem(k) ?? '';
        if (has(k) || has(v)) out.push({ where: `${label}:${k}`, exact: v.trim() === needles[0] });
      }
    }
    for (const info of (await indexedDB.databases?.()) ?? [{ name: 'sumlens' }]) {
      if (!info.name) continue;
      await withDb(info.name, undefined, async (db) => {
        for (const name of Array.from(db.objectStoreNames)) {
          const rows = await request(db.transaction(name, 'readonly').objectStore(name).getAll());
          const keys = await request(
            db.transaction(name, 'readonly').objectStore(name).getAllKeys(),
          );
          if (has(JSON.stringify(rows)) || has(JSON.stringify(keys)))
            out.push({ where: `indexedDB:${info.name}/${name}`, exact: false });
        }
      });
    }
    const bytes = needles.map((n) => encoder.encode(n));
    const hasAny = (hay: Uint8Array) => bytes.some((b) => hasBytes(hay, b));
    for (const name of (await globalThis.caches?.keys()) ?? []) {
      const cache = await caches.open(name);
      for (const req of await cache.keys()) {
        const res = await cache.match(req);
        const body = res ? new Uint8Array(await res.arrayBuffer()) : new Uint8Array();
        const headers = res ? JSON.stringify([...res.headers]) : '';
        if (has(req.url) || has(headers) || hasAny(body))
          out.push({ where: `cache:${name} ${req.url.slice(0, 80)}`, exact: false });
      }
    }
    // The origin private file system: nothing the app writes today, searched all the same.
    const walk = async (dir: FileSystemDirectoryHandle, path: string): Promise<void> => {
      for await (const [name, handle] of (
        dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }
      ).entries()) {
        if (handle.kind === 'directory')
          await walk(handle as FileSystemDirectoryHandle, `${path}${name}/`);
        else {
          const file = await (handle as FileSystemFileHandle).getFile();
          if (has(name) || hasAny(new Uint8Array(await file.arrayBuffer())))
            out.push({ where: `opfs:${path}${name}`, exact: false });
        }
      }
    };
    const root = await navigator.storage?.getDirectory?.().catch(() => undefined);
    if (root) await walk(root, '/');
    return out;
  };

  const numberIn = (text: string | null | undefined) => {
    const m = /[\d,]+/u.exec(text ?? '');
    return m ? Number(m[0].replace(/,/gu, '')) : undefined;
  };
  const sample = async (runId: string): Promise<RunSampleView> => {
    const item = Array.from(document.querySelectorAll('[data-testid="run-item"]')).find(
      (el) => el.getAttribute('data-run-id') === runId,
    );
    let shown: RunSampleView['shown'];
    if (item) {
      const text = (item as HTMLElement).innerText;
      // The status is the <strong> that is not the run's name.
      const word =
        Array.from(item.querySelectorAll('strong'))
          .find((el) => !el.classList.contains('name'))
          ?.textContent?.trim() ??
        item.getAttribute('data-state') ??
        '';
      const progress = /([\d,]+)\/([\d,]+) rows?/u.exec(text);
      const usage = item.querySelector('[data-testid="run-judge-usage"]');
      shown = {
        word,
        dataStatus: item.getAttribute('data-status'),
        done: progress ? numberIn(progress[1]) : numberIn(item.getAttribute('data-done')),
        failed: numberIn(/([\d,]+) failed/u.exec(text)?.[1]) ?? 0,
        total: progress ? numberIn(progress[2]) : numberIn(item.getAttribute('data-total')),
        requests: usage
          ? (numberIn(usage.getAttribute('data-http-calls')) ??
            numberIn(/([\d,]+) requests?/u.exec((usage as HTMLElement).innerText)?.[1]))
          : undefined,
        message:
          (item.querySelector('[data-testid="run-message"]') as HTMLElement | null)?.innerText ??
          '',
        pause: item.querySelector('[data-testid="run-pause"]') !== null,
        resume:
          item.querySelector('[data-testid="run-resume"], [data-testid="run-continue"]') !== null,
      };
    }
    const run = (await get('runs', runId)) as
      | {
          status: string;
          message?: string;
          counts: { done: number; failed: number; total: number };
          judgeUsage?: { httpCalls: number };
        }
      | undefined;
    const held = ((await navigator.locks?.query())?.held ?? []).filter((l) =>
      (l.name ?? '').includes(runId),
    );
    return {
      ...(shown ? { shown } : {}),
      stored: run
        ? {
            status: run.status,
            ...(run.message ? { message: run.message } : {}),
            done: run.counts.done,
            failed: run.counts.failed,
            total: run.counts.total,
            requests: run.judgeUsage?.httpCalls,
          }
        : null,
      locked: held.length > 0,
      lockClients: held.map((l) => l.clientId ?? ''),
    };
  };
  w.__faults = { all, get, count, find, sample };
}

/** The localStorage entry where a page that goes away writes when (epoch ms). */
const HIDDEN_AT = 'faults.hiddenAt';

/** When the last page of the context went away (epoch ms), read in a page still there. */
export async function lastHiddenAt(page: Page): Promise<number | undefined> {
  const value = await page.evaluate((k) => localStorage.getItem(k), HIDDEN_AT);
  return value === null ? undefined : Number(value);
}

interface PageHelpers {
  all(store: string, index?: { name: string; key: string }): Promise<unknown[]>;
  count(store: string): Promise<number>;
  find(needles: string[]): Promise<StoragePlace[]>;
  sample(runId: string): Promise<RunSampleView>;
}

/** Reads one store (or one index range) of the app's database inside the page. */
async function idbAll<T>(
  page: Page,
  store: string,
  index?: { name: string; key: string },
): Promise<T[]> {
  return page.evaluate(
    ({ store, index }) =>
      (globalThis as unknown as { __faults: PageHelpers }).__faults.all(store, index),
    { store, index },
  ) as Promise<T[]>;
}

async function idbCount(page: Page, store: string): Promise<number> {
  return page.evaluate(
    (store) => (globalThis as unknown as { __faults: PageHelpers }).__faults.count(store),
    store,
  );
}

/** The run item of `runId` and its stored record, read at one moment. */
export async function sampleRun(page: Page, runId: string): Promise<RunSampleView> {
  return page.evaluate(
    (runId) => (globalThis as unknown as { __faults: PageHelpers }).__faults.sample(runId),
    runId,
  );
}

/** The places of the origin's storage (IndexedDB, local/sessionStorage, Cache Storage, OPFS)
 * that hold one of `needles` (the first is the whole key). */
export async function storagePlaces(page: Page, needles: string[]): Promise<StoragePlace[]> {
  return page.evaluate(
    (needles) => (globalThis as unknown as { __faults: PageHelpers }).__faults.find(needles),
    needles,
  );
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

/** A stored row: its number, the row tag its source carries, and its texts. */
export interface StoredRowView {
  row: number;
  id?: string;
  tag: number | undefined;
  source: string;
  summary: string;
  reference: string;
}

/** The rows of a data set as stored, with the tag ("Dossier NNN") their source carries. */
export async function datasetRows(page: Page, datasetId: string): Promise<StoredRowView[]> {
  const rows = await idbAll<{
    row: number;
    id?: string;
    input?: { source?: string; summary?: string; reference?: string };
  }>(page, 'dataset-rows', { name: 'by-dataset', key: datasetId });
  return rows.map((r) => {
    const m = /Dossier (\d{3,})/u.exec(r.input?.source ?? '');
    return {
      row: r.row,
      ...(r.id !== undefined ? { id: r.id } : {}),
      tag: m ? Number(m[1]) : undefined,
      source: r.input?.source ?? '',
      summary: r.input?.summary ?? '',
      reference: r.input?.reference ?? '',
    };
  });
}

export interface StoredDatasetView {
  id: string;
  name: string;
  rowCount: number;
  problems: { count: number; examples: Array<{ row?: number; reason?: string }> };
}

export async function storedDatasets(page: Page): Promise<StoredDatasetView[]> {
  return idbAll<StoredDatasetView>(page, 'datasets');
}

export async function judgeCacheSize(page: Page): Promise<number> {
  return idbCount(page, 'judge-cache');
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
  await tick(setup.locator('[data-testid^="run-metric-"]'), 'run-metric-', [
    ...choice.judgeMetrics,
    ...choice.offlineMetrics,
  ]);
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
  // A run that ends with failed rows offers "Retry failed rows" once the list has its counts:
  // the page learns "done" before the stored counts reach the list, so wait for the button too.
  if (s === 'done' && (v.stored?.counts.failed ?? 0) > 0) return !v.running && v.canRetry;
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

/** A file the page offered for download, as saved on disk. */
export interface SavedFile {
  /** Which button made it ("run export-json", "compare compare-export-html"). */
  what: string;
  /** Where the suite saved it, and where the browser had put it first. */
  paths: string[];
  text: string;
}

/** Clicks each button in `testids` (visible in the page now) and saves what it downloads. */
async function downloads(
  page: Page,
  testids: readonly string[],
  dir: string,
  label: string,
): Promise<SavedFile[]> {
  mkdirSync(dir, { recursive: true });
  const out: SavedFile[] = [];
  for (const id of testids) {
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.getByTestId(id).click(),
    ]);
    const target = join(dir, `${label}-${id}-${download.suggestedFilename()}`);
    await download.saveAs(target);
    const first = await download.path().catch(() => null);
    out.push({
      what: `${label} ${id}`,
      paths: first ? [target, first] : [target],
      text: readFileSync(target, 'utf8'),
    });
  }
  return out;
}

/** The run's exports: every button of the run view (JSON, CSV, Markdown, HTML). */
export async function runExports(page: Page, runId: string, dir: string): Promise<SavedFile[]> {
  const item = await runItem(page, runId);
  await item.getByTestId('run-open').click();
  await page.locator(`[data-testid="run-view"][data-run-id="${runId}"]`).waitFor({
    timeout: 60_000,
  });
  const ids = await page
    .locator('[data-testid="run-view"] [data-testid^="export-"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!));
  return downloads(page, ids, dir, `run-${runId.slice(0, 8)}`);
}

/** A comparison of run `a` (baseline) with run `b`, and every export its view offers. */
export async function compareExports(
  page: Page,
  a: string,
  b: string,
  dir: string,
): Promise<SavedFile[]> {
  await page.evaluate(
    ({ a, b }) =>
      (location.hash = `#compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`),
    { a, b },
  );
  await page
    .locator(`[data-testid="compare-view"][data-b="${b}"][data-loading="false"]`)
    .waitFor({ timeout: 60_000 });
  const ids = await page
    .locator('[data-testid^="compare-export-"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!));
  const files = await downloads(page, ids, dir, 'compare');
  await page.getByTestId('compare-close').click();
  return files;
}

/** After a reload or in a new tab: the app is up and its stored runs are listed. */
export async function waitApp(page: Page, runId?: string): Promise<void> {
  await page.getByTestId('score-button').waitFor({ timeout: 60_000 });
  if (runId)
    await page
      .locator(`[data-testid="run-item"][data-run-id="${runId}"]`)
      .waitFor({ timeout: 60_000 });
}

/** What the import panel says once the file is read (or refused). */
export interface ImportView {
  /** The panel's visible text. */
  text: string;
  /** The rows that could not be loaded, as listed (the list may be folded). */
  dropped: string[];
  /** The cells dropped from rows that loaded. */
  cells: string[];
  /** The page's data-set error, if any. */
  error: string;
}

/** Picks a file in the data-set view and waits until the import is over (read, refused, or
 * waiting for a mapping, which is confirmed as proposed). */
export async function importFile(page: Page, file: string): Promise<ImportView> {
  await page.getByTestId('dataset-file').setInputFiles(file);
  const end = Date.now() + 120_000;
  for (;;) {
    // Until the import is over, refused, or waiting for its mapping (checked by the page on each
    // frame).
    const state = await page
      .waitForFunction(
        () => {
          const panel = document.querySelector('[data-testid="dataset-import"]');
          const s = {
            done: panel?.getAttribute('data-done') === 'true',
            review: document.querySelector('[data-testid="mapping-import"]') !== null,
            error: Boolean(
              panel?.querySelector('[role="alert"]') ??
              document.querySelector('[data-testid="datasets-error"]'),
            ),
          };
          return s.done || s.review || s.error ? s : false;
        },
        undefined,
        { timeout: Math.max(1, end - Date.now()) },
      )
      .then((handle) => handle.jsonValue())
      .catch(() => undefined);
    if (!state) throw new Error(`The import of ${file} did not end`);
    if (!state.review) break;
    // The mapping is confirmed as proposed; the editor closes as the import starts.
    await page.getByTestId('mapping-import').click();
    await page
      .getByTestId('mapping-import')
      .waitFor({ state: 'detached', timeout: Math.max(1, end - Date.now()) });
  }
  return page.evaluate(() => {
    const panel = document.querySelector<HTMLElement>('[data-testid="dataset-import"]');
    const items = (id: string) =>
      Array.from(document.querySelectorAll(`[data-testid="${id}"] li`)).map(
        (li) => li.textContent?.trim() ?? '',
      );
    return {
      text: panel?.innerText ?? '',
      dropped: items('dataset-problems'),
      cells: items('dataset-cell-problems'),
      error:
        (document.querySelector('[data-testid="datasets-error"]') as HTMLElement | null)
          ?.innerText ?? '',
    };
  });
}

/** Imports a run exported as JSON; returns the id of the run it added. */
export async function importRunFile(page: Page, file: string): Promise<string> {
  const before = new Set((await storedRuns(page)).map((r) => r.id));
  await page.getByTestId('run-import-file').setInputFiles(file);
  const { value, ok } = await poll(
    async () => (await storedRuns(page)).filter((r) => !before.has(r.id)),
    (fresh) => fresh.length === 1,
    { timeout: 60_000 },
  );
  if (!ok) throw new Error(`Importing ${file} added ${value.length} runs, not 1`);
  return value[0]!.id;
}

/** The provider settings' key line ("A key is set (…)." / "No key set."). */
export async function keyState(page: Page): Promise<string> {
  await openProviderSettings(page);
  return (await page.getByTestId('provider-key-state').innerText()).trim();
}
