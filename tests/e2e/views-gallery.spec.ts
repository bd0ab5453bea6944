/**
 * Every view of the app, in one visit, at 1280×800 and 390×844, light and dark: the single-case
 * page empty, scored on a SummEval case (score board and cards), one card's detail, the data sets
 * with an imported SummEval slice, a finished run, the comparison of two of its systems, the
 * annotator, the side column's settings, an import that needed care (a stray quote, Windows-1252
 * text, a repeated id) and a G-Eval criterion refused at its field. Each view × size × scheme is
 * saved as a PNG under
 * .tmp/views/ (to look at) and must have no sideways page scroll, no button or label whose text is
 * cut off, and body text and links at WCAG AA contrast with their background in both schemes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { fillCase, openApp, openCard, waitForScores, type App } from './support/browser.ts';
import { textContrast } from './support/contrast.ts';
import { clippedText, sidewaysScroll } from './support/layout.ts';
import { importDataset, startedRun } from './support/datasets.ts';
import { OFFLINE_METRIC_IDS } from '../../src/lib/metrics/registry.ts';
import { readDevRows, type DevRow } from '../../src/lib/node/validity/summeval.ts';

const SIZES = [
  [1280, 800],
  [390, 844],
] as const;
const SCHEMES = ['light', 'dark'] as const;
const SHOTS = join(process.cwd(), '.tmp', 'views');

/** Three SummEval dev articles with two of their systems each: real texts, a small run. */
function summevalSlice(): DevRow[] {
  const systems = ['M11', 'M17'];
  return readDevRows(3).filter((r) => systems.includes(r.model_id));
}

interface ViewCheck {
  /** File name stem: `.tmp/views/<name>-<width>-<scheme>.png`. */
  name: string;
  /** The view's element; its screenshot is the element whole, however tall. */
  view: () => Locator;
  /** Texts (CSS, inside the view) whose contrast must reach 4.5:1 in both schemes; the first visible. */
  contrast: readonly string[];
  /** The window instead of the element (the page as it opens). */
  window?: boolean;
}

/** Shoots and checks one view at every size and scheme; answers every problem found. */
async function inspect(page: Page, check: ViewCheck): Promise<string[]> {
  const problems: string[] = [];
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      const view = check.view();
      await view.scrollIntoViewIfNeeded();
      // The charts redraw in the scheme's colours a frame after the change.
      await page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
      );
      const path = join(SHOTS, `${check.name}-${width}-${scheme}.png`);
      if (check.window) await page.screenshot({ path });
      else await view.screenshot({ path });
      const where = `${check.name} ${width} ${scheme}`;
      const sideways = await sidewaysScroll(page);
      if (sideways > 0) problems.push(`${where}: page scrolls ${sideways}px sideways`);
      for (const cut of await clippedText(view)) problems.push(`${where}: ${cut}`);
      for (const selector of check.contrast) {
        const target = view.locator(selector).filter({ visible: true });
        if ((await target.count()) === 0) {
          problems.push(`${where}: nothing visible matches ${selector}`);
          continue;
        }
        const measured = await textContrast(target);
        if (measured.ratio < 4.5) {
          problems.push(
            `${where}: ${selector} "${measured.text}" contrast ${measured.ratio.toFixed(2)}`,
          );
        }
      }
    }
  }
  await page.setViewportSize({ width: SIZES[0][0], height: SIZES[0][1] });
  await page.emulateMedia({ colorScheme: 'light' });
  return problems;
}

