/**
 * Offline after the first visit, and a light one: the service worker precaches the app shell only;
 * the default encoder (USE-lite int8 and ONNX Runtime's plain wasm, sent compressed), jieba and
 * any model are cached on first use (by the workers themselves on a first visit, before the
 * service worker controls them), and GloVe, the fallback, is not fetched at all. "Works offline"
 * shows once the default encoder is cached. Load and score online (English and Chinese), go
 * offline, reload, and the page is still cross-origin isolated and scores the same cases the same
 * way, with the same models.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import {
  appOrigin,
  OFFLINE_METRIC_IDS,
  cardState,
  launchBrowser,
  openApp,
  waitForScores,
  type App,
} from './support/browser.ts';

const SOURCE = `The city council of Marlow Bay voted on Tuesday to close the old harbour bridge to cars from March.
Engineers found cracks in two of its steel supports last autumn, and repairs are expected to take eighteen months.
Buses and bicycles will still be allowed across, and a free ferry will run every twenty minutes during the works.
Local shop owners warned that fewer visitors would reach the harbour market.
The council promised a review of the ferry service after six weeks.`;

const SUMMARY = `Marlow Bay will close its harbour bridge to cars from March after engineers found cracks in its supports. Repairs should take eighteen months. Buses, bicycles and a free ferry will keep people moving, though shop owners fear fewer visitors.`;

const REFERENCE = `The harbour bridge in Marlow Bay closes to cars in March for eighteen months of repairs; a free ferry will run meanwhile.`;

/** A stand-in self-hosted model file, served by `vite preview` from dist/models/ for this test. */
const PROBE_DIR = resolve(import.meta.dirname, '../../dist/models/sumlens-e2e-probe');
const PROBE_PATH = '/models/sumlens-e2e-probe/config.json';
const PROBE_BODY = JSON.stringify({ model_type: 'bert', probe: 'sumlens e2e' });

const SW_FILE = resolve(import.meta.dirname, '../../dist/sw.js');

type Card = Awaited<ReturnType<typeof cardState>>;

async function scoreCase(page: Page): Promise<Record<string, Card>> {
  await page.getByTestId('source-input').fill(SOURCE);
  await page.getByTestId('summary-input').fill(SUMMARY);
  await page.getByTestId('reference-input').fill(REFERENCE);
  await page.getByTestId('score-button').click();
  await waitForScores(page);
  const cards: Record<string, Card> = {};
  for (const id of OFFLINE_METRIC_IDS) cards[id] = await cardState(page, id);
  return cards;
}

/**
 * Waits until every worker has loaded its backend (the progress rows clear), so that both runs
 * score with the model ready: USE-lite still starting embeds in other batches, which moves the
 * last digits of its scores.
 */
async function modelsLoaded(page: Page): Promise<void> {
  await expect.poll(() => page.getByTestId('model-progress').count(), { timeout: 120_000 }).toBe(0);
}

async function scoreChinese(page: Page): Promise<Card> {
  await page.getByTestId('source-input').fill('浙江大学是一所位于杭州的大学。它成立于1897年。');
  await page.getByTestId('summary-input').fill('浙江大学位于杭州。它成立于1897年。');
  await page.getByTestId('reference-input').fill('浙江大学在杭州，成立于1897年。');
  await page.getByTestId('score-button').click();
  await waitForScores(page);
  return cardState(page, 'token-f1');
}

/** Paths of the entries in workbox's precache (their keys carry a `__WB_REVISION__` query). */
async function precachedPaths(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const names = (await caches.keys()).filter((name) => name.startsWith('workbox-precache'));
    const paths: string[] = [];
    for (const name of names) {
      for (const request of await (await caches.open(name)).keys()) {
        paths.push(new URL(request.url).pathname);
      }
    }
    return paths;
  });
}

