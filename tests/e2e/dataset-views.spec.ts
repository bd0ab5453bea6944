/**
 * The data-set and run views read at a glance (issue 15): the scatter plots' axes cover every
 * point, the histogram's bins are evenly spaced round numbers, a running run is paused, resumed
 * and cancelled from the runs list, metrics and human columns are labelled by name (view and
 * CSV), re-imports get distinct names, and a bad rating cell is reported with its row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import type { Page } from 'playwright-core';
import { metricInfo } from '../../src/lib/metrics/registry.ts';
import { openApp, type App } from './support/browser.ts';
import { importDataset, startedRun, storedRecords } from './support/datasets.ts';
import { sharedPath } from '../helpers/shared.ts';

interface StoredRunRecord {
  id: string;
  name?: string;
  datasetId: string;
  status: string;
  message?: string;
  counts: { done: number; total: number };
}
interface StoredResultRecord {
  runId: string;
  row: number;
  results: { id: string; status: string; score: number | null }[];
}
interface StoredRowRecord {
  datasetId: string;
  row: number;
  human: Record<string, number>;
}

/** The first `n` lines of SummEval's dev.jsonl in a file of its own. */
function summevalHead(n: number, name: string): string {
  const lines = readFileSync(sharedPath('data/summeval/dev.jsonl'), 'utf8').split('\n');
  const file = join(mkdtempSync(join(tmpdir(), 'sumlens-views-')), name);
  writeFileSync(file, lines.slice(0, n).join('\n') + '\n');
  return file;
}

async function storedRun(page: Page, runId: string): Promise<StoredRunRecord | undefined> {
  return (await storedRecords<StoredRunRecord>(page, 'runs')).find((r) => r.id === runId);
}

function runItem(page: Page, runId: string) {
  return page.locator(`[data-testid="run-item"][data-run-id="${runId}"]`);
}

/** Waits until the stored run is done, then opens it. */
async function runToEnd(page: Page, runId: string): Promise<void> {
  await expect
    .poll(async () => (await storedRun(page, runId))?.status, { timeout: 300_000 })
    .toBe('done');
  await runItem(page, runId).getByTestId('run-open').click();
  await expect.poll(() => page.getByTestId('run-view').getAttribute('data-run-id')).toBe(runId);
}

function extent(values: readonly number[]): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
}

/** The axis a chart drew, from the data attributes the chart sets once it has drawn. */
async function axis(page: Page, testid: string, which: 'x' | 'y') {
  const chart = page.getByTestId(testid);
  await expect.poll(() => chart.getAttribute(`data-${which}-max`)).not.toBeNull();
  return {
    min: Number(await chart.getAttribute(`data-${which}-min`)),
    max: Number(await chart.getAttribute(`data-${which}-max`)),
  };
}

/** The axis covers the data, and not much more (no wasted half of the plot). */
function expectCovers(
  scale: { min: number; max: number },
  data: { min: number; max: number },
): void {
  expect(scale.min).toBeLessThanOrEqual(data.min);
  expect(scale.max).toBeGreaterThanOrEqual(data.max);
  const span = Math.max(data.max - data.min, 1e-9);
  expect(scale.max - scale.min).toBeLessThanOrEqual(span * 2 + 0.1);
}

