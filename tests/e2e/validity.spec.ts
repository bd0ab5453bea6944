/**
 * The cards say how well their score tracks people, as measured (src/lib/metrics/validity.ts):
 * the coherence card (USE-lite int8, the default) says its agreement is near zero, the offline repetition card quotes its
 * figure, and each card's link opens its row of the in-page validity table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { appOrigin, openApp, openCard, waitForScores, type App } from './support/browser.ts';
import { VALIDITY } from '../../src/lib/metrics/validity.ts';

describe('validity in the cards', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp();
    page = app.page;
    await page.getByTestId('example-button').click();
    await page.getByTestId('score-button').click();
    await waitForScores(page);
  });

  afterAll(() => app?.close());

  it('says near zero on the coherence card, and quotes the repetition figure', async () => {
    const coherence = page.getByTestId('metric-coherence').getByTestId('validity-note');
    expect(await coherence.getAttribute('data-agreement')).toBe('near-zero');
    expect(await coherence.textContent()).toMatch(/Near zero agreement with people/u);

    const repetition = page.getByTestId('metric-repetition-offline').getByTestId('validity-note');
    const measured = VALIDITY.rows.find((r) => r.key === 'repetition-offline-lexical')!;
    expect(await repetition.getAttribute('data-agreement')).toBe('measured');
    expect(await repetition.textContent()).toContain(
      `Spearman ${measured.cells.coherence.summarySpearman!.toFixed(3)} with expert coherence`,
    );
    // ROUGE needs a reference the example lacks: n/a, yet no claim beyond its row either way.
    expect(app.errors).toEqual([]);
  });

  it('opens the card’s row of the validity table from its link', async () => {
    const table = page.getByTestId('validity-table');
    expect(await table.isVisible()).toBe(false);
    await openCard(page, 'coherence');
    await page
      .getByTestId('metric-coherence')
      .getByRole('link', { name: 'How well this tracks people, and on what data' })
      .click();
    // The page's default encoder is USE-lite int8: its card links to the row measured on int8.
    const row = page.getByTestId('validity-row-coherence-use-lite-int8');
    await expect.poll(() => row.isVisible()).toBe(true);
    await expect.poll(() => row.getAttribute('class')).toMatch(/\btarget\b/u);
    expect(await row.getAttribute('data-agreement')).toBe('near-zero');
    expect(await row.textContent()).toMatch(/near zero/u);
    expect(await table.locator('tbody tr').count()).toBe(VALIDITY.rows.length);
    await expect
      .poll(() =>
        row.evaluate((el) => {
          const box = el.getBoundingClientRect();
          return box.top >= 0 && box.bottom <= window.innerHeight;
        }),
      )
      .toBe(true);
  });

  it('opens the row named in the address on load', async () => {
    await page.goto(`${appOrigin()}/#validity-repetition-offline-lexical`);
    const row = page.getByTestId('validity-row-repetition-offline-lexical');
    await expect.poll(() => row.isVisible()).toBe(true);
    expect(await row.getAttribute('class')).toMatch(/\btarget\b/u);
    expect(await row.textContent()).toContain('600/600');
  });
});
