/**
 * Every run status on screen equals the stored one, whatever happens to the tab that runs it:
 * another tab follows its counters and takes it over when its tab closes (finishing it with a key
 * kept on the device, or pausing it with the reason without one), a full disk pauses it on screen
 * and in what a reload reads (no answer bought again by a resume nobody pressed), cleared site
 * data stops it with words a person understands, and an offline spell ends with the list showing
 * the run going again. Against the loopback fake provider; runs with one judge metric.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { appOrigin, launchBrowser, recordErrors } from './support/browser.ts';
import { importDataset, listedRun, startedRun, storedRecords } from './support/datasets.ts';
import { configureProvider, openProviderSettings } from './support/llm.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { oracleHandler } from '../helpers/judge-oracle.ts';
import { AnswerGate } from '../helpers/answer-gate.ts';

const ROWS = 16;
const SHOTS = join(process.cwd(), '.tmp', 'views');
const KEY = 'sk-e2e-run-status-key';

interface StoredRunRecord {
  id: string;
  status: string;
  counts: { total: number; done: number; failed: number };
  message?: string;
}

function writeRows(dir: string, name: string): string {
  const file = join(dir, `${name}.jsonl`);
  const lines = Array.from({ length: ROWS }, (_, i) =>
    JSON.stringify({
      source: `Report ${i + 1}. The council of Arden closed the old bridge on Monday. Repairs would cost ${i + 2} million euros. A ferry will carry commuters from 2027.`,
      summary: `Report ${i + 1}: Arden closed its bridge, and repairs cost ${i + 2} million euros.`,
    }),
  );
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** Opens run setup for the data set, ticks vagueness alone and starts; returns the run id. */
async function startVaguenessRun(page: Page, dataset: string): Promise<string> {
  await page
    .getByTestId('dataset-item')
    .filter({ hasText: dataset })
    .getByTestId('run-configure')
    .click();
  const setup = page.getByTestId('run-setup');
  await setup.waitFor();
  const boxes = setup.locator('[data-testid^="run-metric-"]');
  for (let i = 0; i < (await boxes.count()); i++) {
    const box = boxes.nth(i);
    const id = ((await box.getAttribute('data-testid')) ?? '').replace('run-metric-', '');
    await box.setChecked(id === 'vagueness');
  }
  return startedRun(page, () => page.getByTestId('run-start').click());
}

async function storedRun(page: Page, runId: string): Promise<StoredRunRecord | undefined> {
  return (await storedRecords<StoredRunRecord>(page, 'runs')).find((r) => r.id === runId);
}

async function storedResultRows(page: Page, runId: string): Promise<number[]> {
  const results = await storedRecords<{ runId: string; row: number }>(page, 'run-results');
  return results.filter((r) => r.runId === runId).map((r) => r.row);
}

/** The run's status, driver and done count as its list item shows them. */
/** How long "nothing happens" is watched for: see the full-disk test. */
const NOTHING_HAPPENS_MS = 2_500;

/** A Web Lock naming the run is held, by any tab or worker of the origin. */
function runLocked(page: Page, runId: string): Promise<boolean> {
  return page.evaluate(
    async (id) =>
      ((await navigator.locks.query()).held ?? []).some((lock) => (lock.name ?? '').includes(id)),
    runId,
  );
}

async function shown(page: Page, runId: string) {
  const item = listedRun(page, runId);
  if ((await item.count()) === 0) return undefined;
  return {
    status: await item.getAttribute('data-status'),
    state: await item.getAttribute('data-state'),
    driver: await item.getAttribute('data-driver'),
    done: Number(await item.getAttribute('data-done')),
  };
}

/** Starts keeping, in the page, each change of the status its list item shows for `runId`. */
async function recordShownStatuses(page: Page, runId: string): Promise<void> {
  await page.evaluate((id) => {
    const seen: string[] = [];
    (globalThis as { shownStatuses?: string[] }).shownStatuses = seen;
    const record = () => {
      const status = document
        .querySelector(`[data-testid="run-item"][data-run-id="${id}"]`)
        ?.getAttribute('data-status');
      if (status && seen.at(-1) !== status) seen.push(status);
    };
    new MutationObserver(record).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-status'],
    });
    record();
  }, runId);
}

