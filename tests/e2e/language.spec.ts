/**
 * A Chinese case in the app: the page shows the detected language, entity density says n/a with
 * the reason (the built-in recogniser reads English only), and ROUGE's detail names the same
 * tokenizer as its backend line. A data set's rows are detected one by one in the batch worker
 * (cld3 there, under the page's CSP) and a row opened in the form keeps its language. Screenshots
 * at 1280×800 and 390×844 go to /work/shots/language/ when that folder exists. The language
 * worker is started with the page, before any Score.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  cardState,
  fillCase,
  openApp,
  openCard,
  waitForScores,
  type App,
} from './support/browser.ts';
import { importDataset } from './support/datasets.ts';

const SOURCE =
  '研究人员周二表示，这种新型电池可以在十分钟内充满电。该电池由浙江大学的团队开发，预计明年投入生产。' +
  '团队负责人说，这项技术还能降低成本。';
const SUMMARY = '浙江大学的团队开发了一种新型电池，可以在十分钟内充满电，预计明年投入生产。';
const REFERENCE = '浙江大学团队开发的新型电池十分钟即可充满，明年量产。';
const SHOTS = '/work/shots/language';

describe('a Chinese case in Chromium', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({ context: { viewport: { width: 1280, height: 800 } } });
    page = app.page;
  });

  afterAll(() => app?.close());

  it('starts the language worker (and cld3) before the first Score, while the user pastes', async () => {
    // Score waits for the case's language: started on the click, cld3's load was 200–250 ms of
    // the time to the first result on a fresh page.
    await expect
      .poll(() => page.workers().some((w) => /language\.worker/u.test(w.url())), {
        timeout: 10_000,
      })
      .toBe(true);
  });

  it('detects Chinese, says why entity density is n/a, and names one tokenizer', async () => {
    await fillCase(page, SOURCE, SUMMARY, REFERENCE);
    await page.getByTestId('score-button').click();
    await waitForScores(page);

    const line = page.getByTestId('case-language');
    await expect.poll(() => line.getAttribute('data-language')).toBe('zh');
    expect(await line.textContent()).toMatch(/Chinese \(zh\), detected/u);

    const density = await cardState(page, 'entity-density');
    expect(density.status).toBe('n/a');
    const reason = await page
      .getByTestId('metric-entity-density')
      .getByTestId('reason')
      .textContent();
    expect(reason).toMatch(/Chinese text \(zh\)/u);
    expect(reason).toMatch(/bert-base-multilingual-cased-ner-hrl/u);

    const rouge = await cardState(page, 'rouge-1');
    expect(rouge.status).toBe('ok');
    await openCard(page, 'rouge-1');
    const name = await page
      .getByTestId('metric-rouge-1')
      .getByTestId('rouge-tokenizer-name')
      .textContent();
    expect(name).toBeTruthy();
    expect(rouge.backend).toContain(`(porter, ${name})`);
    for (const id of ['token-f1', 'repetition-offline', 'extractiveness']) {
      expect((await cardState(page, id)).backend, id).toContain(name!);
    }

    if (existsSync(SHOTS)) {
      await page.getByTestId('case-language').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/zh-case-1280x800.png`, fullPage: false });
      await page.getByTestId('rouge-tokenizer-name').first().scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/zh-rouge-detail-1280x800.png`, fullPage: false });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByTestId('case-language').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/zh-case-390x844.png`, fullPage: false });
      await page.getByTestId('metric-entity-density').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/zh-entity-density-390x844.png`, fullPage: false });
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(app.errors).toEqual([]);
  });

  it('keeps a chosen language with the case', async () => {
    await page.getByTestId('case-language-choice').selectOption('ja');
    expect(await page.getByTestId('case-language').textContent()).toMatch(/\(ja\), chosen/u);
    await page.getByTestId('case-language-choice').selectOption('auto');
  });
});

const ROWS = [
  { source: SOURCE, summary: SUMMARY },
  {
    source:
      'Researchers said on Tuesday that the new battery charges fully in ten minutes. A team at Zhejiang University built it, and production is expected next year.',
    summary: 'A Zhejiang University team built a battery that charges in ten minutes.',
  },
  {
    source:
      'Во вторник исследователи сообщили, что новая батарея полностью заряжается за десять минут. Её создала команда Чжэцзянского университета, производство ожидается в следующем году.',
    summary: 'Команда университета создала батарею, которая заряжается за десять минут.',
  },
  {
    source:
      'Researchers said on Tuesday that the new battery charges fully in ten minutes. A team at Zhejiang University built it.',
    summary: 'A university team built a battery that charges in ten minutes.',
    language: 'id',
  },
];

describe("a data set's rows in their languages", () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({ context: { viewport: { width: 1280, height: 800 } } });
    page = app.page;
  });

  afterAll(() => app?.close());

  it('detects each row in the batch worker, and an opened row keeps its language', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sumlens-lang-')), 'languages.jsonl');
    writeFileSync(file, ROWS.map((r) => JSON.stringify(r)).join('\n'));
    await importDataset(page, file);
    await page.getByTestId('run-offline').first().click();
    await expect
      .poll(() => page.getByTestId('run-item').first().innerText(), { timeout: 120_000 })
      .toMatch(/done · 4\/4 rows/u);
    await page.getByTestId('run-open').first().click();
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(4);

    const line = page.getByTestId('case-language');
    const expected: Array<[string, RegExp]> = [
      ['zh', /Chinese \(zh\), detected/u],
      // English is told by cld3 only (the script says nothing about Latin text).
      ['en', /English \(en\), detected/u],
      ['ru', /Russian \(ru\), detected/u],
      ['id', /\(id\), chosen/u],
    ];
    for (const [i, [code, text]] of expected.entries()) {
      await page.getByTestId('run-row').nth(i).locator('button').click();
      await expect.poll(() => line.getAttribute('data-language')).toBe(code);
      expect(await line.textContent()).toMatch(text);
      expect(await page.getByTestId('metric-entity-density').getAttribute('data-status')).toBe(
        code === 'en' ? 'ok' : 'n/a',
      );
      if (i === 2 && existsSync(SHOTS)) {
        await line.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/row-ru-opened-1280x800.png`, fullPage: false });
      }
      await page.getByTestId('run-view').scrollIntoViewIfNeeded();
    }
    expect(await page.getByTestId('case-language-choice').inputValue()).toBe('id');
    expect(app.errors).toEqual([]);
  }, 180_000);
});
