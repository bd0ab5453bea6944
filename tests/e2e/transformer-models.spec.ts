/**
 * Transformer models in the page's workers, end to end: the generated tiny models self-hosted
 * under /models/ (copied into the build by global-setup), picked in Settings, run by
 * transformers.js on WASM and on WebGPU (Chromium's software adapter here), with backend labels,
 * no request off the page's origin, a fallback that keeps the case when a model is missing, and
 * the hub path (consent, download from a loopback mirror, browser cache, delete).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { WEBGPU_ARGS, cardState, openApp, waitForScores, type App } from './support/browser.ts';
import { startFakeHub } from '../helpers/fake-hub.ts';
import type { FakeHub } from '../helpers/fake-hub.ts';
import { repoRoot } from '../helpers/shared.ts';
import { latestResults, type StoredResult } from './support/stored-results.ts';

const EMBEDDING = 'sumlens-test/tiny-embedding';
const NER = 'sumlens-test/tiny-ner';

const SOURCE =
  'Ada Lovelace met Grace Hopper in London at Acme Corporation to talk about the weather. Storms and rain flooded the region.';
const SUMMARY = [
  'Heavy rain and strong winds caused flooding across the region.',
  'Ada Lovelace met Grace Hopper in London at Acme Corporation.',
  'The forecast warns of a storm with thunder and more rain tomorrow.',
  'Floods closed roads after the storm and the wind brought down trees.',
].join(' ');

/** ORT prints placement warnings through console.error on WebGPU; they are not app errors. */
function appErrors(errors: string[]): string[] {
  return errors.filter(
    (e) =>
      !/onnxruntime|VerifyEachNodeIsAssignedToAnEp|Unable to determine content-length|\[W:onnxruntime/u.test(
        e,
      ),
  );
}

async function openModelSettings(page: Page): Promise<void> {
  const details = page.getByTestId('model-settings');
  if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
}

async function chooseModel(
  page: Page,
  slot: 'embedding' | 'ner',
  model: string,
  device: 'auto' | 'webgpu' | 'wasm',
  dtype = 'fp32',
): Promise<void> {
  await openModelSettings(page);
  await page.getByTestId(`backend-${slot}`).selectOption('transformer');
  const input = page.getByTestId(`model-${slot}`);
  await input.fill(model);
  await input.dispatchEvent('change');
  await page.getByTestId(`device-${slot}`).selectOption(device);
  await page.getByTestId(`dtype-${slot}`).selectOption(dtype);
}

async function scoreCase(page: Page): Promise<void> {
  await page.getByTestId('source-input').fill(SOURCE);
  await page.getByTestId('summary-input').fill(SUMMARY);
  const before = await page.getByTestId('history-item').count();
  await page.getByTestId('score-button').click();
  await waitForScores(page, 120_000);
  await expect.poll(() => page.getByTestId('history-item').count()).toBeGreaterThan(before);
}

describe('transformer models in workers', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({ args: WEBGPU_ARGS });
    page = app.page;
  });

  afterAll(() => app?.close());

  let wasmResults: Record<string, StoredResult>;

  it('scores coherence and density with self-hosted tiny models on WASM, labelled, entities highlighted', async () => {
    await chooseModel(page, 'embedding', EMBEDDING, 'wasm');
    await chooseModel(page, 'ner', NER, 'wasm');
    await scoreCase(page);

    const coherence = await cardState(page, 'coherence');
    const density = await cardState(page, 'entity-density');
    expect(coherence.status).toBe('ok');
    expect(density.status).toBe('ok');
    expect(coherence.backend).toBe(`transformers.js ${EMBEDDING} · fp32 · WASM`);
    expect(density.backend).toBe(`transformers.js ${NER} · fp32 · WASM`);

    wasmResults = await latestResults(page);
    const entities = wasmResults['entity-density']!.details.entities!;
    expect(entities.map((e) => [e.text, e.label])).toEqual([
      ['Ada Lovelace', 'PERSON'],
      ['Grace Hopper', 'PERSON'],
      ['London', 'PLACE'],
      ['Acme Corporation', 'ORG'],
    ]);
    for (const e of entities) expect(SUMMARY.slice(e.start, e.end)).toBe(e.text);

    // Highlighted in the card, as text.
    await page.getByTestId('metric-entity-density').locator('summary').click();
    const marks = await page.getByTestId('metric-entity-density').locator('mark').allInnerTexts();
    expect(marks).toEqual(expect.arrayContaining(['Ada Lovelace', 'Acme Corporation']));

    // The history shows the backend beside the score.
    const historyText = await page.getByTestId('history-item').first().innerText();
    expect(historyText).toContain('tiny-embedding fp32 WASM');

    // Nothing left the page's origin: models, ORT files and vectors are all self-hosted.
    expect(app.requests.foreign()).toEqual([]);
    expect(app.requests.urls.some((u) => u.includes(`/models/${EMBEDDING}/onnx/model.onnx`))).toBe(
      true,
    );
    expect(app.requests.urls.some((u) => u.includes('/vendor/ort/'))).toBe(true);
    expect(appErrors(app.errors)).toEqual([]);
  });

  it('runs the same models on WebGPU and agrees with WASM within 1e-4', async () => {
    expect(await page.evaluate(() => 'gpu' in navigator)).toBe(true);
    await chooseModel(page, 'embedding', EMBEDDING, 'webgpu');
    await chooseModel(page, 'ner', NER, 'webgpu');
    await scoreCase(page);

    const gpuResults = await latestResults(page);
    const coherence = gpuResults['coherence']!;
    expect(coherence.backend).toMatch(/· fp32 · WebGPU/u);
    expect(gpuResults['entity-density']!.backend).toMatch(/· fp32 · WebGPU/u);
    // The adapter here is software; the card says so rather than implying GPU speed.
    expect(coherence.notes?.join(' ')).toMatch(/software adapter/u);

    const wasm = wasmResults['coherence']!;
    expect(Math.abs(coherence.score! - wasm.score!)).toBeLessThanOrEqual(1e-4);
    const cosines = (r: StoredResult) =>
      [...(r.details.pairs ?? []), ...(r.details.adjacentPairs ?? [])].map(
        (p) => p.similarity ?? 0,
      );
    expect(cosines(coherence).length).toBeGreaterThan(0);
    cosines(coherence).forEach((c, i) =>
      expect(Math.abs(c - cosines(wasm)[i]!)).toBeLessThanOrEqual(1e-4),
    );
    expect(gpuResults['entity-density']!.details.entities).toEqual(
      wasmResults['entity-density']!.details.entities,
    );
    expect(gpuResults['entity-density']!.raw).toBe(wasmResults['entity-density']!.raw);
    expect(app.requests.foreign()).toEqual([]);
    expect(appErrors(app.errors)).toEqual([]);
  });

  it('remembers the model choice across a reload', async () => {
    await page.reload();
    await openModelSettings(page);
    expect(await page.getByTestId('backend-embedding').inputValue()).toBe('transformer');
    expect(await page.getByTestId('model-ner').inputValue()).toBe(NER);
    expect(await page.getByTestId('device-ner').inputValue()).toBe('webgpu');
  });

  it('falls back to the built-in backend, says which model file failed, and keeps the case', async () => {
    await chooseModel(page, 'embedding', EMBEDDING, 'wasm');
    await chooseModel(page, 'ner', 'sumlens-test/not-hosted-here', 'wasm');
    await scoreCase(page);
    const results = await latestResults(page);
    const density = results['entity-density']!;
    expect(density.backend).toMatch(/^compromise/u);
    const note = density.notes?.join(' ') ?? '';
    expect(note).toMatch(/sumlens-test\/not-hosted-here/u);
    expect(note).toMatch(/config\.json|could not/iu);
    expect(note).toMatch(/built-in compromise/u);
    await expect
      .poll(() => page.getByTestId('metric-entity-density').getByTestId('backend-note').count())
      .toBeGreaterThan(0);
    expect(results['coherence']!.backend).toMatch(/tiny-embedding/u);
    expect(await page.getByTestId('summary-input').inputValue()).toBe(SUMMARY);
  });
  it('scores with the self-hosted models offline, once they have been used (service worker cache)', async () => {
    await chooseModel(page, 'embedding', EMBEDDING, 'wasm');
    await chooseModel(page, 'ner', NER, 'wasm');
    // Workers started after the service worker took control fetch models through it.
    await page.reload();
    await scoreCase(page);
    expect((await latestResults(page))['entity-density']!.backend).toMatch(/tiny-ner/u);

    await app.context.setOffline(true);
    try {
      await page.reload();
      await scoreCase(page);
      const offline = await latestResults(page);
      expect(offline['coherence']!.backend).toBe(`transformers.js ${EMBEDDING} · fp32 · WASM`);
      expect(offline['entity-density']!.backend).toBe(`transformers.js ${NER} · fp32 · WASM`);
      expect(offline['entity-density']!.notes ?? []).not.toContainEqual(
        expect.stringMatching(/could not be used/u),
      );
    } finally {
      await app.context.setOffline(false);
    }
  });
});

