/**
 * The app from the keyboard alone: Tab, Shift+Tab, Enter, Space, arrow keys and Escape, typed
 * text, no click, no fill. A case is typed and scored with Ctrl+Enter, the focus lands on this
 * score's board and the result is announced; a card's detail opens from its board row and Escape
 * folds it and returns the focus to that row; a data set is imported through the file chooser
 * opened with Enter; a run is started, paused and resumed, and its results take the focus when it
 * ends; a row is rated in the annotator; and two runs are compared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';
import { listedRunIds } from './support/datasets.ts';
import { readDevRows, type DevRow } from '../../src/lib/node/validity/summeval.ts';

const SHOTS = '/work/shots/a11y';
const SOURCE =
  'The city council voted to close the old bridge on Monday. Repairs would cost four million euros. ' +
  'A ferry will carry commuters until a new bridge opens in 2027.';
const SUMMARY = 'The council closed the old bridge; a ferry runs until the new one opens in 2027.';
/** The metrics kept for the runs: enough work per row that a pause lands before the end. */
const RUN_METRICS = new Set(['rouge-l', 'rouge-1', 'coherence', 'redundancy']);

function summevalSlice(): DevRow[] {
  return readDevRows(3).filter((r) => ['M11', 'M17'].includes(r.model_id));
}

/** What has the focus: its test id (or tag), for failure messages and checks. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    return el.getAttribute('data-testid') ?? el.tagName.toLowerCase();
  });
}

function focusMatches(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);
}

/**
 * Presses Tab (Shift+Tab with `back`) until the focus is on `selector`; fails when it is not
 * reached in `max` presses: the element cannot be reached from the keyboard.
 */
async function tabTo(
  page: Page,
  selector: string,
  { back = false, max = 150 }: { back?: boolean; max?: number } = {},
): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await focusMatches(page, selector)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  if (await focusMatches(page, selector)) return;
  throw new Error(
    `${selector} not reached by ${back ? 'Shift+Tab' : 'Tab'} (at ${await focused(page)})`,
  );
}

/** The focused element has a visible focus ring (:focus-visible with an outline or a shadow). */
function hasFocusRing(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || !el.matches(':focus-visible')) return false;
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    return outline || style.boxShadow !== 'none';
  });
}

/**
 * Presses ArrowDown on the focused select until it holds the whole run `runId` (not one of its
 * systems, whose options come after the run's own).
 */
async function chooseRun(page: Page, runId: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    const chosen = await page.evaluate((id) => {
      const select = document.activeElement as HTMLSelectElement;
      const label = select.selectedOptions[0]?.textContent ?? '';
      return select.value.startsWith(id) && !label.startsWith('system');
    }, runId);
    if (chosen) return;
    await page.keyboard.press('ArrowDown');
  }
  throw new Error(`run ${runId} not reached with ArrowDown`);
}

