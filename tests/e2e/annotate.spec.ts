/**
 * The annotator end to end: a small cases file without ratings is imported, eight rows are rated
 * on two dimensions from the keyboard alone, the page is reloaded (nothing lost, the annotator
 * resumes at the first row not fully rated), the offline metrics run, and the calibration table
 * pairs the typed ratings with the run: n = 8, and the Spearman of one metric equals one computed
 * here from the exported scores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';
import { importDataset, humanHeader, scoreHeader } from './support/datasets.ts';
import { readJsonl } from '../helpers/shared.ts';

interface SummEvalRecord {
  text: string;
  decoded: string;
  references: string[];
}

interface CaseLine {
  source: string;
  summary: string;
  reference: string;
}

/** Average ranks (1-based), ties sharing the mean of their positions, as scipy.stats.rankdata. */
function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1].v === order[start].v) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k].i] = rank;
    start = end + 1;
  }
  return ranks;
}

/** Spearman's rho as scipy.stats.spearmanr: Pearson's r of the average ranks. */
function spearman(xs: readonly number[], ys: readonly number[]): number {
  const rx = averageRanks(xs);
  const ry = averageRanks(ys);
  const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
  const mx = mean(rx);
  const my = mean(ry);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < rx.length; i++) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) ** 2;
    syy += (ry[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

const COHERENCE = [3, 4, 2, 5, 3, 1, 4, 3];
const CONSISTENCY = [5, 5, 4, 2, 3, 1, 2, 4];

describe('annotating a data set in the page', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({ context: { acceptDownloads: true } });
    page = app.page;
  });

  afterAll(() => app?.close());

  const view = () => page.getByTestId('annotate-view');
  const dim = (name: string) => page.getByTestId(`annotate-dim-${name}`);
  const shownRow = async () =>
    Number(await page.getByTestId('annotate-row').getAttribute('data-row'));

  async function openAnnotator(name: string): Promise<void> {
    await page
      .getByTestId('dataset-item')
      .filter({ hasText: name })
      .getByTestId('annotate-open')
      .click();
    await expect.poll(() => page.getByTestId('annotate-progress').count()).toBe(1);
  }

  it('rates rows from the keyboard, keeps them over a reload, and calibrates against them', async () => {
    const cases: CaseLine[] = readJsonl<SummEvalRecord>('data/summeval/dev.jsonl')
      .slice(0, 12)
      .map((r) => ({ source: r.text, summary: r.decoded, reference: r.references[0] ?? '' }));
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-annotate-'));
    const file = join(dir, 'annotate-cases.jsonl');
    writeFileSync(file, cases.map((c) => JSON.stringify(c)).join('\n'));

    await importDataset(page, file);
    const item = page.getByTestId('dataset-item').filter({ hasText: 'annotate-cases' });
    expect(await item.count()).toBe(1);
    expect(await item.innerText()).toMatch(/case\s+12\s+—/u);

    await openAnnotator('annotate-cases');
    expect(await page.getByTestId('annotate-progress').innerText()).toMatch(
      /^0 of 12 rows fully rated/u,
    );
    // The case is shown as its text, row 1 first, the first dimension highlighted.
    expect(await shownRow()).toBe(1);
    await expect
      .poll(async () => (await page.getByTestId('annotate-summary').innerText()).trim())
      .toBe(cases[0].summary.trim());
    expect((await page.getByTestId('annotate-source').innerText()).trim()).toBe(
      cases[0].source.trim(),
    );
    expect(await dim('coherence').getAttribute('data-focused')).toBe('true');
    for (const name of ['coherence', 'consistency', 'fluency', 'relevance']) {
      expect((await dim(name).innerText()).length).toBeGreaterThan(40);
    }

    // Two dimensions only for this set: fluency and relevance are removed (nothing rated yet).
    await view().locator('details.edit-dims > summary').click();
    await page.getByTestId('annotate-remove-fluency').click();
    await expect.poll(() => dim('fluency').count()).toBe(0);
    await page.getByTestId('annotate-remove-relevance').click();
    await expect.poll(() => dim('relevance').count()).toBe(0);
    await view().locator('details.edit-dims > summary').click();
    await dim('coherence').getByRole('button', { name: '1', exact: true }).focus();

    // From here on the keyboard only: a digit rates the highlighted dimension and moves on, the
    // last dimension moves to the next row.
    for (let i = 0; i < 8; i++) {
      expect(await shownRow()).toBe(i + 1);
      expect(await dim('coherence').getAttribute('data-focused')).toBe('true');
      await page.keyboard.press(String(COHERENCE[i]));
      expect(await dim('consistency').getAttribute('data-focused')).toBe('true');
      await page.keyboard.press(String(CONSISTENCY[i]));
    }
    expect(await shownRow()).toBe(9);
    // A rating typed and cleared again leaves row 9 unrated.
    await page.keyboard.press('5');
    expect(await dim('coherence').getAttribute('data-value')).toBe('5');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Backspace');
    expect(await dim('coherence').getAttribute('data-value')).toBe('');
    // Back a row: the ratings typed there; forward with n to the next row not fully rated.
    await page.keyboard.press('ArrowLeft');
    expect(await shownRow()).toBe(8);
    expect(await dim('coherence').getAttribute('data-value')).toBe(String(COHERENCE[7]));
    expect(await dim('consistency').getAttribute('data-value')).toBe(String(CONSISTENCY[7]));
    expect(
      await dim('coherence')
        .getByRole('button', { name: String(COHERENCE[7]), exact: true })
        .getAttribute('aria-pressed'),
    ).toBe('true');
    await page.keyboard.press('n');
    expect(await shownRow()).toBe(9);
    await page.keyboard.press('?');
    expect(await page.getByTestId('annotate-help').innerText()).toMatch(/next row not rated/u);
    await page.keyboard.press('?');
    expect(await page.getByTestId('annotate-help').count()).toBe(0);
    // A digit typed in a text field is text, not a rating.
    await view().getByRole('spinbutton').focus();
    await page.keyboard.press('3');
    expect(await dim('coherence').getAttribute('data-value')).toBe('');

    await expect.poll(() => view().getAttribute('data-pending')).toBe('0');
    expect(await page.getByTestId('annotate-status').innerText()).toMatch(
      /Row 9: coherence cleared/u,
    );
    expect(await page.getByTestId('annotate-progress').innerText()).toMatch(
      /^8 of 12 rows fully rated · coherence 8 · consistency 8/u,
    );
    // The list learns the new human columns.
    await expect.poll(() => item.innerText()).toMatch(/rated_coherence, rated_consistency/u);

    await page.reload();
    await openAnnotator('annotate-cases');
    expect(await page.getByTestId('annotate-progress').innerText()).toMatch(
      /^8 of 12 rows fully rated · coherence 8 · consistency 8/u,
    );
    expect(await shownRow()).toBe(9);
    expect(await page.getByTestId('annotate-status').innerText()).toMatch(
      /Resuming at row 9, the first row not fully rated/u,
    );
    expect(await dim('coherence').getAttribute('data-focused')).toBe('true');
    expect(await dim('fluency').count()).toBe(0);
    await page.keyboard.press('ArrowLeft');
    expect(await shownRow()).toBe(8);
    expect(await dim('coherence').getAttribute('data-value')).toBe(String(COHERENCE[7]));
    // Straight to a row by number; a number that is no row says so.
    await view().getByRole('spinbutton').fill('4');
    await view().getByRole('spinbutton').press('Enter');
    expect(await shownRow()).toBe(4);
    expect(await dim('consistency').getAttribute('data-value')).toBe(String(CONSISTENCY[3]));
    await view().getByRole('spinbutton').fill('40');
    await view().getByRole('spinbutton').press('Enter');
    expect(await page.getByTestId('annotate-error').innerText()).toMatch(
      /no row 40 in this data set: its rows are numbered 1 to 12\./u,
    );
    await page.getByTestId('annotate-close').click();
    expect(await view().count()).toBe(0);

    await item.getByTestId('run-offline').click();
    const run = page.getByTestId('run-item').filter({ hasText: 'annotate-cases' });
    await expect.poll(() => run.innerText(), { timeout: 120_000 }).toMatch(/done · 12\/12 rows/u);
    await run.getByTestId('run-open').click();

    const pair = (metric: string, human: string) =>
      page.locator(
        `[data-testid="calibration-row"][data-metric="${metric}"][data-human="${human}"]`,
      );
    await expect.poll(() => pair('rouge-l', 'rated_coherence').count()).toBe(1);
    expect(await pair('rouge-l', 'rated_coherence').getAttribute('data-n')).toBe('8');
    expect(await pair('rouge-l', 'rated_consistency').getAttribute('data-n')).toBe('8');

    // The run's per-row scores, from the CSV export, against the ratings typed above.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-csv').click(),
    ]);
    const csv = Papa.parse<Record<string, string>>(
      readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/u, ''),
      { header: true, skipEmptyLines: true },
    ).data;
    expect(csv.map((r) => Number(r.row))).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const rated = csv.slice(0, 8);
    expect(rated.map((r) => Number(r[humanHeader('rated_coherence')]))).toEqual(COHERENCE);
    expect(rated.map((r) => Number(r[humanHeader('rated_consistency')]))).toEqual(CONSISTENCY);
    expect(csv.slice(8).every((r) => r[humanHeader('rated_coherence')] === '')).toBe(true);
    const rougeL = rated.map((r) => Number(r[scoreHeader('rouge-l')]));
    expect(rougeL.every((v) => Number.isFinite(v) && v > 0)).toBe(true);

    for (const [human, ratings] of [
      ['rated_coherence', COHERENCE],
      ['rated_consistency', CONSISTENCY],
    ] as const) {
      const shown = Number(await pair('rouge-l', human).getAttribute('data-spearman'));
      expect(shown).toBeCloseTo(spearman(rougeL, ratings), 12);
    }

    // Rated while the run is open: the table follows without opening the run again.
    await openAnnotator('annotate-cases');
    expect(await shownRow()).toBe(9);
    await page.keyboard.press('2');
    await page.keyboard.press('5');
    await expect
      .poll(() => pair('rouge-l', 'rated_coherence').getAttribute('data-n'), {
        timeout: 10_000,
      })
      .toBe('9');
    const rougeL9 = [...rougeL, Number(csv[8][scoreHeader('rouge-l')])];
    expect(
      Number(await pair('rouge-l', 'rated_coherence').getAttribute('data-spearman')),
    ).toBeCloseTo(spearman(rougeL9, [...COHERENCE, 2]), 12);

    expect(app.requests.foreign()).toEqual([]);
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  });
});