describe('models from a hub (a loopback mirror), with consent', () => {
  let app: App;
  let page: Page;
  let hub: FakeHub;

  beforeAll(async () => {
    hub = await startFakeHub({ root: resolve(repoRoot, 'tests/fixtures/models') });
    app = await openApp();
    page = app.page;
  });

  afterAll(async () => {
    await app?.close();
    await hub?.close();
  });

  it('asks before downloading (size shown), downloads once, caches, and deletes the cache', async () => {
    await openModelSettings(page);
    await page.getByTestId('source-hub').check();
    const hubUrl = page.getByTestId('hub-url');
    await hubUrl.fill(hub.url);
    await hubUrl.dispatchEvent('change');
    await chooseModel(page, 'embedding', EMBEDDING, 'wasm', 'q8');
    await chooseModel(page, 'ner', NER, 'wasm', 'q8');

    const consent = page.getByTestId('consent-embedding');
    expect(await consent.innerText()).toMatch(/about \d+(\.\d+)? [kKM]B \(q8\)/u);

    // Without consent nothing is fetched from the hub: the metric falls back and says why.
    await scoreCase(page);
    expect(hub.requests).toEqual([]);
    const refused = await latestResults(page);
    expect(refused['coherence']!.backend).toMatch(/^glove/u);
    expect(refused['coherence']!.notes?.join(' ')).toMatch(/needs your go-ahead/u);

    await page.getByTestId('approve-embedding').click();
    await page.getByTestId('approve-ner').click();
    await scoreCase(page);
    const results = await latestResults(page);
    expect(results['coherence']!.backend).toBe(`transformers.js ${EMBEDDING} · q8 · WASM`);
    expect(results['entity-density']!.backend).toBe(`transformers.js ${NER} · q8 · WASM`);
    expect(hub.requests.some((r) => r.includes(`/${EMBEDDING}/resolve/main/onnx/`))).toBe(true);
    // The only other origin reached is the mirror the user typed.
    expect(app.requests.foreign().every((u) => u.startsWith(hub.url))).toBe(true);

    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect
      .poll(() => page.getByTestId('cached-models').innerText())
      .toMatch(/[kKM]B in \d+ files/u);
    expect(await page.getByTestId('cached-models').innerText()).toContain(EMBEDDING);

    // A fresh worker (reload) loads from the browser cache, not the hub.
    const fetched = hub.requests.length;
    await page.reload();
    await scoreCase(page);
    expect((await latestResults(page))['coherence']!.backend).toMatch(/tiny-embedding · q8/u);
    expect(hub.requests.filter((r) => r.startsWith('GET')).length).toBe(
      hub.requests.slice(0, fetched).filter((r) => r.startsWith('GET')).length,
    );

    await openModelSettings(page);
    await page.getByTestId('delete-cached-models').click();
    await page.getByTestId('confirm-delete-cached-models').click();
    await expect
      .poll(() => page.getByTestId('cached-models').innerText())
      .toMatch(/No model files cached/u);
  });
});
