/**
 * A 300,000-word source (1.7 M characters, the paste the issue reports) pasted with a real Ctrl+V:
 * the source field keeps the whole text but shows its start and end instead of a text box, typing
 * in the summary box echoes while the words are still being counted, the count settles on the
 * right number, and the draft survives a reload whole. A text over the scoring limit is kept as the
 * draft and Score says why it cannot run. Timing is `npm run bench:long-paste`'s job: nothing here
 * asserts a duration. Screenshots of the field go to /work/shots/long-text/ when that folder exists.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { longText, type LongText } from '../../bench/long-paste-text.ts';
import { MAX_TEXT_CHARS } from '../../src/lib/input/validate-case.ts';
import { LARGE_TEXT_CHARS } from '../../src/lib/input/long-text.ts';
import { openApp, type App } from './support/browser.ts';
import { shootViews } from './support/layout.ts';

const SHOTS = '/work/shots/long-text';

/** Puts `text` on the clipboard and pastes it into the focused box as a person does. */
async function paste(page: Page, testid: string, text: string): Promise<void> {
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.getByTestId(testid).focus();
  await page.keyboard.press('ControlOrMeta+V');
}

/** The source length and summary of the draft in IndexedDB, read with the bare API. */
function storedDraft(page: Page): Promise<{ sourceChars: number; summary: string } | null> {
  return page.evaluate(
    () =>
      new Promise<{ sourceChars: number; summary: string } | null>((done) => {
        const open = indexedDB.open('sumlens');
        open.onerror = () => done(null);
        open.onsuccess = () => {
          const db = open.result;
          const get = db.transaction('drafts').objectStore('drafts').get('current');
          get.onsuccess = () => {
            const draft = get.result as { input: { source: string; summary: string } } | undefined;
            db.close();
            done(
              draft
                ? { sourceChars: draft.input.source.length, summary: draft.input.summary }
                : null,
            );
          };
          get.onerror = () => (db.close(), done(null));
        };
      }),
  );
}

const wordsShown = (page: Page, testid: string) =>
  page.getByTestId(`${testid}-words`).getAttribute('data-words');

describe('a 300,000-word paste', () => {
  let app: App;
  let page: Page;
  let source: LongText;

  beforeAll(async () => {
    source = longText(300_000);
    app = await openApp({
      context: {
        viewport: { width: 1280, height: 800 },
        permissions: ['clipboard-read', 'clipboard-write'],
      },
    });
    page = app.page;
    await page.getByTestId('source-input').waitFor();
  });

  afterAll(() => app?.close());

  it('keeps the whole text, shown by its start and end, and typing echoes while it is counted', async () => {
    // The page's own record of when the summary echoed a key and when the count settled.
    await page.evaluate(() => {
      const events: string[] = [];
      (window as unknown as { __events: string[] }).__events = events;
      document.addEventListener('input', (event) => {
        const target = event.target as HTMLElement;
        if (target.dataset['testid'] === 'summary-input') events.push('summary typed');
        if (target.dataset['testid'] === 'source-input') events.push('source box took the text');
      });
      new MutationObserver(() => {
        const counter = document.querySelector('[data-testid="source-input-words"]');
        const state = counter?.getAttribute('data-state') ?? 'none';
        if (events.at(-1) !== `count ${state}`) events.push(`count ${state}`);
      }).observe(document.body, {
        subtree: true,
        attributes: true,
        attributeFilter: ['data-state'],
      });
    });
    await paste(page, 'source-input', source.text);
    await page.getByTestId('summary-input').focus();
    await page.keyboard.type('A summary.');
    await expect.poll(() => page.getByTestId('summary-input').inputValue()).toBe('A summary.');

    const large = page.getByTestId('source-input-large');
    await expect.poll(() => large.getAttribute('data-chars')).toBe(String(source.text.length));
    // No text box holds the 1.7 M characters: its layout alone blocked the page for a second.
    expect(await page.getByTestId('source-input').count()).toBe(0);
    const preview = await page.getByTestId('source-input-preview').innerText();
    expect(preview.startsWith(source.text.slice(0, 100))).toBe(true);
    expect(preview.trimEnd().endsWith(source.text.slice(-100).trimEnd())).toBe(true);

    await expect
      .poll(() => wordsShown(page, 'source-input'), { timeout: 60_000 })
      .toBe(String(source.words));
    const events = await page.evaluate(
      () => (window as unknown as { __events: string[] }).__events,
    );
    // The page took the paste into the case; the browser never put 1.7 M characters in the box.
    expect(events).not.toContain('source box took the text');
    // The key was echoed before the count was on screen: the page did not wait for the count.
    expect(events.indexOf('count counting')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('summary typed')).toBeGreaterThan(events.indexOf('count counting'));
    expect(events.indexOf('count counted')).toBeGreaterThan(events.indexOf('summary typed'));
  });

  it('saves the draft whole and shows it again after a reload, counted the same', async () => {
    await expect
      .poll(() => storedDraft(page))
      .toEqual({ sourceChars: source.text.length, summary: 'A summary.' });
    await page.reload();
    await expect
      .poll(() => page.getByTestId('source-input-large').getAttribute('data-chars'))
      .toBe(String(source.text.length));
    expect(await page.getByTestId('summary-input').inputValue()).toBe('A summary.');
    await expect
      .poll(() => wordsShown(page, 'source-input'), { timeout: 60_000 })
      .toBe(String(source.words));
    // Still typeable: the summary box takes keys after the reload.
    await page.getByTestId('summary-input').focus();
    await page.keyboard.press('End');
    await page.keyboard.type(' More.');
    await expect
      .poll(() => page.getByTestId('summary-input').inputValue())
      .toBe('A summary. More.');
  });

  it('shows the field at 1280×800 and 390×844, light and dark, without sideways scroll', async () => {
    if (!existsSync(SHOTS)) return;
    const problems = await shootViews(page, SHOTS, 'large-source', () => page.locator('form.case'));
    expect(problems).toEqual([]);
  });
});

