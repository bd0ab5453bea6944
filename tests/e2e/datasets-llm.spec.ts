/**
 * Data-set runs with LLM-judge metrics, in the page, against the loopback fake provider: the plan
 * shows requests and cost before anything is sent, the run scores every row with the offline and
 * the judge metrics, the run list names the backends and the judge's usage, a second run of the
 * same rows is answered by the judge cache (no request), a reload pauses the run with a message
 * when the key is gone, and a run exported as JSON comes back through the import.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';
import { importDataset } from './support/datasets.ts';
import { configureProvider, type ProviderChoice } from './support/llm.ts';
import { startFakeLlm } from '../helpers/fake-llm.ts';
import type { FakeLlm } from '../helpers/fake-llm.ts';
import { oracleHandler } from '../helpers/judge-oracle.ts';

const ROWS = [
  {
    source:
      'The city council voted to close the old bridge on Monday. Repairs would cost 4 million euros. Engineers found cracks in two pillars last year. A ferry will carry commuters until a new bridge opens in 2027.',
    summary:
      'The council closed the old bridge on Monday. A ferry carries commuters until 2027. The ferry carries commuters.',
    reference:
      'The council closed the cracked bridge; a ferry runs until the new one opens in 2027.',
    overall: 3,
  },
  {
    source:
      'A heat wave hit southern Spain this week, with temperatures above 44 degrees in Seville. Hospitals reported more cases of heat stroke. The government asked people to stay indoors at noon.',
    summary:
      'Seville saw 44 degrees; hospitals treated heat stroke and people were told to stay in.',
    reference: 'A heat wave brought 44 degrees to Seville and more heat stroke cases.',
    overall: 5,
  },
  {
    source:
      'The museum reopened after two years of renovation. Its new wing shows modern art from Latin America. Entry is free on Sundays.',
    summary: 'Some things happened at a place, and it was interesting in various ways.',
    reference: 'The renovated museum reopened with a Latin American modern art wing.',
    overall: 1,
  },
];

const JUDGE: ProviderChoice = { kind: 'openai', model: 'gpt-4o-mini', key: 'sk-e2e-batch-secret' };

async function setupRun(page: Page, judgeIds: readonly string[]): Promise<void> {
  await page.getByTestId('run-configure').last().click();
  const setup = page.getByTestId('run-setup');
  await setup.waitFor();
  for (const id of judgeIds) await page.getByTestId(`run-metric-${id}`).check();
}

function firstRun(page: Page): Promise<string> {
  return page.getByTestId('run-item').first().innerText();
}

describe('data-set runs with LLM metrics', () => {
  let app: App;
  let page: Page;
  let fake: FakeLlm;
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-llm-batch-'));
  const file = join(dir, 'bridge-cases.jsonl');

  beforeAll(async () => {
    writeFileSync(file, ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
    fake = await startFakeLlm();
    fake.setHandler(oracleHandler(3));
    app = await openApp({ context: { acceptDownloads: true } });
    page = app.page;
  });

  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('plans, runs the judge metrics on every row, caches them, and exports/imports the run', async () => {
    await configureProvider(page, fake, JUDGE);
    await importDataset(page, file);

    await setupRun(page, ['vagueness', 'repetitiveness']);
    const plan = page.getByTestId('run-plan');
    await expect.poll(() => plan.getAttribute('data-judge-metrics')).toBe('2');
    const planned = Number(await plan.getAttribute('data-llm-calls'));
    // Two metrics on three rows: at least one request per metric and row, before any is sent.
    expect(planned).toBeGreaterThanOrEqual(6);
    expect(await page.getByTestId('run-plan-cost').innerText()).toMatch(/^\$\d/u);
    expect(await plan.innerText()).toMatch(/3 rows × 11 metrics = 33 scores, in this page/u);
    expect(fake.requests).toHaveLength(0);

    await page.getByTestId('run-start').click();
    await expect.poll(() => firstRun(page), { timeout: 90_000 }).toMatch(/done · 3\/3 rows/u);
    // The fake answers one choice where `n` asks for several, so the client tops the samples up
    // with single calls: more requests than planned, all of them counted in the run's usage.
    const sent = fake.requests.length;
    // The one-time capability probe is the client's, not a row's: the run's usage leaves it out.
    const probes = fake.requests.filter((r) =>
      /Reply with the digit/u.test(JSON.stringify(r.body)),
    ).length;
    expect(sent - probes).toBeGreaterThanOrEqual(6);

    const runLine = await firstRun(page);
    expect(runLine).toMatch(/judge openai\/gpt-4o-mini/u);
    expect(runLine).toMatch(/GloVe|glove/u);
    expect(await page.getByTestId('run-judge-usage').first().innerText()).toMatch(
      new RegExp(`^${sent - probes} requests \\(0 cached\\), \\$`, 'u'),
    );

    const summary = await page.getByTestId('run-summary').innerText();
    for (const id of ['vagueness', 'repetitiveness', 'rouge-l', 'coherence']) {
      expect(summary).toMatch(new RegExp(`^${id}\\s+[01]\\.\\d{3}\\s`, 'mu'));
    }
    // One CSV row per case with a number in each judge column.
    const [csvDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-csv').click(),
    ]);
    const csv = readFileSync((await csvDownload.path())!, 'utf8');
    const lines = csv.trim().split(/\r?\n/u);
    const header = lines[0]!.split(',');
    expect(lines).toHaveLength(4);
    for (const id of ['vagueness', 'repetitiveness']) {
      const column = header.indexOf(id);
      expect(column).toBeGreaterThan(-1);
      for (const line of lines.slice(1)) {
        expect(Number.isFinite(Number(line.split(',')[column]))).toBe(true);
      }
    }

    // The same metrics on the same rows again: every answer comes from the judge cache.
    await setupRun(page, ['vagueness', 'repetitiveness']);
    await page.getByTestId('run-start').click();
    await expect.poll(() => firstRun(page), { timeout: 90_000 }).toMatch(/done · 3\/3 rows/u);
    expect(fake.requests.length).toBe(sent);
    expect(await page.getByTestId('run-judge-usage').first().innerText()).toMatch(
      /^0 requests \(\d+ cached\)/u,
    );

    // Export the run as JSON, delete its data set (and runs), and import the export back.
    const [json] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-json').click(),
    ]);
    const exported = join(dir, 'run.json');
    await json.saveAs(exported);
    const before = await page.getByTestId('run-summary').innerText();
    // Deleting asks first, naming what goes with the data set.
    await page.getByTestId('dataset-delete').first().click();
    await page.getByRole('button', { name: 'Keep' }).click();
    expect(await page.getByTestId('run-item').count()).toBe(2);
    await page.getByTestId('dataset-delete').first().click();
    expect(await page.getByTestId('dataset-item').first().innerText()).toMatch(
      /Delete bridge-cases: 3 rows, 2 runs and their results\?/u,
    );
    await page.getByTestId('dataset-delete-confirm').click();
    await expect.poll(() => page.getByTestId('run-item').count()).toBe(0);
    await page.getByTestId('run-import-file').setInputFiles(exported);
    await expect.poll(() => page.getByTestId('run-item').count()).toBe(1);
    expect(await page.getByTestId('run-summary').innerText()).toBe(before);
    expect(await firstRun(page)).toMatch(/judge openai\/gpt-4o-mini/u);

    // No request left the machine except to the fake provider on loopback; the key is in no export.
    expect(readFileSync(exported, 'utf8')).not.toContain('sk-e2e-batch-secret');
    expect(app.requests.foreign().every((u) => u.startsWith(fake.url))).toBe(true);
    expect(app.errors).toEqual([]);
  });

  it('a reload mid-run pauses an LLM run until its key is back, then it resumes', async () => {
    await importDataset(page, file);
    // Slow answers, so that the reload lands mid-run.
    fake.setHandler(async (req) => {
      await new Promise((r) => setTimeout(r, 400));
      return oracleHandler(3)(req);
    });
    await setupRun(page, ['summarization']);
    await page.getByTestId('run-start').click();
    await expect
      .poll(() => firstRun(page), { timeout: 60_000, interval: 50 })
      .toMatch(/running · [0-2]\/3 rows/u);
    await page.reload();
    // The key lived in memory only: after the reload the run waits, paused, saying why.
    await expect.poll(() => firstRun(page), { timeout: 30_000 }).toMatch(/paused/u);
    expect(await page.getByTestId('run-message').first().innerText()).toMatch(/No API key/u);
    const stored = Number(/(\d)\/3 rows/u.exec(await firstRun(page))?.[1]);
    await configureProvider(page, fake, JUDGE);
    fake.setHandler(oracleHandler(3));
    await page.getByTestId('run-resume').first().click();
    await expect.poll(() => firstRun(page), { timeout: 90_000 }).toMatch(/done · 3\/3 rows/u);
    expect(stored).toBeLessThan(3);
    expect(app.errors).toEqual([]);
  });
});
