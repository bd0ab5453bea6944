/**
 * The single-case page read at a glance, in Chromium: one score board above folded cards, results
 * marked stale the moment the input changes (and after a Score the input stops), one notice for a
 * missing key, a bad setting that blocks only its metrics, identical re-scores that keep one
 * history entry, right-to-left text laid out right to left, a phone layout without sideways
 * scroll, selects whose labels fit, and dark-mode contrast that meets WCAG AA.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  appOrigin,
  OFFLINE_METRIC_IDS,
  cardState,
  fillCase,
  launchBrowser,
  openPage,
  waitForScores,
  type AppPage,
} from './support/browser.ts';
import { textContrast } from './support/contrast.ts';

const SOURCE = `The city council voted on Monday to close the old bridge for repairs.
Engineers found cracks in two of its supports during an inspection in March.
The bridge will reopen in the autumn, and a ferry will carry people across until then.`;
const SUMMARY = 'The council closed the old bridge on Monday after engineers found cracks.';
const REFERENCE = 'The old bridge closes for repairs until autumn; a ferry replaces it.';

const ARABIC_SOURCE = `صوّت مجلس المدينة يوم الاثنين على إغلاق الجسر القديم للإصلاح.
وجد المهندسون شقوقاً في دعامتين من دعاماته خلال فحص في مارس.`;
const ARABIC_SUMMARY = 'أغلق المجلس الجسر القديم يوم الاثنين بعد أن وجد المهندسون شقوقاً.';

async function score(page: Page): Promise<void> {
  await page.getByTestId('score-button').click();
  await waitForScores(page);
}

/** Waits until the case just scored is stored: its history entry is the open one. */
async function waitForSaved(page: Page): Promise<void> {
  await page.locator('[data-testid="history-item"].current').waitFor();
}

async function historyCount(page: Page): Promise<number> {
  return page.getByTestId('history-item').count();
}