describe('a text just over what a box holds', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({
      context: {
        viewport: { width: 1280, height: 800 },
        permissions: ['clipboard-read', 'clipboard-write'],
      },
    });
    page = app.page;
  });

  afterAll(() => app?.close());

  it('pastes a short text into the box as usual, and clears or edits a long one in full', async () => {
    await paste(page, 'reference-input', 'A short reference.');
    expect(await page.getByTestId('reference-input').inputValue()).toBe('A short reference.');
    await expect.poll(() => wordsShown(page, 'reference-input')).toBe('3');

    const text = longText(40_000).text;
    expect(text.length).toBeGreaterThan(LARGE_TEXT_CHARS);
    await paste(page, 'source-input', text);
    await page.getByTestId('source-input-large').waitFor();
    await page.getByTestId('source-input-clear').click();
    expect(await page.getByTestId('source-input').inputValue()).toBe('');
    // The box is back and has the keyboard, for the next paste.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')))
      .toBe('source-input');
    await expect.poll(() => wordsShown(page, 'source-input')).toBe('0');

    await paste(page, 'source-input', text);
    await page.getByTestId('source-input-edit-full').click();
    expect((await page.getByTestId('source-input').inputValue()).length).toBe(text.length);
    await expect.poll(() => wordsShown(page, 'source-input')).toBe('40000');
  });
});

describe('a text over the scoring limit', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({
      context: {
        viewport: { width: 1280, height: 800 },
        permissions: ['clipboard-read', 'clipboard-write'],
      },
    });
    page = app.page;
  });

  afterAll(() => app?.close());

  it('is kept as the draft, and Score says why it cannot run', async () => {
    const text = longText(360_000).text;
    expect(text.length).toBeGreaterThan(MAX_TEXT_CHARS);
    await paste(page, 'source-input', text);
    const note = page.getByTestId('source-input-large').locator('[role="alert"]');
    await expect.poll(() => note.innerText()).toMatch(/SumLens scores texts up to 2,000,000/u);
    await page.getByTestId('summary-input').fill('A summary.');
    await page.getByTestId('score-button').click();
    await expect
      .poll(() => page.getByTestId('source-input-problem').allInnerTexts())
      .toEqual([expect.stringMatching(/characters; SumLens scores texts up to 2,000,000/u)]);
    await expect
      .poll(() => storedDraft(page))
      .toEqual({ sourceChars: text.length, summary: 'A summary.' });
  });
});
