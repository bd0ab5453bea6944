/**
 * USE-lite as the app's default sentence encoder: a case scored with the default settings gets
 * local coherence from "use-lite int8 · …", its files (the int8 model, never the 28 MB of fp32
 * shards) fetched from the app's own origin only. A corrupt int8 file costs the int8 model only:
 * the exact fp32 model scores and the note names the file. When the fp32 files are missing too,
 * coherence is scored with GloVe and its note names the file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import {
  appOrigin,
  cardState,
  openApp,
  openCard,
  waitForScores,
  type App,
} from './support/browser.ts';
import { latestResults } from './support/stored-results.ts';

const SOURCE =
  'The council approved a new park in Leeds on Monday. It will open in 2027. Residents had asked for green space for years.';
const SUMMARY =
  'Leeds council approved a new park on Monday. The park will open in 2027. Residents wanted more green space.';

async function scoreDefaultCase(app: App): Promise<void> {
  const { page } = app;
  await page.getByTestId('source-input').fill(SOURCE);
  await page.getByTestId('summary-input').fill(SUMMARY);
  await page.getByTestId('score-button').click();
  await waitForScores(page, 240_000);
}

describe('USE-lite, the default embedding backend', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('scores coherence with USE-lite, its files from the app itself', async () => {
    app = await openApp();
    await scoreDefaultCase(app);
    const coherence = await cardState(app.page, 'coherence');
    expect(coherence.status).toBe('ok');
    expect(coherence.backend).toMatch(/^use-lite int8 · (WASM|WebGPU)/u);
    const modelRequests = app.requests.urls.filter((u) => u.includes('/models/use-lite/'));
    expect(
      modelRequests.some((u) => u.endsWith('/models/use-lite/use-lite-int8-weights.bin')),
    ).toBe(true);
    expect(modelRequests.filter((u) => /group1-shard|model\.json$/u.test(u))).toEqual([]);
    // GloVe is the last fallback: not fetched while int8 works.
    expect(app.requests.urls.filter((u) => /glove-100d/u.test(u))).toEqual([]);
    expect(app.requests.urls.filter((u) => !u.startsWith(appOrigin()))).toEqual([]);

    // The score mixes in the order's agreement with each sentence's usual place; the detail
    // lists those places, one per sentence of this summary.
    await openCard(app.page, 'coherence');
    const card = app.page.getByTestId('metric-coherence');
    expect(await card.getByTestId('coherence-main').innerText()).toMatch(
      /^Score \d\.\d{3}: mean P\(next sentence follows\) \d\.\d{3} .* r = -?\d\.\d{2}/su,
    );
    await card.getByRole('button', { name: 'Usual places' }).click();
    const places = await card.getByTestId('coherence-place').allInnerTexts();
    expect(places).toHaveLength(3);
    for (const row of places) expect(row).toMatch(/-?\d\.\d{2}$/u);
    mkdirSync('.tmp', { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      await app.page.emulateMedia({ colorScheme: scheme });
      await card.screenshot({ path: `.tmp/coherence-places-${scheme}.png` });
    }
  }, 300_000);

  it('falls back to the exact fp32 model when an int8 file is corrupt, and the note names it', async () => {
    app = await openApp({ visit: false, context: { serviceWorkers: 'block' } });
    // Same size, one byte changed: only the manifest's SHA-256 can tell.
    await app.context.route('**/models/use-lite/use-lite-int8-weights.bin', async (route) => {
      const response = await route.fetch();
      const body = Buffer.from(await response.body());
      body[1000] ^= 0xff;
      await route.fulfill({ response, body });
    });
    await app.page.goto(appOrigin());
    await scoreDefaultCase(app);
    const coherence = await cardState(app.page, 'coherence');
    expect(coherence.status).toBe('ok');
    expect(coherence.backend).toMatch(/^use-lite · (WASM|WebGPU)/u);
    await expect
      .poll(async () => (await latestResults(app!.page))['coherence']?.notes?.join(' ') ?? '')
      .toMatch(
        /The int8 encoder could not be used \(use-lite-int8-weights\.bin is corrupt: .*\): using the exact fp32 model\./u,
      );
  }, 300_000);

  it('falls back to GloVe when the int8 model and an fp32 shard are missing, and the note names the shard', async () => {
    // No service worker: requests it makes do not pass through the page's routes.
    app = await openApp({ visit: false, context: { serviceWorkers: 'block' } });
    for (const file of ['int8.onnx', 'group1-shard3of7']) {
      await app.context.route(`**/models/use-lite/${file}`, (route) =>
        route.fulfill({ status: 404, body: 'not found' }),
      );
    }
    await app.page.goto(appOrigin());
    await scoreDefaultCase(app);
    const coherence = await cardState(app.page, 'coherence');
    expect(coherence.status).toBe('ok');
    expect(coherence.backend).toMatch(/^glove/u);
    expect(app.requests.urls.filter((u) => /glove-100d/u.test(u))).toHaveLength(1);
    await expect
      .poll(async () => (await latestResults(app!.page))['coherence']?.notes?.join(' ') ?? '')
      .toMatch(
        /USE-lite could not be used \(group1-shard3of7: .*HTTP 404.*\); scored with the built-in GloVe vectors instead\./u,
      );
  }, 300_000);
});
