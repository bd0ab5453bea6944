/**
 * Data sets end to end: drop SummEval's dev.jsonl, run the offline metrics in the batch worker,
 * reload mid-run and see it resume with every row scored once, read the calibration table and the
 * scatter plot, export CSV; a broken row is reported and the rest load; a UTF-16 CSV reads as its
 * text and a PNG renamed .jsonl is refused as binary; TinyEval's trec figure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';
import { importDataset, scoreHeader } from './support/datasets.ts';
import { sharedPath } from '../helpers/shared.ts';

function runText(page: Page): Promise<string> {
  return page.getByTestId('run-item').first().innerText();
}

describe('data sets in the page', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({ context: { acceptDownloads: true } });
    page = app.page;
  });

  afterAll(() => app?.close());

  it('imports dev.jsonl, resumes a run after a reload, and calibrates against the experts', async () => {
    await importDataset(page, sharedPath('data/summeval/dev.jsonl'));
    expect(await page.getByTestId('dataset-import').innerText()).toMatch(
      /600 rows read.*SummEval/su,
    );

    await page.getByTestId('run-offline').first().click();
    // Reload once some rows are stored, before the end.
    await expect
      .poll(async () => Number(/(\d+)\/600 rows/u.exec(await runText(page))?.[1] ?? 0), {
        timeout: 60_000,
        interval: 50,
      })
      .toBeGreaterThan(0);
    await page.reload();
    // The interrupted run resumes by itself and ends with every row scored exactly once.
    // With the default encoder (USE-lite on one WASM thread) 600 rows take a minute or more.
    await expect.poll(() => runText(page), { timeout: 420_000 }).toMatch(/done · 600\/600 rows/u);
    await page.getByTestId('run-open').first().click();
    const summary = await page.getByTestId('run-summary').innerText();
    expect(summary).toMatch(/ROUGE-L\s+0\.\d+\s+0\.\d+\s+600\s/u);
    // The row table is built a few rows per task: a page of 100 of the 600, then one more.
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(100);
    expect(await page.getByTestId('run-view').innerText()).toMatch(/first 100 of 600/u);
    await page.getByTestId('run-rows-more').click();
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(200);

    const pair = page.locator(
      '[data-testid="calibration-row"][data-metric="rouge-l"][data-human="expert_relevance"]',
    );
    // scipy.stats.spearmanr on the same 600 numbers (see tests/unit/datasets/calibration.test.ts).
    expect(Number(await pair.getAttribute('data-spearman'))).toBeCloseTo(0.27528607919315234, 9);
    // The matrix leads with the summary-level Spearman (per article, averaged), as G-Eval reports.
    const cell = page.locator(
      '[data-testid="calibration-cell"][data-metric="rouge-l"][data-human="expert_relevance"]',
    );
    expect(Number(await cell.getAttribute('data-value'))).toBeCloseTo(0.20654477697160156, 9);
    await page.getByTestId('calibration-level').selectOption('pooled');
    expect(Number(await cell.getAttribute('data-value'))).toBeCloseTo(0.27528607919315234, 9);
    await page.getByTestId('chart-metric').selectOption('rouge-l');
    await page.getByTestId('scatter-human').selectOption('expert_relevance');
    expect(await page.getByTestId('scatter').getAttribute('data-count')).toBe('600');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-csv').click(),
    ]);
    const csv = readFileSync(await download.path(), 'utf8');
    const parsed = Papa.parse<Record<string, string>>(csv.replace(/^\uFEFF/u, ''), {
      header: true,
      skipEmptyLines: true,
    });
    expect(parsed.data).toHaveLength(600);
    expect(parsed.meta.fields).toEqual(expect.arrayContaining(['row', scoreHeader('rouge-l')]));
    // Metric against metric, and a row opened with the single-case cards.
    await page.getByTestId('scatter-metric').selectOption('rouge-1');
    expect(Number(await page.getByTestId('scatter-metrics').getAttribute('data-count'))).toBe(600);
    // Coherence is n/a below 2 sentences: those rows drop out of the pair.
    await page.getByTestId('scatter-metric').selectOption('coherence');
    expect(
      Number(await page.getByTestId('scatter-metrics').getAttribute('data-count')),
    ).toBeLessThan(600);
    // (the row and its results are read from storage when it is opened)
    await page.getByTestId('run-row').first().getByRole('button').click();
    await expect.poll(() => page.getByTestId('summary-input').inputValue()).not.toBe('');
    await expect
      .poll(() => page.getByTestId('metric-rouge-l').getAttribute('data-status'))
      .toBe('ok');

    expect(app.requests.foreign()).toEqual([]);
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  }, 600_000);

  it('lists a broken row by number and loads the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-ds-'));
    const file = join(dir, 'cases.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({
          source: 'The bridge closed on Monday.',
          summary: 'A bridge closed.',
          rating: 4,
        }),
        '{"source": "broken',
        JSON.stringify({ source: 'Rain fell all week.', summary: 'It rained.', rating: 2 }),
      ].join('\n'),
    );
    await importDataset(page, file);
    expect(await page.getByTestId('dataset-import').innerText()).toMatch(/2 rows read/u);
    await page.getByTestId('dataset-import').locator('summary').click();
    expect(await page.getByTestId('dataset-problems').innerText()).toMatch(/row 2/u);
  });

  it('reads a UTF-16 CSV (as Excel saves it) and refuses a PNG renamed .jsonl as binary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-ds-'));
    const csv = [
      'source,summary,rating',
      '"Die Größe des Parks, sagte er, ist 3 km².",Größe: 3 km².,4',
      '北京市今天宣布了新的公园建设计划。,北京将建新公园。,5',
    ].join('\r\n');
    const utf16 = join(dir, 'excel-unicode.csv');
    writeFileSync(utf16, Buffer.from('\ufeff' + csv, 'utf16le'));
    await importDataset(page, utf16);
    const imported = page.getByTestId('dataset-import');
    await expect.poll(() => imported.getAttribute('data-done')).toBe('true');
    expect(await page.getByTestId('mapping-read-as').innerText()).toMatch(
      /^Read as: Cases \(source, summary\): 2 rows, .* · UTF-16LE text/u,
    );
    const rows = await page.evaluate(
      () =>
        new Promise<unknown[]>((resolve, reject) => {
          const open = indexedDB.open('sumlens');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const request = open.result
              .transaction('dataset-rows')
              .objectStore('dataset-rows')
              .getAll();
            request.onsuccess = () => {
              open.result.close();
              resolve(request.result);
            };
            request.onerror = () => reject(request.error);
          };
        }),
    );
    const summaries = JSON.stringify(rows);
    expect(summaries).toContain('Größe: 3 km².');
    expect(summaries).toContain('北京将建新公园。');

    const before = await page.getByTestId('dataset-item').count();
    const png = join(dir, 'photo.jsonl');
    writeFileSync(
      png,
      Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        Buffer.alloc(4096, 0x7b),
      ]),
    );
    await page.getByTestId('dataset-file').setInputFiles(png);
    const alert = page.getByTestId('dataset-import').getByRole('alert');
    await expect
      .poll(() => alert.innerText(), { timeout: 30_000 })
      .toBe(
        'photo.jsonl is a binary file (it looks like a PNG image), not text: SumLens reads JSONL, JSON or CSV.',
      );
    expect(await page.getByTestId('dataset-item').count()).toBe(before);
    expect(await page.getByTestId('mapping-editor').count()).toBe(0);
  });

  it("reproduces TinyEval's trec score from its prediction file", async () => {
    await importDataset(page, sharedPath('data/tinyeval/pred/internlm/trec.jsonl'));
    const trec = page.getByTestId('dataset-item').filter({ hasText: 'trec' });
    await trec.getByTestId('run-offline').click();
    await expect.poll(() => runText(page)).toMatch(/^trec/u);
    await expect.poll(() => runText(page), { timeout: 60_000 }).toMatch(/done/u);
    await page.getByTestId('run-open').first().click();
    // Opening reads the run in slices: the previous run's view stays until the new one is read.
    await expect
      .poll(() => page.getByTestId('run-summary').innerText())
      .toMatch(/trec\S*\s+0\.520\s/u);
  });
});