describe('data-set and run views', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp({ context: { acceptDownloads: true } });
    page = app.page;
  });

  afterAll(() => app?.close());

  it('draws every point inside both axes, with even histogram bins, and labels metrics by name', async () => {
    await importDataset(page, summevalHead(72, 'summeval-72.jsonl'));
    const item = page.getByTestId('dataset-item').filter({ hasText: 'summeval-72' });
    const runId = await startedRun(page, () => item.getByTestId('run-offline').click());
    await runToEnd(page, runId);

    await page.getByTestId('chart-metric').selectOption('entity-density');
    await page.getByTestId('scatter-metric').selectOption('rouge-l');
    const results = (await storedRecords<StoredResultRecord>(page, 'run-results')).filter(
      (r) => r.runId === runId,
    );
    expect(results).toHaveLength(72);
    const scores = (id: string) =>
      results.flatMap((r) =>
        r.results
          .filter((m) => m.id === id && m.status === 'ok' && Number.isFinite(m.score))
          .map((m) => m.score!),
      );
    const density = extent(scores('entity-density'));
    const rouge = extent(scores('rouge-l'));
    expect(density.max - density.min).toBeGreaterThan(0.1);
    await expect
      .poll(() => page.getByTestId('scatter-metrics').getAttribute('data-y-label'))
      .toBe(metricInfo('rouge-l').label);
    expectCovers(await axis(page, 'scatter-metrics', 'x'), density);
    expectCovers(await axis(page, 'scatter-metrics', 'y'), rouge);

    // Against a human rating: the rating's own range on y.
    await page.getByTestId('scatter-human').selectOption('expert_coherence');
    const datasetId = (await storedRun(page, runId))!.datasetId;
    const rows = (await storedRecords<StoredRowRecord>(page, 'dataset-rows')).filter(
      (r) => r.datasetId === datasetId,
    );
    const ratings = extent(
      rows.map((r) => r.human.expert_coherence).filter((v): v is number => v !== undefined),
    );
    await expect
      .poll(() => page.getByTestId('scatter').getAttribute('data-y-label'))
      .toBe('expert_coherence (human)');
    expectCovers(await axis(page, 'scatter', 'x'), density);
    expectCovers(await axis(page, 'scatter', 'y'), ratings);

    // The histogram's bin edges: evenly spaced round numbers that hold every value.
    const edges = JSON.parse(
      (await page.getByTestId('histogram').getAttribute('data-edges')) ?? '[]',
    ) as number[];
    expect(edges.length).toBeGreaterThan(2);
    const step = edges[1]! - edges[0]!;
    for (let i = 1; i < edges.length; i++) expect(edges[i]! - edges[i - 1]!).toBeCloseTo(step, 9);
    expect([0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1]).toContainEqual(
      Number(step.toPrecision(6)),
    );
    expect(edges[0]!).toBeLessThanOrEqual(density.min);
    expect(edges.at(-1)!).toBeGreaterThanOrEqual(density.max);

    // Labels, not ids: the run's summary, the calibration matrix and the CSV header.
    const coherence = metricInfo('coherence').label;
    expect(await page.getByTestId('run-summary').innerText()).toContain(coherence);
    const matrix = page.getByTestId('calibration-matrix');
    expect(await matrix.locator('tbody th').allInnerTexts()).toContain(coherence);
    expect(await matrix.locator('thead th').allInnerTexts()).toContain('expert_coherence (human)');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-csv').click(),
    ]);
    const csv = readFileSync(await download.path(), 'utf8');
    const fields = Papa.parse(csv.replace(/^\uFEFF/u, ''), { header: true }).meta.fields ?? [];
    expect(fields).toContain(`${coherence} [coherence]`);
    expect(fields).toContain('expert_coherence (human) [human:expert_coherence]');
    expect(fields).not.toContain('coherence');
  }, 420_000);

  it('pauses, resumes and cancels a running run from the runs list', async () => {
    await importDataset(page, summevalHead(600, 'summeval-600.jsonl'));
    const item = page.getByTestId('dataset-item').filter({ hasText: 'summeval-600' });
    const runId = await startedRun(page, () => item.getByTestId('run-offline').click());
    const listed = runItem(page, runId);
    await expect.poll(() => listed.getAttribute('data-done'), { timeout: 120_000 }).not.toBe('0');

    await listed.getByTestId('run-pause').click();
    await expect.poll(() => listed.getAttribute('data-state'), { timeout: 60_000 }).toBe('paused');
    const paused = await storedRun(page, runId);
    expect(paused?.status).toBe('paused');
    expect(paused!.counts.done).toBeLessThan(paused!.counts.total);
    // Paused with nothing in flight: the list and storage agree, and nothing more is stored.
    expect(Number(await listed.getAttribute('data-done'))).toBe(paused!.counts.done);
    const storedRows = (await storedRecords<StoredResultRecord>(page, 'run-results')).filter(
      (r) => r.runId === runId,
    ).length;
    expect(storedRows).toBe(paused!.counts.done);
    expect((await storedRun(page, runId))?.counts.done).toBe(paused!.counts.done);

    await listed.getByTestId('run-continue').click();
    await expect
      .poll(async () => (await storedRun(page, runId))?.counts.done, { timeout: 120_000 })
      .toBeGreaterThan(paused!.counts.done);
    expect((await storedRun(page, runId))?.status).toBe('running');

    await listed.getByTestId('run-cancel').click();
    await expect
      .poll(async () => (await storedRun(page, runId))?.status, { timeout: 60_000 })
      .toBe('cancelled');
    await expect.poll(() => listed.getAttribute('data-status')).toBe('cancelled');
    // No message names the run by its internal id.
    expect(await page.getByTestId('datasets').innerText()).not.toContain(runId);
  }, 420_000);

  it('names re-imports and their runs apart, and reports a bad rating cell with its row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-views-'));
    const file = join(dir, 'tiny-rated.jsonl');
    writeFileSync(
      file,
      [
        {
          source: 'The bridge closed on Monday for repairs.',
          summary: 'A bridge closed.',
          coherence: 4,
        },
        { source: 'Rain fell all week in the valley.', summary: 'It rained.', coherence: 'high' },
        { source: 'The shop opened a second branch.', summary: 'A shop grew.', coherence: 2 },
        { source: 'The team won the final in Leeds.', summary: 'A team won.', coherence: 5 },
        { source: 'Snow closed the mountain roads.', summary: 'Roads closed.', coherence: 3 },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    await importDataset(page, file);
    const report = page.getByTestId('dataset-import');
    await expect.poll(() => report.getAttribute('data-done')).toBe('true');
    expect(await report.innerText()).toMatch(/5 rows read/u);
    const cells = report.getByTestId('dataset-cell-problems');
    expect(await cells.innerText()).toMatch(
      /row 2: .*'high'.*column 'coherence'|row 2: .*column 'coherence'.*'high'/u,
    );
    await importDataset(page, file);

    const names = await page.getByTestId('dataset-item').locator('td:first-child').allInnerTexts();
    expect(names.filter((n) => n.startsWith('tiny-rated')).sort()).toEqual([
      'tiny-rated',
      'tiny-rated (2)',
    ]);
    const datasets = await storedRecords<{ id: string; name: string }>(page, 'datasets');
    const second = datasets.find((d) => d.name === 'tiny-rated (2)');
    expect(second).toBeDefined();
    const rows = (await storedRecords<StoredRowRecord>(page, 'dataset-rows')).filter(
      (r) => r.datasetId === second!.id,
    );
    // The row with the bad cell is kept, without that rating.
    expect(rows.map((r) => r.human.coherence)).toEqual([4, undefined, 2, 5, 3]);

    const first = page
      .getByTestId('dataset-item')
      .filter({ has: page.locator('td:first-child', { hasText: /^tiny-rated$/u }) });
    const runs: string[] = [];
    for (const target of [first, first]) {
      const id = await startedRun(page, () => target.getByTestId('run-offline').click());
      await expect
        .poll(async () => (await storedRun(page, id))?.status, { timeout: 120_000 })
        .toBe('done');
      runs.push(id);
    }
    const runNames = await Promise.all(
      runs.map((id) => runItem(page, id).getAttribute('data-run-name')),
    );
    expect(runNames[0]).toBeTruthy();
    expect(runNames[0]).not.toBe(runNames[1]);
    expect(runNames).toEqual(['tiny-rated · run 1', 'tiny-rated · run 2']);
  }, 300_000);
});
