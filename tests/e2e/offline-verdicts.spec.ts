/**
 * Offline verdicts in Chromium, with the built-in default (no key, no download): an invented
 * number and a renamed organisation are flagged by the fact check with the closest source mention;
 * a one-word summary gets the quality estimate's "too short" flag on the score board and a low
 * score; a Russian summary written in source order is not called reversed by the English-only
 * encoder — its cards say n/a and point to the multilingual model.
 * With VERDICT_SHOTS=<dir> it also shoots the fact-check and quality cards and the n/a card at
 * 1280×800 and 390×844 in light and dark, and checks none of them scrolls sideways.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import {
  cardState,
  fillCase,
  openApp,
  openCard,
  waitForScores,
  type App,
} from './support/browser.ts';
import { shootViews } from './support/layout.ts';

const SOURCE = `Save the Children said on Tuesday that 8,480 migrants had reached Italy by sea since January.
The charity fears 400 more could be missing after a boat capsized off the coast of Libya.
The International Organization for Migration (IOM) said rescue ships were still searching the area.
Italian officials expect more boats to leave Libya as the weather improves.`;
const EDITED = `Doctors Without Borders says 18,480 migrants reached Italy by sea since January.
It fears 400 more are missing after a boat capsized off Libya.`;

const RUSSIAN_SOURCE = `Городской совет в понедельник решил закрыть старый мост на ремонт.
Инженеры нашли глубокие трещины в двух опорах во время проверки в марте.
Мост откроется осенью, а до тех пор людей будет перевозить паром.
Магазины у моста ожидают меньше покупателей летом.`;
const RUSSIAN_IN_ORDER = `Совет решил закрыть старый мост на ремонт.
Инженеры нашли трещины в опорах.
Мост откроется осенью, а пока будет ходить паром.`;

const SHOTS = process.env.VERDICT_SHOTS;

const shoot = (page: Page, name: string, view: () => Locator) =>
  shootViews(page, SHOTS!, name, view);

/** Scores a case and waits until every offline card of THIS run has settled. */
async function score(page: Page, source: string, summary: string): Promise<void> {
  await fillCase(page, source, summary);
  const results = page.getByTestId('results');
  const before = Number((await results.getAttribute('data-run')) ?? '0');
  await page.getByTestId('score-button').click();
  // The run this click started, not the previous case's settled cards.
  await expect
    .poll(async () => Number((await results.getAttribute('data-run')) ?? '0'))
    .toBeGreaterThan(before);
  await waitForScores(page);
}

describe('offline verdicts a person can trust', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({ context: { viewport: { width: 1280, height: 800 } } });
    page = app.page;
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(() => app?.close());

  it('flags the changed number and the renamed organisation, each with the closest source mention', async () => {
    await score(page, SOURCE, EDITED);
    const state = await cardState(page, 'fact-check');
    expect(state.status).toBe('ok');
    await openCard(page, 'fact-check');
    const missing = page.getByTestId('metric-fact-check').getByTestId('fact-check-missing');
    await missing.waitFor();
    const items = await missing.locator('li.missing').allTextContents();
    expect(items.some((t) => t.includes('18,480') && t.includes('8,480'))).toBe(true);
    expect(
      items.some((t) => t.includes('Doctors Without Borders') && t.includes('Save the Children')),
    ).toBe(true);
    // The highlight in the summary marks exactly those.
    const marks = await page
      .getByTestId('metric-fact-check')
      .locator('mark[data-label="not in source"]')
      .allTextContents();
    expect(marks).toEqual(expect.arrayContaining(['18,480', 'Doctors Without Borders']));
    if (SHOTS) {
      await openCard(page, 'quality-offline');
      expect([
        ...(await shoot(page, 'fact-check', () => page.getByTestId('metric-fact-check'))),
        ...(await shoot(page, 'quality', () => page.getByTestId('metric-quality-offline'))),
      ]).toEqual([]);
    }
  });

  it('puts a one-word summary low, with its flag on the score board', async () => {
    await score(page, SOURCE, 'migrants');
    const badge = page
      .getByTestId('board-flags-quality-offline')
      .locator('[data-testid="board-flag"][data-flag="too-short"]');
    await badge.waitFor();
    const state = await cardState(page, 'quality-offline');
    expect(state.status).toBe('ok');
    expect(Number(state.score)).toBeLessThanOrEqual(0.2);
  });

  it('does not call a Russian summary in source order reversed: the English encoder says n/a', async () => {
    await score(page, RUSSIAN_SOURCE, RUSSIAN_IN_ORDER);
    for (const id of ['source-order', 'support', 'coherence', 'redundancy']) {
      const state = await cardState(page, id);
      expect(state.status, id).toBe('n/a');
      const reason = await page.getByTestId(`metric-${id}`).getByTestId('reason').textContent();
      expect(reason, id).toMatch(/English only.*Russian.*multilingual/su);
    }
    // No order score at all: nothing to read as "reversed".
    expect((await cardState(page, 'source-order')).score ?? '').toBe('');
    if (SHOTS) {
      expect(
        await shoot(page, 'language-na', () => page.getByTestId('metric-source-order')),
      ).toEqual([]);
    }
  });
});
