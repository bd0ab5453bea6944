/**
 * axe-core (WCAG 2.0/2.1 A and AA rules) on every view, light and dark, in one visit: the
 * single-case page empty and scored, every offline card opened to its detail, the LLM cards opened
 * (the judge answered by the loopback fake provider), the data sets with a SummEval slice imported,
 * the run setup and a finished run, the comparison of two systems, the annotator and the side
 * column's settings. No violation of impact serious or critical may remain; a failure lists each
 * one's rule id, help and target selectors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { fillCase, openApp, openCard, waitForScores, type App } from './support/browser.ts';
import { auditBothSchemes } from './support/axe.ts';
import { importDataset, startedRun } from './support/datasets.ts';
import { configureProvider, tickJudgeMetrics } from './support/llm.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { oracleHandler } from '../helpers/judge-oracle.ts';
import { JUDGE_METRIC_IDS, OFFLINE_METRIC_IDS } from '../../src/lib/metrics/registry.ts';
import { readDevRows, type DevRow } from '../../src/lib/node/validity/summeval.ts';

const LLM_IDS = JUDGE_METRIC_IDS.filter((id) => id !== 'geval-custom');

/** Three SummEval dev articles with two of their systems each: real texts, a small run. */
function summevalSlice(): DevRow[] {
  return readDevRows(3).filter((r) => ['M11', 'M17'].includes(r.model_id));
}

async function openEveryCard(page: Page, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    if ((await page.getByTestId(`metric-${id}`).count()) > 0) await openCard(page, id);
  }
}

describe('axe finds no serious or critical violation on any view, light or dark', () => {
  let app: App;
  let page: Page;
  let fake: FakeLlm;
  const slice = summevalSlice();
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-a11y-'));
  const file = join(dir, 'summeval-a11y.jsonl');
  let runId = '';

  beforeAll(async () => {
    writeFileSync(file, slice.map((r) => JSON.stringify(r)).join('\n') + '\n');
    fake = await startFakeLlm({ requireOpenAiKey: false });
    fake.setHandler(oracleHandler(3));
    app = await openApp({ context: { viewport: { width: 1280, height: 800 } } });
    page = app.page;
  });

  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('the single-case page, empty', async () => {
    await page.getByTestId('score-button').waitFor();
    expect.soft(await auditBothSchemes(page, 'case-empty')).toEqual([]);
  });

  it('the single-case page scored, every card opened to its detail', async () => {
    const [first] = slice;
    await fillCase(page, first!.text, first!.decoded, first!.references[0] ?? '');
    await page.getByTestId('score-button').click();
    await waitForScores(page);
    expect.soft(await auditBothSchemes(page, 'case-scored')).toEqual([]);
    await openEveryCard(page, OFFLINE_METRIC_IDS);
    expect.soft(await auditBothSchemes(page, 'case-cards')).toEqual([]);
  });

  it('the LLM cards, judged by the loopback fake provider, opened', async () => {
    await configureProvider(page, fake, { kind: 'openai-compatible', model: 'llama3.1' });
    const panel = page.getByTestId('judge-panel');
    if ((await panel.getAttribute('open')) === null) await panel.locator('summary').click();
    if (!(await page.getByTestId('judge-enabled').isChecked())) {
      await page.getByTestId('judge-enabled').check();
    }
    await page.getByTestId('judge-samples').fill('1');
    await tickJudgeMetrics(page, LLM_IDS);
    await page.getByTestId('score-button').click();
    await page.waitForFunction(
      (ids) =>
        ids.every((id) =>
          ['ok', 'n/a', 'error'].includes(
            document.querySelector(`[data-testid="metric-${id}"]`)?.getAttribute('data-status') ??
              '',
          ),
        ),
      LLM_IDS,
      { timeout: 90_000 },
    );
    // The judge answered: the cards audited are its results, not its errors.
    expect(await page.getByTestId('metric-geval-coherence').getAttribute('data-status')).toBe('ok');
    await openEveryCard(page, LLM_IDS);
    expect.soft(await auditBothSchemes(page, 'case-llm-cards')).toEqual([]);
  });

  it('the side column with every settings panel open', async () => {
    for (const id of ['provider-settings', 'judge-panel', 'settings', 'model-settings']) {
      const panel = page.getByTestId(id);
      if ((await panel.getAttribute('open')) === null)
        await panel.locator('summary').first().click();
    }
    expect.soft(await auditBothSchemes(page, 'settings')).toEqual([]);
  });

  it('the data sets, with the slice imported, and the run setup', async () => {
    await importDataset(page, file);
    expect.soft(await auditBothSchemes(page, 'datasets')).toEqual([]);
    const dataset = page.getByTestId('dataset-item').filter({ hasText: 'summeval-a11y' });
    await dataset.getByTestId('run-configure').click();
    await page.getByTestId('run-setup').waitFor();
    expect.soft(await auditBothSchemes(page, 'run-setup')).toEqual([]);
  });

  it('a finished run, open', async () => {
    for (const id of OFFLINE_METRIC_IDS) {
      if (id !== 'rouge-1' && id !== 'rouge-l')
        await page.getByTestId(`run-metric-${id}`).uncheck();
    }
    runId = await startedRun(page, () => page.getByTestId('run-start').click());
    const item = page.locator(`[data-testid="run-item"][data-run-id="${runId}"]`);
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    await item.getByTestId('run-open').click();
    await page.locator(`[data-testid="run-view"][data-run-id="${runId}"]`).waitFor();
    await page
      .getByTestId('calibration-table')
      .locator('xpath=ancestor::details')
      .locator('summary')
      .click();
    await page.getByTestId('calibration-table').waitFor();
    expect.soft(await auditBothSchemes(page, 'run')).toEqual([]);
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
    expect.soft(await auditBothSchemes(page, 'compare')).toEqual([]);
  });

  it('the annotator, one rating given', async () => {
    await page
      .getByTestId('dataset-item')
      .filter({ hasText: 'summeval-a11y' })
      .getByTestId('annotate-open')
      .click();
    await page.getByTestId('annotate-progress').waitFor();
    const coherence = page.getByTestId('annotate-dim-coherence');
    await coherence.getByRole('button', { name: '4', exact: true }).click();
    await expect.poll(() => coherence.getAttribute('data-value')).toBe('4');
    expect.soft(await auditBothSchemes(page, 'annotate')).toEqual([]);
  });
});
