/**
 * Views that put metrics beside people (issue 29): a SummEval-shaped data set with expert
 * ratings and three systems (good, middling, unrelated), scored offline. The charts open on the
 * quality estimate against the experts' mean; the row table shows id, system and the ratings,
 * sorts by a rating and filters by system; the comparison of the good system with the unrelated
 * one opens on the quality estimate and its gate line says "regressed" exactly where the
 * command line's gate (regressionGate over compareSides) does; the leaderboard shows each
 * system's expert mean and the system-level Kendall τ-b computed here by hand; the HTML export's
 * forest plot draws one axis per metric. Screenshots at 1280×800 and 390×844, light and dark.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';
import { importDataset, listedRun, startedRun, storedRecords } from './support/datasets.ts';
import { clippedText, shootViews } from './support/layout.ts';
import { OFFLINE_METRIC_IDS } from '../../src/lib/metrics/registry.ts';
import { compareSides, type SideData } from '../../src/lib/datasets/compare.ts';
import { regressionGate } from '../../src/lib/datasets/regression-gate.ts';
import { kendallTauB } from '../../src/lib/stats/correlation.ts';
import type { StoredRun, StoredRunResult } from '../../src/lib/storage/schema.ts';
import type { DatasetRow } from '../../src/lib/rows/formats.ts';

const ARTICLES = [
  'The city council approved a new budget on Tuesday. It raises spending on schools and parks. The mayor called it a fair plan for every district.',
  'A storm knocked out power to thousands of homes overnight. Crews worked until morning to restore it. Schools in the north opened two hours late.',
  'The museum reopened after two years of renovation. Its new wing shows modern art from the region. Entry is free on Sundays until the summer.',
  'Scientists found a new species of frog in the rainforest. It is smaller than a coin. The team named it after a local village near the river.',
  'The national team won the final in a penalty shootout. The goalkeeper saved two shots. Fans celebrated in the main square until dawn.',
  'A new rail line will link the airport with the city centre. Trains will run every ten minutes. The line opens next spring after three years of work.',
];
const SUMMARIES: Record<string, string[]> = {
  M1: [
    'The city council approved a new budget that raises spending on schools and parks.',
    'A storm knocked out power to thousands of homes; crews restored it by morning.',
    'The museum reopened after renovation with a new wing of modern art.',
    'Scientists found a new species of frog, smaller than a coin, in the rainforest.',
    'The national team won the final in a penalty shootout as the goalkeeper saved two shots.',
    'A new rail line will link the airport with the city centre, opening next spring.',
  ],
  M2: [
    'A budget was approved.',
    'Power went out after a storm.',
    'A museum reopened.',
    'A frog was found.',
    'A team won a final.',
    'A rail line is planned.',
  ],
  M3: [
    'Prices of apples rose in several markets.',
    'The concert was cancelled because of the rain.',
    'Many people enjoy reading books at night.',
    'A bakery sold bread and cakes on Friday.',
    'The weather will be cloudy with light wind.',
    'Students wrote essays about their holidays.',
  ],
};
/** Per system, the experts' ratings before a small per-article wobble. */
const RATINGS: Record<
  string,
  { coherence: number; consistency: number; fluency: number; relevance: number }
> = {
  M1: { coherence: 4.3, consistency: 4.8, fluency: 4.6, relevance: 4.4 },
  M2: { coherence: 3, consistency: 4, fluency: 3.4, relevance: 2.6 },
  M3: { coherence: 2, consistency: 1.2, fluency: 3.8, relevance: 1 },
};
const SYSTEMS = ['M1', 'M2', 'M3'];

function ratingsOf(system: string, article: number) {
  const base = RATINGS[system]!;
  const wobble = ((article % 3) - 1) * 0.2;
  return {
    coherence: base.coherence + wobble,
    consistency: base.consistency,
    fluency: base.fluency - wobble,
    relevance: base.relevance + wobble / 2,
  };
}