/** The statuses kept by `recordShownStatuses`, in the order they were shown. */
function shownStatuses(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as { shownStatuses?: string[] }).shownStatuses ?? []);
}

/** Writes 1 KB into a scratch database of the origin: 'ok', or 'full' when the quota refuses. */
function probeWrite(): Promise<'ok' | 'full' | string> {
  return new Promise((resolve) => {
    const open = indexedDB.open('sumlens-e2e-probe', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('probe');
    open.onerror = () => resolve(String(open.error?.name));
    open.onsuccess = () => {
      const tx = open.result.transaction('probe', 'readwrite');
      tx.objectStore('probe').put('x'.repeat(1024), Math.random());
      tx.oncomplete = () => {
        open.result.close();
        resolve('ok');
      };
      tx.onabort = () => {
        open.result.close();
        resolve(tx.error?.name === 'QuotaExceededError' ? 'full' : String(tx.error?.name));
      };
    };
  });
}

/** The run's list item at both widths and in both schemes, under .tmp/views/ (to look at). */
async function shootItem(page: Page, runId: string, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await listedRun(page, runId).screenshot({
        path: join(SHOTS, `${name}-${width}-${scheme}.png`),
      });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

async function openTab(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors = recordErrors(page);
  await page.goto(appOrigin());
  await page.getByTestId('dataset-file').waitFor();
  return { page, errors };
}

async function setKey(page: Page, fake: FakeLlm, keep: 'memory' | 'device'): Promise<void> {
  await configureProvider(page, fake, { kind: 'openai', model: 'gpt-4o-mini' });
  await page.getByTestId('provider-key-persistence').selectOption(keep);
  await page.getByTestId('provider-key').fill(KEY);
  await page.getByTestId('provider-key-save').click();
}

describe('run status on screen equals the stored one', () => {
  let browser: Browser;
  let fake: FakeLlm;
  let context: BrowserContext | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-run-status-'));

  /**
   * A fresh browser context whose first tab starts a vagueness run of a new data set, its judge's
   * answers behind a gate that lets `answers` through; waits until `rowsDone` rows are stored.
   */
  async function gatedRun(o: {
    name: string;
    keep: 'memory' | 'device';
    answers: number;
    rowsDone: number;
  }) {
    const gate = new AnswerGate(oracleHandler(4));
    fake.setHandler(gate.handler);
    gate.allow(o.answers);
    context = await browser.newContext();
    const a = await openTab(context);
    await setKey(a.page, fake, o.keep);
    await importDataset(a.page, writeRows(dir, o.name));
    const runId = await startVaguenessRun(a.page, o.name);
    await expect
      .poll(async () => (await storedRun(a.page, runId))?.counts.done ?? 0, { timeout: 60_000 })
      .toBeGreaterThanOrEqual(o.rowsDone);
    return { gate, a, runId, context };
  }

  beforeAll(async () => {
    fake = await startFakeLlm({ keepAlive: false });
    browser = await launchBrowser();
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
    fake.reset();
  });

  afterAll(async () => {
    await browser?.close();
    await fake?.close();
  });

  it('a second tab follows the counters, and takes the run over when the first tab closes', async () => {
    const { gate, a, runId } = await gatedRun({
      name: 'tabs-key',
      keep: 'device',
      answers: 2,
      rowsDone: 0,
    });

    const b = await openTab(a.page.context());
    // B shows the run as driven elsewhere, and its counter moves with A's rows.
    await expect
      .poll(async () => (await shown(b.page, runId))?.driver, { timeout: 30_000 })
      .toBe('other-tab');
    await shootItem(b.page, runId, 'run-item-other-tab');
    const first = (await shown(b.page, runId))!.done;
    expect(first).toBeLessThan(ROWS);
    gate.allow(3);
    await expect
      .poll(async () => (await shown(b.page, runId))!.done, { timeout: 60_000 })
      .toBeGreaterThan(first);
    expect((await shown(b.page, runId))!.status).toBe('running');

    await a.page.close();
    gate.allow(Infinity);
    // B finds the run held by nobody, takes it over (the key is on the device) and finishes it.
    await expect
      .poll(async () => (await shown(b.page, runId))?.driver, { timeout: 30_000 })
      .toBe('this-tab');
    await expect
      .poll(async () => (await shown(b.page, runId))?.status, { timeout: 120_000 })
      .toBe('done');
    const stored = await storedRun(b.page, runId);
    expect(stored?.status).toBe('done');
    expect(stored?.counts).toEqual({ total: ROWS, done: ROWS, failed: 0 });
    const rows = await storedResultRows(b.page, runId);
    expect(rows.length).toBe(ROWS);
    expect(new Set(rows).size).toBe(ROWS);
    expect(b.errors).toEqual([]);
  }, 300_000);

  it('without the key, the tab that takes the run over pauses it and says why', async () => {
    const { a, runId } = await gatedRun({
      name: 'tabs-nokey',
      keep: 'memory',
      answers: 2,
      rowsDone: 1,
    });
    const b = await openTab(a.page.context());
    await expect
      .poll(async () => (await shown(b.page, runId))?.driver, { timeout: 30_000 })
      .toBe('other-tab');
    await a.page.close();
    await expect
      .poll(async () => (await shown(b.page, runId))?.status, { timeout: 30_000 })
      .toBe('paused');
    expect(await listedRun(b.page, runId).getByTestId('run-message').innerText()).toMatch(
      /paused.*key/isu,
    );
    expect((await storedRun(b.page, runId))?.status).toBe('paused');
  }, 240_000);

  it('a disk that fills mid-run pauses the run on screen and for the next load, which buys nothing', async () => {
    const { gate, a, runId } = await gatedRun({
      name: 'full-disk',
      keep: 'device',
      answers: 3,
      rowsDone: 2,
    });
    const cdp = await a.page.context().newCDPSession(a.page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: appOrigin(), quotaSize: 1 });
    // Chromium checks IndexedDB writes against a cached figure of the space left, refreshed every
    // few seconds: wait until a write of the origin's actually fails before the run goes on.
    await expect.poll(() => a.page.evaluate(probeWrite), { timeout: 30_000 }).toBe('full');
    gate.allow(Infinity);
    await expect
      .poll(async () => (await shown(a.page, runId))?.status, { timeout: 60_000 })
      .toBe('paused');
    expect(await listedRun(a.page, runId).getByTestId('run-message').innerText()).toMatch(/full/iu);
    await shootItem(a.page, runId, 'run-item-disk-full');
    const doneBefore = (await storedRun(a.page, runId))!.counts.done;
    expect(doneBefore).toBeLessThan(ROWS);

    // A reload reads the run paused (its status could not be written into IndexedDB) and leaves
    // it so: nothing resumes it, nothing is sent.
    await a.page.reload();
    await listedRun(a.page, runId).waitFor();
    const sent = fake.requests.length;
    expect((await shown(a.page, runId))?.status).toBe('paused');
    // Nothing resumes it. An absence can only be seen over a span of time: the one timed wait of
    // this file, several times what the load takes to resume a run it reads as running.
    await a.page.waitForTimeout(NOTHING_HAPPENS_MS);
    expect(fake.requests.length).toBe(sent);
    expect(await runLocked(a.page, runId)).toBe(false);
    expect((await shown(a.page, runId))?.status).toBe('paused');

    // Room again: Resume finishes it, every row stored once.
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: appOrigin() });
    await listedRun(a.page, runId).getByTestId('run-resume').click();
    await expect
      .poll(async () => (await shown(a.page, runId))?.status, { timeout: 120_000 })
      .toBe('done');
    const rows = await storedResultRows(a.page, runId);
    expect(rows.length).toBe(ROWS);
    expect(new Set(rows).size).toBe(ROWS);
    expect((await storedRun(a.page, runId))?.status).toBe('done');
  }, 300_000);

  it('site data cleared mid-run stops the run and says so in plain words', async () => {
    const { gate, a, runId } = await gatedRun({
      name: 'cleared',
      keep: 'memory',
      answers: 2,
      rowsDone: 1,
    });
    const cdp = await a.page.context().newCDPSession(a.page);
    await cdp.send('Storage.clearDataForOrigin', { origin: appOrigin(), storageTypes: 'all' });
    gate.allow(Infinity);
    await expect
      .poll(
        async () =>
          a.page
            .getByTestId('datasets-error')
            .innerText()
            .catch(() => ''),
        {
          timeout: 30_000,
        },
      )
      .toMatch(/stored data was cleared/u);
    await expect
      .poll(async () => a.page.getByTestId('run-item').count(), { timeout: 10_000 })
      .toBe(0);
    expect(await a.page.getByTestId('datasets-error').innerText()).not.toMatch(/IDBDatabase/u);
    const sent = fake.requests.length;
    // The page has let go of the run (no tab or worker holds its lock) and every request it had
    // sent is answered: nothing is left that could send another.
    await expect.poll(() => runLocked(a.page, runId)).toBe(false);
    await expect.poll(() => fake.inFlight).toBe(0);
    // At most the requests that were in flight when the data went.
    expect(fake.requests.length - sent).toBeLessThanOrEqual(4);
  }, 240_000);

  it('after an offline spell the list shows the run going again, its request counter moving', async () => {
    const { gate, a, runId } = await gatedRun({
      name: 'offline',
      keep: 'memory',
      answers: 2,
      rowsDone: 1,
    });
    await a.page.context().setOffline(true);
    await expect
      .poll(async () => (await shown(a.page, runId))?.status, { timeout: 30_000 })
      .toBe('paused');
    const usage = listedRun(a.page, runId).getByTestId('run-judge-usage');
    const callsOffline = Number(await usage.getAttribute('data-http-calls'));
    // Every status the item shows from here on, as the page draws it: the run may go from running
    // to done between two polls of a busy machine, and 'running' must have been shown all the same.
    await recordShownStatuses(a.page, runId);
    await a.page.context().setOffline(false);
    gate.allow(Infinity);
    await expect.poll(() => shownStatuses(a.page), { timeout: 30_000 }).toContain('running');
    await expect
      .poll(async () => Number(await usage.getAttribute('data-http-calls')), { timeout: 60_000 })
      .toBeGreaterThan(callsOffline);
    await expect
      .poll(async () => (await shown(a.page, runId))?.status, { timeout: 120_000 })
      .toBe('done');
    expect((await storedRun(a.page, runId))?.status).toBe('done');
    // Shown paused first, then running, and done last.
    const seen = await shownStatuses(a.page);
    expect(seen[0]).toBe('paused');
    expect(seen.indexOf('running')).toBeGreaterThan(0);
    expect(seen.at(-1)).toBe('done');
  }, 300_000);

  it('a key moved from the device to memory leaves localStorage at once and is gone after a reload', async () => {
    context = await browser.newContext();
    const a = await openTab(context);
    await setKey(a.page, fake, 'device');
    const stored = () =>
      a.page.evaluate(() =>
        Object.keys(localStorage)
          .filter((k) => k.startsWith('sumlens.key.'))
          .map((k) => localStorage.getItem(k)),
      );
    expect(await stored()).toEqual([KEY]);
    await a.page.getByTestId('provider-key-persistence').selectOption('memory');
    expect(await stored()).toEqual([]);
    expect(await a.page.getByTestId('provider-key-state').innerText()).toMatch(/memory/iu);
    await a.page.reload();
    await openProviderSettings(a.page);
    expect(await a.page.getByTestId('provider-key-state').innerText()).toMatch(/No key/iu);
    expect(await stored()).toEqual([]);
  }, 60_000);
});