async function fetchStatus(page: Page, path: string): Promise<string> {
  return page.evaluate(async (url) => {
    try {
      const response = await fetch(url);
      return `${response.status} ${await response.text()}`;
    } catch (error) {
      return `failed: ${(error as Error).message}`;
    }
  }, path);
}

describe('offline after the first visit (service worker)', () => {
  let app: App;
  let page: Page;
  const failed: { url: string; error: string; offline: boolean }[] = [];
  let offline = false;
  let online: Record<string, Card>;
  let onlineChinese: Card;

  beforeAll(async () => {
    mkdirSync(PROBE_DIR, { recursive: true });
    writeFileSync(resolve(PROBE_DIR, 'config.json'), PROBE_BODY);
    // Not visited yet: the first test checks what the first visit installs.
    app = await openApp({ visit: false });
    page = app.page;
    app.context.on('requestfailed', (request: Request) =>
      failed.push({ url: request.url(), error: request.failure()?.errorText ?? '?', offline }),
    );
  });

  afterAll(async () => {
    await app?.close();
    rmSync(PROBE_DIR, { recursive: true, force: true });
  });

  it('installs on the first visit: precaches the app shell only, then controls the page', async () => {
    await page.goto(appOrigin());
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    // `ready` resolves once a worker is active, i.e. once its install (the precache) succeeded.
    const installed = await page.evaluate(() =>
      Promise.race([
        navigator.serviceWorker.ready.then(() => 'active'),
        new Promise<string>((done) => setTimeout(() => done('no active service worker'), 60_000)),
      ]),
    );
    expect(installed).toBe('active');
    // clientsClaim: the first install takes this page without a reload.
    await expect
      .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null))
      .toBe(true);

    const paths = await precachedPaths(page);
    for (const path of [
      '/index.html',
      '/manifest.webmanifest',
      '/vendor/ort/ort-wasm-simd-threaded.mjs',
    ]) {
      expect(paths, path).toContain(path);
    }
    // No runtime, no model and no vectors are precached: they are cached when first used.
    expect(
      paths.filter((p) => p.endsWith('.wasm') || p.endsWith('.bin') || p.startsWith('/models/')),
    ).toEqual([]);
  });

  it('says "Works offline" once the default encoder is cached, each file downloaded once, and never GloVe or the runtimes the defaults do not use', async () => {
    // The default encoder (USE-lite int8 on ONNX Runtime's plain WASM build) loads at start, from
    // workers that started before the service worker: they cache what they fetch themselves, and
    // the page says "Works offline" only when the files are there.
    await expect
      .poll(() => page.getByTestId('offline-ready').count(), { timeout: 120_000 })
      .toBe(1);
    const cached = async (name: string) =>
      page.evaluate(
        async (cacheName) =>
          (await (await caches.open(cacheName)).keys()).map((r) => new URL(r.url).pathname),
        name,
      );
    expect(await cached('sumlens-models')).toEqual(
      expect.arrayContaining(
        ['int8.json', 'int8.onnx', 'use-lite-int8-weights.bin', 'vocab.json'].map(
          (file) => `/models/use-lite/${file}`,
        ),
      ),
    );
    expect(await cached('sumlens-runtimes')).toEqual(
      expect.arrayContaining(['/vendor/ort/ort-wasm-simd-threaded.wasm']),
    );
    const asked = app.requests.urls.map((url) => new URL(url).pathname);
    for (const unused of [
      '/vendor/ort/ort-wasm-simd-threaded.asyncify.wasm',
      '/vendor/ort/ort-wasm-simd-threaded.jsep.wasm',
      '/vendor/jieba/jieba_rs_wasm_bg.wasm',
      '/embeddings/glove-100d.bin',
      // The exact fp32 model: only when chosen, or when int8 fails.
      '/models/use-lite/group1-shard1of7',
    ]) {
      expect(asked, unused).not.toContain(unused);
    }
    for (const file of [
      '/models/use-lite/use-lite-int8-weights.bin',
      '/vendor/ort/ort-wasm-simd-threaded.wasm',
    ]) {
      expect(
        asked.filter((path) => path === file),
        file,
      ).toHaveLength(1);
    }
    // GloVe is the fallback: with the default encoder working, a first visit never asks for it.
    expect(asked.filter((path) => /glove-100d/u.test(path))).toEqual([]);
    // The ORT wasm came compressed, and is stored whole (decoded), with the headers it was
    // served with.
    const ort = await page.evaluate(async () => {
      const response = await (
        await caches.open('sumlens-runtimes')
      ).match('/vendor/ort/ort-wasm-simd-threaded.wasm', { ignoreVary: true });
      return response
        ? {
            bytes: (await response.arrayBuffer()).byteLength,
            type: response.headers.get('content-type'),
            encoding: response.headers.get('content-encoding'),
            vary: response.headers.get('vary'),
            coep: response.headers.get('cross-origin-embedder-policy'),
          }
        : null;
    });
    expect(ort?.bytes).toBeGreaterThan(10_000_000);
    expect(ort?.type).toMatch(/application\/wasm/u);
    expect(ort?.encoding).toBe('br');
    expect(ort?.vary).toMatch(/Accept-Encoding/iu);
    expect(ort?.coep).toBe('require-corp');
  });

  it('scores a case online, and a Chinese one (jieba, cached on this first use)', async () => {
    await modelsLoaded(page);
    online = await scoreCase(page);
    for (const id of OFFLINE_METRIC_IDS) expect(online[id].status, id).toBe('ok');
    expect(online['coherence']?.backend).toMatch(/^use-lite int8/iu);
    onlineChinese = await scoreChinese(page);
    expect(onlineChinese.backend).toMatch(/jieba/u);
    expect(onlineChinese.backend).not.toMatch(/unavailable/u);
  });

  it('caches a self-hosted model file on first use, and only a real one', async () => {
    expect(await fetchStatus(page, PROBE_PATH)).toBe(`200 ${PROBE_BODY}`);
    // `vite preview` (like many static hosts) answers a missing file with index.html and 200.
    const missing = await fetchStatus(page, '/models/sumlens-e2e-probe/missing.json');
    expect(missing).toMatch(/^200 <!doctype html>/iu);
    const cached = await page.evaluate(async () => {
      const cache = await caches.open('sumlens-models');
      return (await cache.keys()).map((r) => new URL(r.url).pathname);
    });
    // Beside USE-lite's files (cached at start), the probe's real file and not the fallback page.
    expect(cached.filter((path) => path.startsWith('/models/sumlens-e2e-probe/'))).toEqual([
      '/models/sumlens-e2e-probe/config.json',
    ]);
  });

  it('reloads offline from the cache, still cross-origin isolated, and scores the same', async () => {
    offline = true;
    await app.context.setOffline(true);
    await page.reload();
    expect(await page.evaluate(() => navigator.onLine)).toBe(false);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    await expect.poll(() => page.getByTestId('offline-ready').count()).toBe(1);

    await modelsLoaded(page);
    const again = await scoreCase(page);
    for (const id of OFFLINE_METRIC_IDS) {
      expect(['ok', 'n/a'], `${id} status offline`).toContain(again[id].status);
    }
    expect(again).toEqual(online);
    // The model file comes from the models cache.
    expect(await fetchStatus(page, PROBE_PATH)).toBe(`200 ${PROBE_BODY}`);
    // USE-lite, ORT and jieba were used once online: they work offline, from the runtime caches.
    expect(again['coherence']?.backend).toMatch(/^use-lite int8/iu);
    expect(await scoreChinese(page)).toEqual(onlineChinese);

    const appFailures = failed.filter((f) => f.offline && new URL(f.url).origin === appOrigin());
    expect(appFailures).toEqual([]);
    expect(app.errors).toEqual([]);
  });

  it('is really offline: a model file that is not cached fails', async () => {
    const uncached = await fetchStatus(page, '/models/sumlens-e2e-probe/tokenizer.json');
    expect(uncached).toMatch(/^failed/u);
    await app.context.setOffline(false);
    offline = false;
  });

  it('sent no request outside the page origin', () => {
    expect(app.requests.foreign()).toEqual([]);
  });
});