describe('the single-case page at a glance', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  describe('at 1280×800', () => {
    let app: AppPage;
    let page: Page;

    beforeAll(async () => {
      app = await openPage(browser, { context: { viewport: { width: 1280, height: 800 } } });
      page = app.page;
    });
    afterAll(() => app?.context.close());

    it('shows every score on one board, with folded cards one click from their detail', async () => {
      await fillCase(page, SOURCE, SUMMARY, REFERENCE);
      await score(page);
      const board = page.getByTestId('score-board');
      for (const id of OFFLINE_METRIC_IDS) {
        const row = board.getByTestId(`board-${id}`);
        expect(await row.getAttribute('data-status'), id).toBe((await cardState(page, id)).status);
        expect(await row.getAttribute('title'), id).toContain('backend: ');
      }
      // The board is on screen after Score, its top inside the window.
      await expect
        .poll(() => board.evaluate((el) => el.getBoundingClientRect().top))
        .toBeGreaterThanOrEqual(0);
      expect(
        await board.evaluate((el) => el.getBoundingClientRect().top < window.innerHeight / 3),
      ).toBe(true);

      // Folded: the validity note is in the DOM but not shown until the card is opened.
      const card = page.getByTestId('metric-rouge-1');
      expect(await card.getByTestId('validity-note').isVisible()).toBe(false);
      await board.getByTestId('board-rouge-1').click();
      await expect.poll(() => card.getByTestId('validity-note').isVisible()).toBe(true);
      expect(app.errors).toEqual([]);
    });

    it('keeps one history entry for an identical re-score, and adds one for a new case', async () => {
      await waitForSaved(page);
      const before = await historyCount(page);
      await score(page);
      await waitForSaved(page);
      expect(await historyCount(page)).toBe(before);
      await page.getByTestId('summary-input').fill(`${SUMMARY} A ferry runs meanwhile.`);
      await score(page);
      await waitForSaved(page);
      expect(await historyCount(page)).toBe(before + 1);
    });

    it('marks the results stale the moment the summary changes, and after a refused Score', async () => {
      await fillCase(page, SOURCE, SUMMARY, REFERENCE);
      await score(page);
      const board = page.getByTestId('score-board');
      expect(await board.getAttribute('data-stale')).toBeNull();
      expect(await page.getByTestId('metric-rouge-1').getAttribute('data-stale')).toBeNull();

      await page.getByTestId('summary-input').fill(`${SUMMARY} Edited.`);
      expect(await board.getAttribute('data-stale')).toBe('true');
      expect(await page.getByTestId('stale-note').isVisible()).toBe(true);
      expect(await page.getByTestId('metric-rouge-1').getAttribute('data-stale')).toBe('true');
      expect(await page.getByTestId('metric-rouge-1').locator('.badge').innerText()).toMatch(
        /^stale/u,
      );

      // Back to the scored text: the results are that case's again.
      await page.getByTestId('summary-input').fill(SUMMARY);
      expect(await board.getAttribute('data-stale')).toBeNull();

      // A Score refused by validation leaves the previous results, marked stale, and saves nothing.
      const entries = await historyCount(page);
      await page.getByTestId('source-input').fill(`${SOURCE}\u0000\u0000\u0000`);
      await page.getByTestId('score-button').click();
      await expect.poll(() => page.getByTestId('source-input-problem').count()).toBeGreaterThan(0);
      expect(await page.getByTestId('source-input-problem').first().innerText()).toMatch(
        /NUL bytes/u,
      );
      expect(await board.getAttribute('data-stale')).toBe('true');
      expect(await page.getByTestId('metric-rouge-1').getAttribute('data-stale')).toBe('true');
      expect(await historyCount(page)).toBe(entries);
    });

    it('blocks only the metrics a bad setting feeds, with the message next to the field', async () => {
      await fillCase(page, SOURCE, SUMMARY, REFERENCE);
      const settings = page.getByTestId('settings');
      if ((await settings.getAttribute('open')) === null) await settings.locator('summary').click();
      await page.getByTestId('density-target').fill('-0.5');
      await score(page);
      expect((await cardState(page, 'rouge-1')).status).toBe('ok');
      expect((await cardState(page, 'support')).status).toBe('ok');
      expect((await cardState(page, 'entity-density')).status).toBe('error');
      expect(
        await page.getByTestId('metric-entity-density').getByTestId('reason').innerText(),
      ).toMatch(/^Not scored: Entity density target must be at least 0\./u);
      const problem = page.getByTestId('density-target-problem');
      expect(await problem.innerText()).toBe('Entity density target must be at least 0.');
      expect(await page.getByTestId('density-target').getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('body').innerText()).not.toMatch(/Too small|expected number/u);
      await page.getByTestId('density-target').fill('0.15');
      await expect.poll(() => problem.count()).toBe(0);
    });

    it('says once that the LLM metrics were not run for want of a key', async () => {
      const panel = page.getByTestId('judge-panel');
      if ((await panel.getAttribute('open')) === null) await panel.locator('summary').click();
      await page.getByTestId('judge-enabled').check();
      await fillCase(page, SOURCE, SUMMARY, REFERENCE);
      await score(page);
      const notice = page.getByTestId('judge-notice');
      expect(await notice.count()).toBe(1);
      expect(await notice.innerText()).toMatch(/No API key for openai/u);
      const repeated = await page
        .locator('[data-testid^="metric-"]')
        .filter({ hasText: 'No API key' })
        .count();
      expect(repeated).toBe(0);
      expect((await cardState(page, 'rouge-1')).status).toBe('ok');
      await page.getByTestId('judge-enabled').uncheck();
    });

    it('lays Arabic out right to left in the text boxes and the highlighted texts', async () => {
      await fillCase(page, ARABIC_SOURCE, ARABIC_SUMMARY);
      for (const id of ['source-input', 'summary-input']) {
        expect(await page.getByTestId(id).evaluate((el) => el.matches(':dir(rtl)')), id).toBe(true);
      }
      await score(page);
      const directions = await page.evaluate(() => {
        for (const more of document.querySelectorAll<HTMLDetailsElement>(
          '[data-testid="card-more"]',
        ))
          more.open = true;
        return [...document.querySelectorAll('.cards .highlighted')]
          .filter((el) => /[\u0600-\u06ff]/u.test(el.textContent ?? ''))
          .map((el) => el.matches(':dir(rtl)'));
      });
      expect(directions.length).toBeGreaterThan(0);
      expect(directions.every(Boolean), String(directions)).toBe(true);
    });

    it('fits each sidebar select’s chosen label in its box', async () => {
      const cut = await page.evaluate(() => {
        const canvas = document.createElement('canvas').getContext('2d')!;
        const out: string[] = [];
        for (const select of document.querySelectorAll<HTMLSelectElement>('aside select')) {
          if (!select.checkVisibility()) continue;
          const style = getComputedStyle(select);
          canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const label = select.selectedOptions[0]?.textContent?.trim() ?? '';
          const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
          // Room for the text beside the drop-down arrow, times the lines the box has.
          const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
          const lines = Math.max(1, Math.floor((select.clientHeight + 1) / lineHeight));
          const room = (select.clientWidth - padding - 20) * lines;
          if (canvas.measureText(label).width > room)
            out.push(`${label} (${select.clientWidth}px)`);
        }
        return out;
      });
      expect(cut).toEqual([]);
    });

    it('meets WCAG AA for links and body text in dark mode, with dark native controls', async () => {
      await page.emulateMedia({ colorScheme: 'dark' });
      const link = await textContrast(page.locator('[data-testid="validity-note"] a, main a'));
      const text = await textContrast(page.locator('.top p'));
      const body = await textContrast(page.locator('body'));
      const textarea = await textContrast(page.locator('textarea'));
      const ratios = {
        link: link.ratio,
        text: text.ratio,
        body: body.ratio,
        scheme: await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme),
        textarea: textarea.backgroundLuminance,
      };
      expect(ratios.link).toBeGreaterThanOrEqual(4.5);
      expect(ratios.text).toBeGreaterThanOrEqual(4.5);
      expect(ratios.body).toBeGreaterThanOrEqual(4.5);
      expect(ratios.scheme).toContain('dark');
      expect(ratios.textarea).toBeLessThan(0.1);
      await page.emulateMedia({ colorScheme: 'light' });
    });
  });

  describe('on a phone, 390×844', () => {
    let app: AppPage;
    let page: Page;

    beforeAll(async () => {
      app = await openPage(browser, {
        context: {
          viewport: { width: 390, height: 844 },
          deviceScaleFactor: 3,
          isMobile: true,
          hasTouch: true,
        },
      });
      page = app.page;
    });
    afterAll(() => app?.context.close());

    // Against the phone's 390 px, not innerWidth: a mobile browser widens its layout viewport to
    // content that overflows, and innerWidth with it.
    const sideways = () =>
      page.evaluate(
        () => Math.max(document.scrollingElement!.scrollWidth, window.innerWidth) - 390,
      );

    it('has no sideways scroll and no keyboard hint', async () => {
      await page.goto(appOrigin());
      await page.getByTestId('score-button').waitFor();
      expect(await sideways()).toBeLessThanOrEqual(0);
      const actions = await page.locator('.shortcut').innerText();
      expect(actions).toMatch(/computed in this browser/u);
      expect(actions).not.toMatch(/Ctrl\+Enter|⌘\+Enter/u);
    });

    it('brings the score board into view after Score', async () => {
      await fillCase(page, SOURCE, SUMMARY, REFERENCE);
      await score(page);
      const board = page.getByTestId('score-board');
      await expect
        .poll(
          () =>
            board.evaluate((el) => {
              const box = el.getBoundingClientRect();
              return box.top >= -1 && box.top < window.innerHeight / 2;
            }),
          // A smooth scroll on a loaded 2-core machine can outlast the default second.
          { timeout: 10_000 },
        )
        .toBe(true);
      expect(await sideways()).toBeLessThanOrEqual(0);
    });
  });
});
