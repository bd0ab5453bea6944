/**
 * The quality estimate's flags outside its card, in Chromium: a summary that copies its source's
 * opening shows the lead-copy badge on the score board, and the badge opens the quality card.
 * With FLAG_SHOTS=<dir> it also shoots the board, a run's rows, the comparison and the
 * leaderboard of a SummEval slice with a lead-copying system, at 1280×800 and 390×844 in light
 * and dark, and checks none of them scrolls sideways.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { fillCase, openApp, waitForScores, type App } from './support/browser.ts';
import { importDataset, listedRun, startedRun } from './support/datasets.ts';
import { shootViews } from './support/layout.ts';
import { OFFLINE_METRIC_IDS } from '../../src/lib/metrics/registry.ts';
import { readDevRows } from '../../src/lib/node/validity/summeval.ts';

const SOURCE = `The city council voted on Monday to close the old bridge for repairs after a long debate.
Engineers found deep cracks in two of its supports during an inspection in March.
The bridge will reopen in the autumn, and a ferry will carry people across until then.
Shops near the bridge said they expect fewer customers over the summer.`;
/** The source's first two sentences, word for word: a copied lead. */
const LEAD_COPY = `The city council voted on Monday to close the old bridge for repairs after a long debate.
Engineers found deep cracks in two of its supports during an inspection in March.`;

const SHOTS = process.env.FLAG_SHOTS;

/** The first two sentences of a text: what a lead-copying system writes. */
function lead(text: string): string {
  return (text.match(/[^.!?]+[.!?]+/gu) ?? [text]).slice(0, 2).join(' ').trim();
}

const shoot = (page: Page, name: string, view: () => Locator) =>
  shootViews(page, SHOTS!, name, view);

describe('the quality estimate’s flags outside its card', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({ context: { viewport: { width: 1280, height: 800 } } });
    page = app.page;
  });
  afterAll(() => app?.close());

  it('shows a copied lead on the score board, and its badge opens the quality card', async () => {
    await fillCase(page, SOURCE, LEAD_COPY);
    await page.getByTestId('score-button').click();
    await waitForScores(page);
    const flags = page.getByTestId('board-flags-quality-offline');
    const badge = flags.locator('[data-testid="board-flag"][data-flag="lead-copy"]');
    await badge.waitFor();
    expect((await badge.textContent())?.trim()).toBe('lead copy');
    expect(await badge.getAttribute('aria-label')).toMatch(/^lead copy: .*word for word/u);
    await badge.click();
    await page
      .locator('[data-testid="metric-quality-offline"] details[data-testid="card-more"][open]')
      .waitFor();
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      expect(await shoot(page, 'board', () => page.getByTestId('score-board'))).toEqual([]);
    }
  });

  it.skipIf(!SHOTS)('shows the flags in a run, its comparison and its leaderboard', async () => {
    const rows = readDevRows(4).filter((r) => r.model_id === 'M11');
    const copied = rows.map((r) => ({ ...r, model_id: 'LEAD', decoded: lead(r.text) }));
    const file = join(mkdtempSync(join(tmpdir(), 'sumlens-flags-')), 'lead-copies.jsonl');
    writeFileSync(file, [...rows, ...copied].map((r) => JSON.stringify(r)).join('\n') + '\n');
    await importDataset(page, file);
    const dataset = page.getByTestId('dataset-item').filter({ hasText: 'lead-copies' });
    await dataset.getByTestId('run-configure').click();
    await page.getByTestId('run-setup').waitFor();
    for (const id of OFFLINE_METRIC_IDS) {
      if (id !== 'rouge-l' && id !== 'quality-offline')
        await page.getByTestId(`run-metric-${id}`).uncheck();
    }
    const runId = await startedRun(page, () => page.getByTestId('run-start').click());
    const item = listedRun(page, runId);
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 90_000 }).toBe('done');
    await item.getByTestId('run-open').click();
    await page.locator(`[data-testid="run-view"][data-run-id="${runId}"]`).waitFor();
    await page.getByTestId('run-flags').waitFor();
    const problems = await shoot(page, 'run', () => page.getByTestId('run-view'));

    await item.getByTestId('run-compare').click();
    await page.getByTestId('compare-view').waitFor();
    await expect
      .poll(() => page.locator('[data-testid="compare-b"] option').count())
      .toBeGreaterThan(2);
    const option = async (system: string) =>
      (await page
        .locator('[data-testid="compare-b"] option', { hasText: `system ${system}` })
        .first()
        .getAttribute('value'))!;
    await page.getByTestId('compare-a').selectOption(await option('M11'));
    await page.getByTestId('compare-b').selectOption(await option('LEAD'));
    await page.getByTestId('compare-flags').first().waitFor();
    await page.getByTestId('leaderboard-flags').first().waitFor();
    problems.push(...(await shoot(page, 'compare', () => page.getByTestId('compare-view'))));
    expect(problems).toEqual([]);
  });
});