describe('a new version waits for the user (service worker update)', () => {
  let browser: Browser;
  let original: string | undefined;

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (original !== undefined) writeFileSync(SW_FILE, original);
  });

  async function openControlled(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    await page.goto(appOrigin());
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await expect
      .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null))
      .toBe(true);
    // Survives until the page reloads.
    await page.evaluate(() => {
      const w = window as unknown as { notReloaded: boolean; controllerChanged: boolean };
      w.notReloaded = true;
      navigator.serviceWorker.addEventListener('controllerchange', () => {
        w.controllerChanged = true;
      });
    });
    return page;
  }

  const notReloaded = (page: Page) =>
    page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded === true);

  /** The update is installed and still waiting: nothing has activated it. */
  const newVersionWaiting = (page: Page) =>
    page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      return registration?.waiting?.state === 'installed';
    });

  /** This page saw its controller change since it opened (false after a reload). */
  const controllerChanged = (page: Page) =>
    page.evaluate(
      () => (window as unknown as { controllerChanged?: boolean }).controllerChanged === true,
    );

  it('announces the update in every tab, reloads only the tab that asks, keeps the text', async () => {
    const context = await browser.newContext();
    const first = await openControlled(context);
    const second = await openControlled(context);
    await first.getByTestId('summary-input').fill('Half-written summary in the first tab.');
    await second.getByTestId('summary-input').fill('Half-written summary in the second tab.');

    // A new release: any byte of sw.js that changes makes the browser install it beside the old one.
    original = readFileSync(SW_FILE, 'utf8');
    writeFileSync(SW_FILE, `${original}\n// sumlens e2e: a new release\n`);
    await first.evaluate(async () => {
      await (await navigator.serviceWorker.getRegistration())?.update();
    });

    for (const page of [first, second]) {
      await expect.poll(() => page.getByTestId('update-notice').count()).toBe(1);
      // Nothing took the new worker out of waiting: no controller change, the only thing that
      // would reload a tab by itself (service-worker.svelte.ts).
      expect(await newVersionWaiting(page)).toBe(true);
      expect(await notReloaded(page)).toBe(true);
    }

    await first.getByTestId('update-notice').getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => notReloaded(first).catch(() => true)).toBe(false);
    await first.waitForLoadState('load');
    await expect
      .poll(() => first.getByTestId('summary-input').inputValue())
      .toBe('Half-written summary in the first tab.');
    expect(await first.getByTestId('update-notice').count()).toBe(0);
    expect(
      await first.evaluate(async () => {
        const registration = await navigator.serviceWorker.getRegistration();
        return registration?.waiting === null && registration.active !== null;
      }),
    ).toBe(true);

    // The other tab is now served by the new worker (its controller changed: the event a reload
    // would follow) but was not reloaded under its user.
    await expect.poll(() => controllerChanged(second)).toBe(true);
    expect(await notReloaded(second)).toBe(true);
    expect(await second.getByTestId('summary-input').inputValue()).toBe(
      'Half-written summary in the second tab.',
    );
    expect(await second.getByTestId('update-notice').count()).toBe(1);
    // Its Reload button still works: nothing is waiting any more, it reloads into the new version.
    await second.getByTestId('update-notice').getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => notReloaded(second).catch(() => true)).toBe(false);
    await second.waitForLoadState('load');
    await expect
      .poll(() => second.getByTestId('summary-input').inputValue())
      .toBe('Half-written summary in the second tab.');
    expect(await second.getByTestId('update-notice').count()).toBe(0);
    await context.close();
  });
});
