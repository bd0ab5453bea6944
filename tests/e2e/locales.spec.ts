/**
 * The scored page in each of the five interface languages: the picker switches the whole page (its
 * lang, the form, the cards, the explanations worded from the results' message refs), the choice
 * survives a reload, a browser that prefers Russian opens in Russian, and no language's longer
 * strings cut a label off or push the page sideways at 1280×800 or 390×844. Screenshots go to
 * .tmp/locales/<locale>-<width>.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { fillCase, openApp, openPage, waitForScores, type App } from './support/browser.ts';
import { clippedText, sidewaysScroll } from './support/layout.ts';
import { LOCALES, type Locale } from '../../src/lib/i18n/locales.ts';
import { formatMessage } from '../../src/lib/i18n/message.ts';
import { en, type Catalog } from '../../src/lib/i18n/catalog-en.ts';
import { readDevRows } from '../../src/lib/node/validity/summeval.ts';

const SHOTS = join(process.cwd(), '.tmp', 'locales');
const SIZES = [
  [1280, 800],
  [390, 844],
] as const;

function catalog(locale: Locale): Catalog {
  if (locale === 'en') return en;
  const dir = join(process.cwd(), 'src', 'messages', locale);
  const out: Record<string, string> = {};
  for (const ns of Object.keys(en).map((k) => k.split('.')[0]!)) {
    Object.assign(out, JSON.parse(readFileSync(join(dir, `${ns}.json`), 'utf8')));
  }
  return out as Catalog;
}

async function pick(page: Page, locale: Locale): Promise<void> {
  await page.getByTestId('locale-picker').selectOption(locale);
  await page.waitForFunction((l) => document.documentElement.lang === l, locale);
}

describe('the page in every interface language', () => {
  let app: App;
  let page: Page;
  const [row] = readDevRows(1);
  let englishExplanation = '';
  /** The script each language's wording must show (Indonesian is written in Latin letters). */
  const SCRIPTS: Partial<Record<Locale, RegExp>> = {
    'zh-CN': /\p{Script=Han}/u,
    ja: /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u,
    ru: /\p{Script=Cyrillic}/u,
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    app = await openApp({ context: { viewport: { width: 1280, height: 800 }, locale: 'en-US' } });
    page = app.page;
    await fillCase(page, row!.text, row!.decoded, row!.references[0] ?? '');
    await page.getByTestId('score-button').click();
    await waitForScores(page);
  });

  afterAll(() => app?.close());

  for (const locale of LOCALES) {
    it(`${locale}: the form, the cards and the explanations, with nothing cut off`, async () => {
      await pick(page, locale);
      const words = catalog(locale);
      const say = (key: keyof typeof en, values?: Record<string, string | number>) =>
        formatMessage(locale, words, key, values);
      await expect
        .poll(() => page.getByTestId('score-button').textContent())
        .toContain(say('input.score'));
      expect(await page.title()).toBe(say('app.documentTitle'));
      // An explanation stored by a worker in English is worded from its ref in this language.
      const rouge = page.getByTestId('metric-rouge-1').getByTestId('explanation');
      const text = (await rouge.textContent()) ?? '';
      expect(text.length).toBeGreaterThan(0);
      if (locale === 'en') englishExplanation = text;
      else expect(text).not.toBe(englishExplanation);
      const script = SCRIPTS[locale];
      if (script) expect(text).toMatch(script);
      const problems: string[] = [];
      for (const [width, height] of SIZES) {
        await page.setViewportSize({ width, height });
        await page.screenshot({ path: join(SHOTS, `${locale}-${width}.png`), fullPage: false });
        await page.getByTestId('results').screenshot({
          path: join(SHOTS, `${locale}-${width}-results.png`),
        });
        const sideways = await sidewaysScroll(page);
        if (sideways > 0) problems.push(`${width}: page scrolls ${sideways}px sideways`);
        for (const cut of await clippedText(page.locator('body')))
          problems.push(`${width}: ${cut}`);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
      expect(problems).toEqual([]);
    });
  }

  it('words a detail’s highlights and entity types in the page’s language', async () => {
    const summary =
      'Juice left French Guiana in April 2023 to study the icy moons. It will reach Jupiter in 2031. Juice left French Guiana on a long trip.';
    await fillCase(page, row!.text, summary, '');
    await page.getByTestId('score-button').click();
    await waitForScores(page);
    await pick(page, 'ru');
    const card = page.getByTestId('metric-repetition-offline');
    await card.locator('summary').click();
    const highlights = card.getByTestId('repetition-highlights');
    expect(await highlights.locator('mark[data-label^="said before"]').getAttribute('title')).toBe(
      'уже сказано, на слове 1',
    );
    expect(
      await highlights.locator('mark[data-label^="first said"]').getAttribute('title'),
    ).toMatch(/^впервые сказано здесь \(слово 1\), снова на слове 19$/u);
    await card.locator('summary').click();
    const entities = page.getByTestId('metric-entity-density');
    await entities.locator('summary').click();
    const legend = await entities.locator('.highlight-legend li').allTextContents();
    expect(legend.join(' ')).toMatch(/место|дата/u);
    expect(legend.join(' ')).not.toMatch(/PLACE|DATE/u);
    await entities.locator('summary').click();
    await pick(page, 'en');
  });

  it('keeps the chosen language after a reload', async () => {
    await pick(page, 'ja');
    await page.reload();
    await page.waitForFunction(() => document.documentElement.lang === 'ja');
    expect(await page.getByTestId('locale-picker').inputValue()).toBe('ja');
    await pick(page, 'en');
  });

  it('opens in the browser’s preferred language when none was chosen', async () => {
    const ru = await openPage(app.browser, { context: { locale: 'ru-RU' } });
    try {
      await ru.page.waitForFunction(() => document.documentElement.lang === 'ru');
      expect(await ru.page.getByTestId('score-button').textContent()).toContain(
        formatMessage('ru', catalog('ru'), 'input.score'),
      );
    } finally {
      await ru.context.close();
    }
  });
});
