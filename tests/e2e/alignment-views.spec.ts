/**
 * The encoder alignment views in Chromium: choosing a summary sentence in the source-order view
 * (by keyboard, as its buttons allow) highlights its closest source sentence in the source text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { cardState, fillCase, openApp, waitForScores, type App } from './support/browser.ts';

const SOURCE = `The city council voted on Tuesday to build a new bridge over the river.
Construction will cost forty million pounds and take three years.
Local shop owners worry that the works will drive customers away.
The mayor promised compensation for businesses that lose trade.`;

const SUMMARY =
  'Shop owners fear losing customers during the works. Councillors approved a new river bridge. It will cost forty million pounds over three years.';

describe('source order, support and redundancy views', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp();
    page = app.page;
  });

  afterAll(() => app?.close());

  it('highlights the aligned source sentence of the chosen summary sentence', async () => {
    await fillCase(page, SOURCE, SUMMARY);
    await page.getByTestId('score-button').click();
    await waitForScores(page);
    for (const id of ['source-order', 'support', 'redundancy']) {
      expect((await cardState(page, id)).status, id).toBe('ok');
    }
    const card = page.getByTestId('metric-source-order');
    await card.locator('summary').click();
    const buttons = card.getByTestId('source-order-sentences').getByRole('button');
    expect(await buttons.count()).toBe(3);
    // The first summary sentence retells the third source sentence: out of order.
    expect(await buttons.nth(0).textContent()).toMatch(/source 3[\s\S]*out of order/u);
    await buttons.nth(0).focus();
    await page.keyboard.press('Enter');
    expect(await buttons.nth(0).getAttribute('aria-pressed')).toBe('true');
    const mark = card.getByTestId('source-order-highlight').locator('mark');
    await expect.poll(() => mark.count()).toBe(1);
    expect(await mark.textContent()).toBe(
      'Local shop owners worry that the works will drive customers away.',
    );
    await buttons.nth(1).click();
    expect(await mark.textContent()).toBe(
      'The city council voted on Tuesday to build a new bridge over the river.',
    );
    expect(app.errors).toEqual([]);
  });
});