function record(article: number, system: string) {
  return {
    id: `doc-${article + 1}`,
    model_id: system,
    text: ARTICLES[article],
    decoded: SUMMARIES[system]![article],
    references: [ARTICLES[article]!.split('. ')[0] + '.'],
    expert_annotations: [ratingsOf(system, article)],
    turker_annotations: [],
  };
}

/** The mean of a system's four expert dimensions over its articles (the view's best reference). */
function expertMean(system: string): number {
  let sum = 0;
  for (let a = 0; a < ARTICLES.length; a++) {
    const r = ratingsOf(system, a);
    sum += (r.coherence + r.consistency + r.fluency + r.relevance) / 4;
  }
  return sum / ARTICLES.length;
}

const METRICS = ['quality-offline', 'rouge-l', 'bleu'];

describe('views that put metrics beside people', () => {
  let app: App;
  let page: Page;
  let runId: string;
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-answer-'));
  const shots = join(process.env.SUMLENS_SHOTS ?? join(process.cwd(), '.tmp'), 'answer-views');

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    const lines = ARTICLES.flatMap((_, a) => SYSTEMS.map((s) => JSON.stringify(record(a, s))));
    writeFileSync(join(dir, 'rated-systems.jsonl'), lines.join('\n') + '\n');
    app = await openApp({ context: { acceptDownloads: true } });
    page = app.page;
  });

  afterAll(() => app?.close());

  it('scores a data set with expert ratings and three systems', async () => {
    await importDataset(page, join(dir, 'rated-systems.jsonl'));
    await page.getByTestId('run-configure').last().click();
    await page.getByTestId('run-setup').waitFor();
    for (const id of OFFLINE_METRIC_IDS) {
      if (!METRICS.includes(id)) await page.getByTestId(`run-metric-${id}`).uncheck();
    }
    runId = await startedRun(page, () => page.getByTestId('run-start').click());
    const item = listedRun(page, runId);
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 120_000 }).toBe('done');
    await item.getByTestId('run-open').click();
    await expect.poll(() => page.getByTestId('run-view').getAttribute('data-run-id')).toBe(runId);
  }, 240_000);

  it('opens the charts on the quality estimate against the experts, and the rows beside them', async () => {
    await expect.poll(() => page.getByTestId('chart-metric').inputValue()).toBe('quality-offline');
    expect(await page.getByTestId('scatter-metric').inputValue()).toBe('mean:expert_');
    await expect
      .poll(() => page.getByTestId('scatter-metrics').getAttribute('data-y-label'))
      .toBe('expert mean of 4 dimensions (human)');
    expect(await page.getByTestId('scatter-metrics').getAttribute('data-x-label')).toBe(
      'Quality estimate (offline)',
    );

    const table = page.getByTestId('run-rows');
    const headers = await table
      .locator('thead th')
      .evaluateAll((ths) => ths.map((th) => th.getAttribute('data-column')));
    expect(headers.slice(0, 3)).toEqual(['row', 'id', 'system']);
    expect(headers).toContain('score:quality-offline');
    expect(headers).toContain('human:expert_coherence');
    expect(await page.getByTestId('run-row').count()).toBe(18);

    // Sort by a human column: its cells in descending numeric order, as the ratings stored.
    const header = table.locator('th[data-column="human:expert_coherence"]');
    await header.getByRole('button').click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('descending');
    const cells = () =>
      table
        .locator('td[data-column="human:expert_coherence"]')
        .evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
    const coherence = ARTICLES.flatMap((_, a) => SYSTEMS.map((s) => ratingsOf(s, a).coherence));
    const descending = [...coherence].sort((x, y) => y - x);
    const shown = await cells();
    shown.forEach((v, i) => expect(v).toBeCloseTo(descending[i]!, 9));
    await header.getByRole('button').click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('ascending');
    expect((await cells())[0]).toBeCloseTo(Math.min(...coherence), 9);

    // Filter by system, then by text within it (SummEval's row id is the article's and the system's).
    await page.getByTestId('run-rows-system').selectOption('M2');
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(6);
    const systems = await table
      .locator('td[data-column="system"]')
      .evaluateAll((tds) => tds.map((td) => td.textContent));
    expect(new Set(systems)).toEqual(new Set(['M2']));
    await page.getByTestId('run-rows-filter').fill('doc-3');
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(1);
    expect(await page.getByTestId('run-row').locator('td[data-column="id"]').innerText()).toBe(
      'doc-3/M2',
    );
    await page.getByTestId('run-rows-filter').fill('');
    await page.getByTestId('run-rows-system').selectOption('');
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(18);

    // The table fits a laptop's width (its rows are cards on a phone): no header lies beyond it.
    expect(await clippedText(page.getByTestId('run-view'))).toEqual([]);
    expect(await shootViews(page, shots, 'run', () => page.getByTestId('run-view'))).toEqual([]);
  }, 120_000);

  it('compares the good system with the unrelated one: the gate says what the CLI says', async () => {
    await listedRun(page, runId).getByTestId('run-compare').click();
    await page.getByTestId('compare-view').waitFor();
    await expect
      .poll(() => page.locator('[data-testid="compare-b"] option').count())
      .toBeGreaterThan(2);
    const option = (system: string) =>
      page
        .locator('[data-testid="compare-b"] option', { hasText: `system ${system}` })
        .first()
        .getAttribute('value');
    await page.getByTestId('compare-a').selectOption((await option('M1'))!);
    await page.getByTestId('compare-b').selectOption((await option('M3'))!);
    const rouge = page.locator('[data-testid="compare-metric"][data-column="rouge-l"]');
    await rouge.waitFor();
    expect(await page.getByTestId('compare-row-metric').inputValue()).toBe('quality-offline');

    // The same two sides through the CLI's functions, from what the page stored.
    const runs = await storedRecords<StoredRun>(page, 'runs');
    const run = runs.find((r) => r.id === runId)!;
    const rows = (await storedRecords<DatasetRow & { datasetId: string }>(page, 'dataset-rows'))
      .filter((r) => r.datasetId === run.datasetId)
      .map((r) => ({ row: r.row, id: r.id, group: r.group, system: r.system }));
    const results = (await storedRecords<StoredRunResult>(page, 'run-results')).filter(
      (r) => r.runId === runId,
    );
    const side = (system: string): SideData => ({
      datasetId: run.datasetId,
      run,
      rows,
      results,
      system,
    });
    const comparison = compareSides(side('M1'), side('M3'));
    const columns = comparison.metrics.map((m) => m.column);
    const verdicts = async () =>
      Object.fromEntries(
        await page
          .getByTestId('compare-metric')
          .evaluateAll((trs) =>
            trs.map((tr) => [tr.getAttribute('data-column'), tr.getAttribute('data-gate')]),
          ),
      );
    const cli = (margin: number) =>
      Object.fromEntries(
        regressionGate(comparison, columns, margin).checks.map((c) => [c.column, c.verdict]),
      );
    expect(cli(0)['rouge-l']).toBe('regressed');
    await expect.poll(verdicts).toEqual(cli(0));
    expect(await rouge.getByTestId('compare-gate-verdict').innerText()).toBe('regressed');
    expect(await page.getByTestId('compare-gate').getAttribute('data-regressed')).toBe(
      String(Object.values(cli(0)).filter((v) => v === 'regressed').length),
    );
    // A margin wider than the drop: no regression, in the view as in the CLI.
    await page.getByTestId('compare-gate-margin').fill('1');
    await page.getByTestId('compare-gate-margin').press('Enter');
    await page.getByTestId('compare-gate-margin').blur();
    await expect.poll(() => rouge.getAttribute('data-gate')).toBe('held');
    await expect.poll(verdicts).toEqual(cli(1));
    await page.getByTestId('compare-gate-margin').fill('0');
    await page.getByTestId('compare-gate-margin').blur();
    await expect.poll(() => rouge.getAttribute('data-gate')).toBe('regressed');

    expect(await clippedText(page.getByTestId('compare-view'))).toEqual([]);
    expect(
      await shootViews(page, shots, 'compare', () => page.getByTestId('compare-view')),
    ).toEqual([]);
  }, 120_000);

  it("shows each system's expert mean and the system-level τ-b, computed here by hand", async () => {
    const board = page.getByTestId('leaderboard-view');
    await board.waitFor();
    expect(await page.getByTestId('leaderboard-human').inputValue()).toBe('mean:expert_');
    for (const system of SYSTEMS) {
      const row = page.locator(`[data-testid="leaderboard-row"][data-system="${system}"]`);
      expect(Number(await row.getAttribute('data-human'))).toBeCloseTo(expertMean(system), 9);
    }
    const results = (await storedRecords<StoredRunResult>(page, 'run-results')).filter(
      (r) => r.runId === runId,
    );
    const rows = await storedRecords<{ row: number; system: string; datasetId: string }>(
      page,
      'dataset-rows',
    );
    const runs = await storedRecords<StoredRun>(page, 'runs');
    const datasetId = runs.find((r) => r.id === runId)!.datasetId;
    const systemOf = new Map(
      rows.filter((r) => r.datasetId === datasetId).map((r) => [r.row, r.system]),
    );
    const metricMean = (system: string, metric: string) => {
      const xs = results
        .filter((r) => systemOf.get(r.row) === system)
        .flatMap((r) =>
          r.results.filter((m) => m.id === metric && m.status === 'ok').map((m) => m.score!),
        );
      return xs.reduce((s, v) => s + v, 0) / xs.length;
    };
    for (const metric of METRICS) {
      const expected = kendallTauB(
        SYSTEMS.map((s) => metricMean(s, metric)),
        SYSTEMS.map(expertMean),
      );
      const row = page.locator(
        `[data-testid="leaderboard-agreement-row"][data-column="${metric}"]`,
      );
      expect(await row.getAttribute('data-n')).toBe('3');
      expect(Number(await row.getAttribute('data-tau'))).toBeCloseTo(expected!, 12);
    }
    const line = page.getByTestId('leaderboard-tau');
    expect(await line.getAttribute('data-column')).toBe('quality-offline');
    expect(await line.innerText()).toMatch(
      /expert mean of 4 dimensions \(human\): Kendall τ-b = [+−±]\d\.\d\d over 3 systems/u,
    );

    expect(await shootViews(page, shots, 'leaderboard', () => board)).toEqual([]);
  }, 120_000);

  it('exports the comparison with one forest-plot axis per metric', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('compare-export-html').click(),
    ]);
    const path = join(dir, 'comparison.html');
    await download.saveAs(path);
    const html = readFileSync(path, 'utf8');
    expect(html).not.toMatch(/<script/iu);
    // A context of its own: the file page is not the app's, and must fetch nothing.
    const offline = await app.browser.newContext();
    const fetched: string[] = [];
    await offline.route('**', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      fetched.push(url);
      return route.abort();
    });
    const viewer = await offline.newPage();
    await viewer.goto(`file://${path}`);
    const charts = viewer.locator('.forest svg[data-chart="intervals"]');
    const comparable = await page
      .locator('[data-testid="compare-metric"][data-comparable="true"]')
      .count();
    expect(await charts.count()).toBe(comparable);
    // Each axis spans 0 and its own interval: BLEU's points do not squash ROUGE's fractions.
    const ranges = await charts.evaluateAll((svgs) =>
      svgs.map((s) => [Number(s.getAttribute('data-min')), Number(s.getAttribute('data-max'))]),
    );
    for (const [min, max] of ranges) {
      expect(min).toBeLessThanOrEqual(0);
      expect(max).toBeGreaterThanOrEqual(0);
    }
    for (const [w, h] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        await viewer.setViewportSize({ width: w, height: h });
        await viewer.emulateMedia({ colorScheme: scheme });
        await viewer.screenshot({
          path: join(shots, `compare-html-${w}-${scheme}.png`),
          fullPage: true,
        });
      }
    }
    expect(fetched).toEqual([]);
    await offline.close();
    expect(app.requests.foreign()).toEqual([]);
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  }, 120_000);
});
