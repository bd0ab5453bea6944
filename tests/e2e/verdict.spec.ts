/**
 * The verdict first, in Chromium: a summary with a changed number and a repeated phrase gets a
 * "needs fixing" line, its marks over the summary open the card that explains them, and a check
 * set in the page fails on the card, on the score board and in the verdict — and is still there
 * after a reload. A data set's check fails on exactly the one row that breaks it.
 * With VERDICT_SHOTS=<dir> it shoots the verdict at 1280×800 and 390×844, light and dark.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { fillCase, openApp, type App } from './support/browser.ts';
import { importDataset, listedRun, startedRun } from './support/datasets.ts';
import { shootViews } from './support/layout.ts';
import { OFFLINE_METRIC_IDS } from '../../src/lib/metrics/registry.ts';

const SOURCE = `Rescuers pulled 8,480 migrants from the Mediterranean over the weekend, the agency said on Tuesday.
At least 400 of them were children travelling alone, according to Save the Children.
The agency estimates that two million people have crossed the sea since 2014.`;
const INVENTED = `Rescuers pulled 18,480 migrants from the sea over the weekend.
At least 400 were children travelling alone, children travelling alone, the charity said.`;
const FAITHFUL = `Rescuers pulled 8,480 migrants from the Mediterranean over the weekend.
At least 400 were children travelling alone, Save the Children said.`;

const SHOTS = process.env.VERDICT_SHOTS;

/** Clicks Score and waits for that Score's results: the results' run counter moves on. */
async function score(page: Page): Promise<void> {
  const results = page.getByTestId('results');
  const before = Number((await results.getAttribute('data-run')) ?? 0);
  await page.getByTestId('score-button').click();
  await expect.poll(async () => Number(await results.getAttribute('data-run'))).toBe(before + 1);
  await expect
    .poll(() => page.getByTestId('verdict').getAttribute('data-tone'), { timeout: 120_000 })
    .not.toBe('running');
}

describe('the verdict above the cards', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({ context: { viewport: { width: 1280, height: 800 } } });
    page = app.page;
  });
  afterAll(() => app?.close());

  it('says what is wrong, marks it on the summary, and each mark opens its card', async () => {
    await fillCase(page, SOURCE, INVENTED);
    await score(page);
    const verdict = page.getByTestId('verdict');
    expect(await verdict.getAttribute('data-tone')).toBe('problem');
    expect(await page.getByTestId('verdict-line').innerText()).toMatch(
      /^Needs fixing: 1 fact not in the source/u,
    );
    expect(await page.getByTestId('verdict-summary').innerText()).toContain('18,480');
    const fact = page.locator('[data-testid="verdict-note"][data-finding="fact-not-in-source"]');
    expect(await fact.count()).toBe(1);
    expect(await fact.getAttribute('aria-label')).toMatch(/“18,480” is not in the source/u);
    await expect
      .poll(() =>
        page.locator('[data-testid="verdict-finding"][data-finding="repeated-phrase"]').count(),
      )
      .toBeGreaterThan(0);
    await fact.click();
    await page
      .locator('[data-testid="metric-fact-check"] details[data-testid="card-more"][open]')
      .waitFor();
    expect(await page.getByTestId('board-scale').innerText()).toMatch(/lowest possible score/u);
  });

  it('fails a check on the card, the board and the verdict, and keeps it after a reload', async () => {
    expect(await page.getByTestId('verdict-checks').innerText()).toMatch(/No checks yet/u);
    await page.getByTestId('verdict-edit-checks').locator('summary').click();
    await page.getByTestId('case-check-metric').selectOption('fact-check');
    await page.getByTestId('case-check-threshold').fill('0.9');
    await page.getByTestId('case-check-add').click();
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-checks')).toBe('fail');
    expect(await page.getByTestId('verdict-checks').innerText()).toMatch(/Fails 1 of 1 check/u);
    expect(await page.getByTestId('board-fact-check').getAttribute('data-check')).toBe('fail');
    const cardCheck = page.locator('[data-testid="metric-fact-check"] [data-testid="card-check"]');
    expect(await cardCheck.getAttribute('data-outcome')).toBe('fail');
    expect(await page.getByTestId('case-checks-yaml').innerText()).toBe(
      'assert:\n  - type: fact-check\n    threshold: 0.9\n',
    );
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      expect(await shootViews(page, SHOTS, 'verdict', () => page.getByTestId('verdict'))).toEqual(
        [],
      );
      expect(await shootViews(page, SHOTS, 'board', () => page.getByTestId('score-board'))).toEqual(
        [],
      );
    }

    await page.reload();
    await fillCase(page, SOURCE, FAITHFUL);
    await score(page);
    expect(await page.getByTestId('verdict').getAttribute('data-checks')).toBe('pass');
    expect(await page.getByTestId('board-fact-check').getAttribute('data-check')).toBe('pass');
    expect(await page.getByTestId('verdict-line').innerText()).not.toMatch(/Needs fixing/u);
  });

  it('fails a data set check on the one row that breaks it', async () => {
    const rows = [
      { id: 'good-1', source: SOURCE, summary: FAITHFUL },
      { id: 'bad', source: SOURCE, summary: INVENTED },
      {
        id: 'good-2',
        source: SOURCE,
        summary: 'About two million people have crossed the sea since 2014, the agency estimates.',
      },
    ];
    const file = join(mkdtempSync(join(tmpdir(), 'sumlens-checks-')), 'checked.jsonl');
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await importDataset(page, file);
    const dataset = page.getByTestId('dataset-item').filter({ hasText: 'checked' });
    await dataset.getByTestId('run-configure').click();
    await page.getByTestId('run-setup').waitFor();
    for (const id of OFFLINE_METRIC_IDS) {
      if (id !== 'fact-check' && id !== 'rouge-l')
        await page.getByTestId(`run-metric-${id}`).uncheck();
    }
    const runId = await startedRun(page, () => page.getByTestId('run-start').click());
    const item = listedRun(page, runId);
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 90_000 }).toBe('done');
    await item.getByTestId('run-open').click();
    const checks = page.locator(`[data-testid="run-checks"][data-run="${runId}"]`);
    await checks.waitFor();
    await checks.locator('details.edit summary').click();
    await page.getByTestId('dataset-check-kind').selectOption('no-flag');
    await page.getByTestId('dataset-check-flag').selectOption('fact-not-in-source');
    await page.getByTestId('dataset-check-add').click();
    await expect.poll(() => checks.getAttribute('data-state')).toBe('fail');
    const tally = checks.getByTestId('run-check');
    expect(await tally.getAttribute('data-pass')).toBe('2');
    expect(await tally.getAttribute('data-fail')).toBe('1');
    expect(await page.getByTestId('run-checks-line').innerText()).toBe('1 of 3 rows fail a check.');
    // The row table's checks column marks that row, and only it.
    const failing = page.locator(
      '[data-testid="run-row"]:has(td[data-column="checks"] [data-badge="fail"])',
    );
    await expect.poll(() => failing.count()).toBe(1);
    expect(await failing.locator('td[data-column="id"]').innerText()).toBe('bad');
    expect(await page.locator('td[data-column="checks"] [data-badge="pass"]').count()).toBe(2);
    if (SHOTS) {
      expect(await shootViews(page, SHOTS, 'run-checks', () => checks)).toEqual([]);
      expect(await shootViews(page, SHOTS, 'run-rows', () => page.getByTestId('run-rows'))).toEqual(
        [],
      );
    }
  });
});
