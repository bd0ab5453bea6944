/**
 * Compare runs end to end: a SummEval-shaped data set with two systems per article, scored with
 * two lexical metrics, then system M1 against M2: the delta, its interval and p-value computed
 * here from the stored rows, sort by regression, only changed, the word diff, the hash surviving
 * a reload, the leaderboard; no sideways page scroll on a phone; the JSON, CSV and Markdown
 * exports read back; and the HTML export opened from file:// with the network blocked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';
import { importDataset } from './support/datasets.ts';
import Papa from 'papaparse';
import { OFFLINE_METRIC_IDS } from '../../src/lib/metrics/registry.ts';
import type { ComparisonExport } from '../../src/lib/datasets/export/compare-json.ts';
import { bootstrapMean } from '../../src/lib/stats/paired-bootstrap.ts';
import { wilcoxon } from '../../src/lib/stats/wilcoxon.ts';

const ARTICLES = [
  'The city council approved a new budget on Tuesday. It raises spending on schools and parks. The mayor called it a fair plan.',
  'A storm knocked out power to thousands of homes overnight. Crews worked until morning to restore it. Schools opened late.',
  'The museum reopened after two years of renovation. Its new wing shows modern art. Entry is free on Sundays.',
  'Scientists found a new species of frog in the rainforest. It is smaller than a coin. The team named it after a local village.',
];
const SUMMARIES: Record<string, string[]> = {
  M1: [
    'The council approved a budget raising school and park spending.',
    'Power went out for thousands after a storm.',
    'The museum reopened with a new wing of modern art.',
    'A tiny new frog species was found in the rainforest.',
  ],
  M2: [
    'The council approved a new budget that raises spending on schools and parks.',
    'A storm knocked out power; crews restored it by morning.',
    'Something reopened somewhere.',
    'A tiny new frog species was found in the rainforest.',
  ],
};

function record(article: number, system: string) {
  return {
    id: `doc-${article}`,
    model_id: system,
    text: ARTICLES[article],
    decoded: SUMMARIES[system][article],
    references: [ARTICLES[article].split('. ')[0] + '.'],
    expert_annotations: [{ coherence: 3, consistency: 4, fluency: 5, relevance: 3 }],
    turker_annotations: [],
  };
}

async function runIds(page: Page): Promise<string[]> {
  return page
    .getByTestId('run-item')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-run-id') ?? ''));
}

describe('compare runs', () => {
  let app: App;
  let page: Page;
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-compare-'));
  const file = join(dir, 'two-systems.jsonl');

  beforeAll(async () => {
    const lines = ARTICLES.flatMap((_, i) => ['M1', 'M2'].map((s) => JSON.stringify(record(i, s))));
    writeFileSync(file, lines.join('\n') + '\n');
    app = await openApp({ context: { acceptDownloads: true } });
    page = app.page;
  });

  afterAll(() => app?.close());

  it('compares two systems and exports a self-contained HTML page', async () => {
    await importDataset(page, file);
    await page.getByTestId('run-configure').last().click();
    await page.getByTestId('run-setup').waitFor();
    for (const id of OFFLINE_METRIC_IDS) {
      if (id !== 'rouge-l' && id !== 'rouge-1')
        await page.getByTestId(`run-metric-${id}`).uncheck();
    }
    const before = new Set(await runIds(page));
    await page.getByTestId('run-start').click();
    let runId: string | undefined;
    await expect
      .poll(async () => (runId = (await runIds(page)).find((id) => id && !before.has(id))))
      .toBeDefined();
    const item = page.locator(`[data-testid="run-item"][data-run-id="${runId}"]`);
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 120_000 }).toBe('done');

    // The stored rows' ROUGE-L, read from the run's CSV export, give the expected statistics.
    await item.getByTestId('run-open').click();
    await page.getByTestId('run-view').waitFor();
    const rougeL = await page.evaluate(async (id) => {
      const open = indexedDB.open('sumlens');
      const db: IDBDatabase = await new Promise((ok, fail) => {
        open.onsuccess = () => ok(open.result);
        open.onerror = () => fail(open.error);
      });
      const read = (store: string): Promise<unknown[]> =>
        new Promise((ok, fail) => {
          const req = db.transaction(store).objectStore(store).getAll();
          req.onsuccess = () => ok(req.result);
          req.onerror = () => fail(req.error);
        });
      const results = (await read('run-results')) as {
        runId: string;
        row: number;
        results: { id: string; score: number }[];
      }[];
      const rows = (await read('dataset-rows')) as { row: number; system: string; group: string }[];
      const out: Record<string, Record<string, number>> = {};
      for (const r of results.filter((x) => x.runId === id)) {
        const row = rows.find((x) => x.row === r.row)!;
        (out[row.group] ??= {})[row.system] = r.results.find((m) => m.id === 'rouge-l')!.score;
      }
      return out;
    }, runId!);
    const groups = Object.keys(rougeL).sort();
    const d = groups.map((g) => rougeL[g].M2 - rougeL[g].M1);
    const interval = bootstrapMean(d, { resamples: 2000, seed: 2024 })!;
    const test = wilcoxon(d)!;

    await item.getByTestId('run-compare').click();
    await page.getByTestId('compare-view').waitFor();
    // A's systems are known once the run was read: compare system M1 with M2.
    await expect
      .poll(() => page.locator('[data-testid="compare-b"] option').count())
      .toBeGreaterThan(2);
    const optionValue = (system: string) =>
      page
        .locator('[data-testid="compare-b"] option', { hasText: `system ${system}` })
        .first()
        .getAttribute('value');
    await page.getByTestId('compare-a').selectOption((await optionValue('M1'))!);
    await page.getByTestId('compare-b').selectOption((await optionValue('M2'))!);
    const metric = page.locator('[data-testid="compare-metric"][data-column="rouge-l"]');
    await metric.waitFor();
    // The view names the runs of the comparison it draws (bench:responsive waits on them).
    const view = page.getByTestId('compare-view');
    expect(await view.getAttribute('data-a')).toBe(runId);
    expect(await view.getAttribute('data-b')).toBe(runId);
    expect(await view.getAttribute('data-loading')).toBe('false');
    expect(Number(await metric.getAttribute('data-diff'))).toBeCloseTo(interval.mean, 12);
    expect(Number(await metric.getAttribute('data-low'))).toBeCloseTo(interval.low, 12);
    expect(Number(await metric.getAttribute('data-high'))).toBeCloseTo(interval.high, 12);
    expect(Number(await metric.getAttribute('data-p'))).toBeCloseTo(test.pValue, 12);
    expect(await metric.getAttribute('data-losses')).toBe(String(d.filter((v) => v < 0).length));
    expect(await metric.innerText()).toMatch(/^ROUGE-L/u);

    await page.getByTestId('compare-row-metric').selectOption('rouge-l');
    await page.getByTestId('compare-sort').selectOption('regression');
    const deltas = () =>
      page
        .getByTestId('compare-row')
        .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-delta'))));
    const sorted = await deltas();
    expect(sorted).toHaveLength(4);
    expect(sorted).toEqual([...sorted].sort((x, y) => x - y));
    expect(await page.getByTestId('compare-row').first().getAttribute('data-key')).toBe('doc-2');
    await page.getByTestId('compare-changed').check();
    await expect.poll(async () => (await deltas()).length).toBe(3);

    // The worst regression's two summaries, with the word diff.
    await page.getByTestId('compare-row').first().click();
    await page.getByTestId('compare-diff').waitFor();
    expect(await page.getByTestId('compare-diff-a').innerText()).toBe(SUMMARIES.M1[2]);
    expect(await page.getByTestId('compare-diff-b').innerText()).toBe(SUMMARIES.M2[2]);
    expect(await page.locator('[data-testid="compare-diff-b"] ins').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="compare-diff-a"] del').count()).toBeGreaterThan(0);

    // The leaderboard of the two systems.
    const boardRows = page.getByTestId('leaderboard-row');
    expect(await boardRows.count()).toBe(2);
    const m1Mean = groups.reduce((s, g) => s + rougeL[g].M1, 0) / groups.length;
    const m1 = page.locator('[data-testid="leaderboard-row"][data-system="M1"]');
    expect(Number(await m1.getAttribute('data-mean'))).toBeCloseTo(m1Mean, 12);

    // A reload returns to the same view: sides, metric, order, filter and pair.
    const hash = await page.evaluate(() => location.hash);
    expect(hash).toMatch(/^#compare\?/u);
    await page.reload();
    await page.locator('[data-testid="compare-metric"][data-column="rouge-l"]').waitFor();
    expect(await page.getByTestId('compare-changed').isChecked()).toBe(true);
    await expect.poll(async () => (await deltas()).length).toBe(3);
    await page.getByTestId('compare-diff').waitFor();

    // Screenshots for a person to look at (SUMLENS_SHOTS, else .tmp/): the viewport and the
    // whole comparison. On a phone the page never scrolls sideways: wide tables scroll in their box.
    const shots = process.env.SUMLENS_SHOTS ?? join(process.cwd(), '.tmp');
    mkdirSync(shots, { recursive: true });
    for (const [w, h] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width: w, height: h });
        await page.emulateMedia({ colorScheme: scheme });
        await view.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(shots, `compare-${w}-${scheme}.png`) });
        await view.screenshot({ path: join(shots, `compare-${w}-${scheme}-whole.png`) });
        // The data-set view above it (with the open run) shares its styles.
        await page
          .getByTestId('datasets')
          .screenshot({ path: join(shots, `datasets-${w}-${scheme}-whole.png`) });
        if (w === 390) {
          const sideways = await page.evaluate(
            () => document.scrollingElement!.scrollWidth - window.innerWidth,
          );
          expect(sideways).toBeLessThanOrEqual(0);
          const box = (await view.boundingBox())!;
          expect(box.x + box.width).toBeLessThanOrEqual(390);
        }
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });

    // Each export as the browser downloads it.
    const exported = async (format: string) => {
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.getByTestId(`compare-export-${format}`).click(),
      ]);
      const path = join(dir, file.suggestedFilename());
      await file.saveAs(path);
      return { name: file.suggestedFilename(), text: readFileSync(path, 'utf8') };
    };
    const round6 = (v: number) => Number(v.toFixed(6));
    const doc2 = rougeL['doc-2']!;

    const json = await exported('json');
    expect(json.name).toMatch(/^sumlens-comparison-.+-M1-vs-M2-\d{4}-\d{2}-\d{2}\.json$/u);
    const report = JSON.parse(json.text) as ComparisonExport;
    expect(report).toMatchObject({
      format: 'sumlens-comparison',
      pairing: 'source',
      pairs: 4,
      unpaired: { a: 0, b: 0 },
    });
    expect([report.a.system, report.b.system]).toEqual(['M1', 'M2']);
    expect(report.a.datasetName).toBe('two-systems');
    const jsonL = report.metrics.find((m) => m.column === 'rouge-l')!;
    expect(jsonL).toMatchObject({ label: 'ROUGE-L', comparable: true, n: 4 });
    expect(jsonL.meanDiff).toBeCloseTo(interval.mean, 6);
    expect(jsonL.low).toBeCloseTo(interval.low, 6);
    expect(jsonL.high).toBeCloseTo(interval.high, 6);
    expect(jsonL.pValue).toBeCloseTo(test.pValue, 5);
    expect(jsonL.losses).toBe(d.filter((v) => v < 0).length);
    expect(report.rows.map((r) => r.key).sort()).toEqual(groups);
    const jsonDoc2 = report.rows.find((r) => r.key === 'doc-2')!.scores['rouge-l']!;
    expect(jsonDoc2).toEqual({
      a: round6(doc2.M1!),
      b: round6(doc2.M2!),
      delta: round6(doc2.M2! - doc2.M1!),
    });

    const csv = await exported('csv');
    expect(csv.name).toMatch(/\.csv$/u);
    const pairs = Papa.parse<Record<string, string>>(csv.text, { header: true }).data;
    expect(pairs).toHaveLength(4);
    const csvDoc2 = pairs.find((r) => r.pair === 'doc-2')!;
    expect(Number(csvDoc2['ROUGE-L: A [a:rouge-l]'])).toBe(round6(doc2.M1!));
    expect(Number(csvDoc2['ROUGE-L: B - A [delta:rouge-l]'])).toBe(round6(doc2.M2! - doc2.M1!));

    const summary = await exported('summary-csv');
    expect(summary.name).toMatch(/\.summary\.csv$/u);
    const perMetric = Papa.parse<Record<string, string>>(summary.text, { header: true }).data;
    expect(perMetric.map((r) => r['metric id']).sort()).toEqual(['rouge-1', 'rouge-l']);
    const summaryL = perMetric.find((r) => r['metric id'] === 'rouge-l')!;
    expect(summaryL).toMatchObject({ metric: 'ROUGE-L', comparable: 'yes', n: '4' });
    expect(Number(summaryL['Wilcoxon p'])).toBeCloseTo(test.pValue, 5);

    const md = await exported('md');
    expect(md.name).toMatch(/\.md$/u);
    expect(md.text).toContain('- Pairs: 4 by source');
    expect(md.text).toMatch(/^\| ROUGE-L \| .+ \| 4 \|$/mu);
    // The worst ROUGE-L pair heads its regressions, as it heads the view's rows.
    const regressions = md.text.slice(md.text.indexOf('### ROUGE-L:'));
    expect(regressions).toMatch(/^### ROUGE-L: \d of 4 pairs lower in B/u);
    expect(regressions.split('\n')[4]).toMatch(/^\| doc-2 \| 5 \| 6 \|/u);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('compare-export-html').click(),
    ]);
    const htmlPath = join(dir, 'comparison.html');
    await download.saveAs(htmlPath);
    expect(readFileSync(htmlPath, 'utf8')).not.toMatch(/<script/iu);

    // Offline: a context whose every non-file request is aborted, and counted.
    const offline = await app.browser.newContext();
    const fetched: string[] = [];
    await offline.route('**', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      fetched.push(url);
      return route.abort();
    });
    const viewer = await offline.newPage();
    await viewer.goto(`file://${htmlPath}`);
    expect(await viewer.locator('table[data-table="metrics"] tr').count()).toBeGreaterThan(1);
    expect(await viewer.locator('table[data-table="rows"] tbody tr').count()).toBe(4);
    expect(await viewer.locator('svg[data-chart="intervals"]').count()).toBeGreaterThan(0);
    expect(await viewer.locator('table[data-table="metrics"]').innerText()).toMatch(/ROUGE-L/u);
    for (const [w, h] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        await viewer.setViewportSize({ width: w, height: h });
        await viewer.emulateMedia({ colorScheme: scheme });
        await viewer.screenshot({ path: join(shots, `compare-html-${w}-${scheme}.png`) });
      }
    }
    expect(fetched).toEqual([]);
    await offline.close();

    expect(app.requests.foreign()).toEqual([]);
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  }, 300_000);
});
