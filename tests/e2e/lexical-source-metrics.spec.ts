/**
 * The source-based lexical metrics in the app: hosted by the lexical worker, scored without a
 * reference, their detail views showing the copied fragments, the salient-word chips and the
 * quality estimate's flags for a summary that is the source's opening copied word for word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { cardState, fillCase, openApp, waitForScores, type App } from './support/browser.ts';

const SOURCE = `The city council approved a new bridge over the river on Tuesday.
The bridge will cost 40 million pounds and open in 2027.
Council leaders said the bridge would cut traffic in the town centre.
Residents had campaigned for a second crossing for ten years.`;

// The first two source sentences, copied: a lead copy for the guards.
const LEAD_COPY = `The city council approved a new bridge over the river on Tuesday. The bridge will cost 40 million pounds and open in 2027.`;

describe('source-based lexical metrics in Chromium', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp();
    page = app.page;
  });

  afterAll(() => app?.close());

  it('scores a copied lead: full extractiveness, coverage chips, and a lead-copy flag', async () => {
    await fillCase(page, SOURCE, LEAD_COPY);
    await page.getByTestId('score-button').click();
    await waitForScores(page);

    const extractiveness = await cardState(page, 'extractiveness');
    expect(extractiveness.status).toBe('ok');
    expect(Number(extractiveness.score)).toBe(1);
    const card = page.getByTestId('metric-extractiveness');
    await card.locator('summary').click();
    await expect
      .poll(() => card.locator('mark[data-label="sentence copied whole"]').count())
      .toBe(2);

    expect((await cardState(page, 'source-coverage')).status).toBe('ok');
    const coverage = page.getByTestId('metric-source-coverage');
    await coverage.locator('summary').click();
    // "bridge" (4×) is the source's most frequent content word, and the summary has it.
    await expect
      .poll(() => coverage.locator('[data-covered="true"]').first().textContent())
      .toMatch(/bridge/u);

    expect((await cardState(page, 'quality-offline')).status).toBe('ok');
    const quality = page.getByTestId('metric-quality-offline');
    await quality.locator('summary').click();
    await expect.poll(() => quality.locator('[data-flag="lead-copy"]').count()).toBe(1);
    expect(await quality.getByTestId('quality-caveat').textContent()).toMatch(
      /not an absolute grade/u,
    );
    expect(app.errors).toEqual([]);
  });
});