describe('the keyboard alone', () => {
  let app: App;
  let page: Page;
  const slice = summevalSlice();
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-keyboard-'));
  const file = join(dir, 'summeval-keys.jsonl');
  const runs: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    writeFileSync(file, slice.map((r) => JSON.stringify(r)).join('\n') + '\n');
    app = await openApp({ context: { viewport: { width: 1280, height: 900 } } });
    page = app.page;
    // Playwright intercepts file choosers only while a listener is on, and turning that on is an
    // asynchronous message of its own: switched on here, long before the Enter that opens one,
    // it cannot lose that race (on CI's slower machine the chooser was lost).
    page.on('filechooser', () => undefined);
    await page.getByTestId('score-button').waitFor();
  });

  afterAll(() => app?.close());

  it('types a case, scores it with Ctrl+Enter, and lands on this score’s board', async () => {
    await tabTo(page, '[data-testid="source-input"]');
    expect(await hasFocusRing(page)).toBe(true);
    await page.keyboard.type(SOURCE);
    await tabTo(page, '[data-testid="summary-input"]');
    await page.keyboard.type(SUMMARY);
    expect(await page.getByTestId('summary-input').inputValue()).toBe(SUMMARY);
    const before = Number(await page.getByTestId('results').getAttribute('data-run'));
    await page.keyboard.press('Control+Enter');
    const mine = `[data-testid="results"][data-run="${before + 1}"][aria-busy="false"]`;
    await page.locator(mine).waitFor({ timeout: 90_000 });
    // The focus moves to the board (no typing since Score) and the result is announced.
    await expect.poll(() => focused(page)).toBe('score-board');
    expect(await page.getByTestId('results-announcement').innerText()).toMatch(
      /^Results ready: \d+ scores?, \d+ n\/a, \d+ errors?\.$/u,
    );
    await page.screenshot({ path: join(SHOTS, 'keyboard-board-focused.png') });
  });

  it('opens a card’s detail from its board row; Escape folds it and returns to the row', async () => {
    await tabTo(page, '[data-testid="board-rouge-l"]');
    expect(await hasFocusRing(page)).toBe(true);
    // (the board whole: the ring lies outside the row's own box)
    await page.getByTestId('score-board').screenshot({ path: join(SHOTS, 'board-row-focus.png') });
    await page.keyboard.press('Enter');
    const more = page.getByTestId('metric-rouge-l').getByTestId('card-more');
    await expect.poll(() => more.getAttribute('open')).not.toBeNull();
    expect(await focusMatches(page, '[data-testid="metric-rouge-l"] summary')).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => more.getAttribute('open')).toBeNull();
    expect(await focused(page)).toBe('board-rouge-l');
    // A card opened on its own summary folds with Escape and keeps the focus there.
    await tabTo(page, '[data-testid="metric-coherence"] summary');
    await page.keyboard.press('Enter');
    const coherence = page.getByTestId('metric-coherence').getByTestId('card-more');
    await expect.poll(() => coherence.getAttribute('open')).not.toBeNull();
    await page.keyboard.press('Escape');
    await expect.poll(() => coherence.getAttribute('open')).toBeNull();
    expect(await focusMatches(page, '[data-testid="metric-coherence"] summary')).toBe(true);
  });

  it('imports a data set through the file chooser opened with Enter', async () => {
    await tabTo(page, '[data-testid="dataset-file"]');
    expect(await hasFocusRing(page)).toBe(true);
    // (choosers are intercepted since beforeAll; the click mark tells a lost chooser from an
    // Enter that never activated the input)
    const chooser = page.waitForEvent('filechooser', { timeout: 20_000 });
    await page.evaluate(() => {
      const input = document.querySelector('[data-testid="dataset-file"]')!;
      input.addEventListener('click', () => input.setAttribute('data-activated', 'yes'), {
        once: true,
      });
    });
    await page.keyboard.press('Enter');
    const opened = await chooser.catch(async (error: unknown) => {
      const activated = await page.getByTestId('dataset-file').getAttribute('data-activated');
      throw new Error(
        `no file chooser after Enter (input activated: ${activated ?? 'no'}, focus at ${await focused(page)}): ${String(error)}`,
      );
    });
    await opened.setFiles(file);
    await expect
      .poll(() => page.getByTestId('dataset-item').filter({ hasText: 'summeval-keys' }).count(), {
        timeout: 60_000,
      })
      .toBe(1);
  });

  /** Opens the run setup of the data set, keeps RUN_METRICS (Space on the others), starts. */
  async function startRun(): Promise<string> {
    await tabTo(page, '[data-testid="dataset-item"] [data-testid="run-configure"]');
    await page.keyboard.press('Enter');
    await page.getByTestId('run-setup').waitFor();
    const listed = new Set(await listedRunIds(page));
    for (let i = 0; i < 150 && !(await focusMatches(page, '[data-testid="run-start"]')); i++) {
      await page.keyboard.press('Tab');
      const metric = await page.evaluate(() => {
        const el = document.activeElement as HTMLInputElement | null;
        const id = el?.getAttribute('data-testid') ?? '';
        return id.startsWith('run-metric-') && el!.checked ? id.slice('run-metric-'.length) : '';
      });
      if (metric && !RUN_METRICS.has(metric)) await page.keyboard.press('Space');
    }
    expect(await focused(page)).toBe('run-start');
    await page.keyboard.press('Enter');
    let id = '';
    await expect
      .poll(async () => (id = (await listedRunIds(page)).find((r) => !listed.has(r)) ?? ''), {
        timeout: 30_000,
      })
      .not.toBe('');
    return id;
  }

  it('starts a run, pauses and resumes it, and lands on its results when it ends', async () => {
    const id = await startRun();
    runs.push(id);
    const item = `[data-testid="run-item"][data-run-id="${id}"]`;
    await tabTo(page, `${item} [data-testid="run-pause"]`);
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator(item).getAttribute('data-state'), { timeout: 60_000 })
      .toBe('paused');
    // The Resume that replaced Pause has the focus: Enter goes on.
    await expect.poll(() => focused(page)).toBe('run-continue');
    expect(await hasFocusRing(page)).toBe(true);
    await page.locator(item).screenshot({ path: join(SHOTS, 'run-resume-focus.png') });
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator(item).getAttribute('data-status'), { timeout: 90_000 })
      .toBe('done');
    await expect
      .poll(() => focusMatches(page, `[data-testid="run-view"][data-run-id="${id}"] h3`))
      .toBe(true);
    expect(await page.getByTestId('run-announcement').innerText()).toMatch(
      /^Run .+ finished: 6 rows scored, 0 failed\.$/u,
    );
  });

  it('rates a row in the annotator', async () => {
    await tabTo(page, '[data-testid="dataset-item"] [data-testid="annotate-open"]', { back: true });
    await page.keyboard.press('Enter');
    await page.getByTestId('annotate-progress').waitFor();
    const coherence = page.getByTestId('annotate-dim-coherence');
    await tabTo(page, '[data-testid="annotate-dim-coherence"] button[tabindex="0"]');
    expect(await hasFocusRing(page)).toBe(true);
    await page.keyboard.press('4');
    await expect.poll(() => coherence.getAttribute('data-value')).toBe('4');
    await expect
      .poll(() => page.getByTestId('annotate-view').getAttribute('data-pending'))
      .toBe('0');
    await tabTo(page, '[data-testid="annotate-close"]', { back: true });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('annotate-view').count()).toBe(0);
  });

  it('compares two runs', async () => {
    runs.push(await startRun());
    const second = `[data-testid="run-item"][data-run-id="${runs[1]}"]`;
    await expect
      .poll(() => page.locator(second).getAttribute('data-status'), { timeout: 90_000 })
      .toBe('done');
    await tabTo(
      page,
      `[data-testid="run-item"][data-run-id="${runs[0]}"] [data-testid="run-compare"]`,
      {
        back: true,
      },
    );
    await page.keyboard.press('Enter');
    await page.getByTestId('compare-view').waitFor();
    await tabTo(page, '[data-testid="compare-b"]');
    expect(await hasFocusRing(page)).toBe(true);
    await chooseRun(page, runs[1]!);
    await expect.poll(() => page.getByTestId('compare-view').getAttribute('data-b')).toBe(runs[1]);
    await page.locator('[data-testid="compare-metric"][data-column="rouge-l"]').waitFor();
    await page
      .getByTestId('compare-view')
      .screenshot({ path: join(SHOTS, 'compare-select-focus.png') });
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  });
});