describe('every view at both widths and in both schemes', () => {
  let app: App;
  let page: Page;
  const slice = summevalSlice();
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-gallery-'));
  const file = join(dir, 'summeval-gallery.jsonl');
  let runId = '';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    writeFileSync(file, slice.map((r) => JSON.stringify(r)).join('\n') + '\n');
    app = await openApp({ context: { viewport: { width: 1280, height: 800 } } });
    page = app.page;
  });

  afterAll(() => app?.close());

  it('has the slice it needs: three articles by two systems', () => {
    expect(slice).toHaveLength(6);
  });

  it('the single-case page, empty', async () => {
    await page.getByTestId('score-button').waitFor();
    const problems = await inspect(page, {
      name: 'case-empty',
      view: () => page.locator('body'),
      contrast: ['.top p', 'label', '.shortcut', 'textarea'],
      window: true,
    });
    expect(problems).toEqual([]);
  });

  it('the single-case page, scored on a SummEval case', async () => {
    const [first] = slice;
    await fillCase(page, first!.text, first!.decoded, first!.references[0] ?? '');
    await page.getByTestId('score-button').click();
    await waitForScores(page);
    expect(await page.getByTestId('score-board').getByRole('button').count()).toBe(
      OFFLINE_METRIC_IDS.length,
    );
    const problems = await inspect(page, {
      name: 'case-scored',
      view: () => page.getByTestId('results'),
      contrast: [
        '[data-testid="score-board"] .label',
        '.score .value',
        '[data-testid="explanation"]',
      ],
    });
    expect(problems).toEqual([]);
  });

  it('one card opened to its detail', async () => {
    await openCard(page, 'coherence');
    const problems = await inspect(page, {
      name: 'case-card',
      view: () => page.getByTestId('metric-coherence'),
      contrast: ['[data-testid="validity-note"] a', '.meaning', '.detail-table td', '.backend'],
    });
    expect(problems).toEqual([]);
  });

  it('the data sets, with the SummEval slice imported', async () => {
    await importDataset(page, file);
    const problems = await inspect(page, {
      name: 'datasets',
      view: () => page.getByTestId('datasets'),
      contrast: ['.note', '[data-testid="dataset-item"] td', 'button.primary'],
    });
    expect(problems).toEqual([]);
  });

  it('a finished run of two metrics, open', async () => {
    const dataset = page.getByTestId('dataset-item').filter({ hasText: 'summeval-gallery' });
    await dataset.getByTestId('run-configure').click();
    await page.getByTestId('run-setup').waitFor();
    for (const id of OFFLINE_METRIC_IDS) {
      if (id !== 'rouge-1' && id !== 'rouge-l')
        await page.getByTestId(`run-metric-${id}`).uncheck();
    }
    runId = await startedRun(page, () => page.getByTestId('run-start').click());
    const item = page.locator(`[data-testid="run-item"][data-run-id="${runId}"]`);
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    await item.getByTestId('run-open').click();
    await page.locator(`[data-testid="run-view"][data-run-id="${runId}"]`).waitFor();
    // The calibration's widest table open too: it must scroll in its box, not the page.
    await page
      .getByTestId('calibration-table')
      .locator('xpath=ancestor::details')
      .locator('summary')
      .click();
    await page.getByTestId('calibration-table').waitFor();
    const problems = await inspect(page, {
      name: 'run',
      view: () => page.getByTestId('datasets'),
      contrast: [
        `[data-run-id="${runId}"] .name`,
        '[data-testid="run-summary"] td',
        '[data-testid="run-rows"] button.link',
        '[data-testid="run-compare"]',
        '[data-testid="calibration-cell"].strong',
      ],
    });
    expect(problems).toEqual([]);
  });

  it('two systems of that run compared', async () => {
    const item = page.locator(`[data-testid="run-item"][data-run-id="${runId}"]`);
    await item.getByTestId('run-compare').click();
    await page.getByTestId('compare-view').waitFor();
    await expect
      .poll(() => page.locator('[data-testid="compare-b"] option').count())
      .toBeGreaterThan(2);
    const optionValue = async (system: string) =>
      (await page
        .locator('[data-testid="compare-b"] option', { hasText: `system ${system}` })
        .first()
        .getAttribute('value'))!;
    await page.getByTestId('compare-a').selectOption(await optionValue('M11'));
    await page.getByTestId('compare-b').selectOption(await optionValue('M17'));
    await page.locator('[data-testid="compare-metric"][data-column="rouge-l"]').waitFor();
    const problems = await inspect(page, {
      name: 'compare',
      view: () => page.getByTestId('compare-view'),
      contrast: ['.note', '[data-testid="compare-metric"]'],
    });
    expect(problems).toEqual([]);
  });

  it('the annotator on the SummEval slice, one rating given', async () => {
    await page
      .getByTestId('dataset-item')
      .filter({ hasText: 'summeval-gallery' })
      .getByTestId('annotate-open')
      .click();
    await page.getByTestId('annotate-progress').waitFor();
    const coherence = page.getByTestId('annotate-dim-coherence');
    await coherence.getByRole('button', { name: '4', exact: true }).click();
    await expect.poll(() => coherence.getAttribute('data-value')).toBe('4');
    const problems = await inspect(page, {
      name: 'annotate',
      view: () => page.getByTestId('annotate-view'),
      contrast: ['[data-testid="annotate-progress"]', '[data-testid="annotate-summary"]', 'h4'],
    });
    expect(problems).toEqual([]);
  });

  it('the side column with every settings panel open', async () => {
    for (const id of ['provider-settings', 'judge-panel', 'settings', 'model-settings']) {
      const panel = page.getByTestId(id);
      if ((await panel.getAttribute('open')) === null)
        await panel.locator('summary').first().click();
    }
    const problems = await inspect(page, {
      name: 'sidebar',
      view: () => page.locator('aside'),
      contrast: ['.settings-panel label', '.settings-panel .note', '.settings-panel legend'],
    });
    expect(problems).toEqual([]);
    expect(app.requests.foreign()).toEqual([]);
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  });

  it('an import that needed care: a stray quote, Windows-1252 text and a repeated id', async () => {
    // Windows-1252 bytes (é, ü, € = 0x80), a quote left open in row 4, row 5 repeating row 2's id.
    const lines = [
      'id,source,summary',
      'a1,"Le café de Müller ouvre à huit heures.","Müller ouvre son café."',
      'a2,"Le prix monte de 3 € par mois.","Le prix monte."',
      'a3,"Une source "mal fermée,"Un résumé."',
      'a2,"Une autre source, toute simple.","Un autre résumé."',
      'a5,"La dernière source.","Le dernier résumé."',
    ];
    const text = lines.join('\r\n') + '\r\n';
    const bytes = Buffer.from([...text].map((ch) => (ch === '€' ? 0x80 : ch.charCodeAt(0))));
    const csv = join(dir, 'needed-care.csv');
    writeFileSync(csv, bytes);
    await importDataset(page, csv);
    const imported = page.getByTestId('dataset-import');
    await expect.poll(() => imported.getAttribute('data-done')).toBe('true');
    expect(await page.getByTestId('mapping-read-as').innerText()).toMatch(/Windows-1252/u);
    expect(await page.getByTestId('dataset-duplicate-ids').innerText()).toMatch(/a2/u);
    const dropped = imported
      .locator('details')
      .filter({ has: page.getByTestId('dataset-problems') });
    await dropped.locator('summary').click();
    expect(await page.getByTestId('dataset-problems').innerText()).toMatch(/row 4/u);
    const problems = await inspect(page, {
      name: 'import-needed-care',
      view: () => imported,
      contrast: [
        '[data-testid="mapping-read-as"]',
        '[data-testid="dataset-problems"] li',
        '[data-testid="dataset-duplicate-ids"] li',
      ],
    });
    expect(problems).toEqual([]);
  });

  it('a G-Eval criterion whose name is too long, refused at its field', async () => {
    const panel = page.getByTestId('judge-panel');
    if ((await panel.getAttribute('open')) === null) await panel.locator('summary').first().click();
    // (the judge's settings show once LLM metrics are on; no key is needed to type them)
    await page.getByTestId('judge-enabled').check();
    await page.getByTestId('criterion-name').fill('x'.repeat(81));
    const problem = page.getByTestId('criterion-name-problem');
    await expect.poll(() => problem.innerText()).toMatch(/80/u);
    const problems = await inspect(page, {
      name: 'judge-criterion-too-long',
      view: () => panel,
      contrast: ['[data-testid="criterion-name-problem"]', 'label'],
    });
    expect(problems).toEqual([]);
    await page.getByTestId('criterion-name').fill('');
    await page.getByTestId('judge-enabled').uncheck();
  });
});
