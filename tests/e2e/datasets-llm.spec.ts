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
import { importDataset, labelPattern, scoreHeader } from './support/datasets.ts';
import { configureProvider, type ProviderChoice } from './support/llm.ts';
import { fakeError, startFakeLlm } from '../helpers/fake-llm.ts';
import type { FakeLlm } from '../helpers/fake-llm.ts';
import { oracleHandler } from '../helpers/judge-oracle.ts';
import { AnswerGate } from '../helpers/answer-gate.ts';

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

async function runIds(page: Page): Promise<string[]> {
  return page
    .getByTestId('run-item')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-run-id') ?? ''));
}

/** Presses Start and returns the id of the run it created (not one listed before it). */
async function startRun(page: Page): Promise<string> {
  const before = new Set(await runIds(page));
  await page.getByTestId('run-start').click();
  let created: string | undefined;
  await expect
    .poll(async () => (created = (await runIds(page)).find((id) => id && !before.has(id))))
    .toBeDefined();
  return created!;
}

/** The run's status as another tab reads it from IndexedDB (after a reload of that tab). */
async function getRunStatusFromTab(tab: Page, runId: string): Promise<string | null> {
  await tab.reload();
  await tab.getByTestId('run-item').first().waitFor();
  return runItem(tab, runId).getAttribute('data-status');
}

/** The list item of one run, by its id. */
function runItem(page: Page, runId: string) {
  return page.locator(`[data-testid="run-item"][data-run-id="${runId}"]`);
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
    expect(await plan.innerText()).toMatch(/3 rows × 18 metrics = 54 scores, in this page/u);
    // Before Start only the capability probe went out: the plan asks the model what it accepts.
    expect(
      fake.requests.filter((r) => !/Reply with the digit/u.test(JSON.stringify(r.body))),
    ).toHaveLength(0);

    const firstId = await startRun(page);
    // The stored status, not the page's progress line: the drive says done as soon as it has
    // stored the last row, and the list's copy of the run (backends, usage) is read after that.
    await expect
      .poll(() => runItem(page, firstId).getAttribute('data-status'), { timeout: 90_000 })
      .toBe('done');
    expect(await runItem(page, firstId).innerText()).toMatch(/done · 3\/3 rows/u);
    // The fake answers one choice where `n` asks for several, so the client tops the samples up
    // with single calls: the plan counts each sample as a request, so this stays within it.
    const sent = fake.requests.length;
    // The one-time capability probe is not a row's call: at least six requests besides it.
    const probes = fake.requests.filter((r) =>
      /Reply with the digit/u.test(JSON.stringify(r.body)),
    ).length;
    expect(sent - probes).toBeGreaterThanOrEqual(6);

    const runLine = await firstRun(page);
    expect(runLine).toMatch(/judge openai\/gpt-4o-mini/u);
    expect(runLine).toMatch(/use-lite/u);
    // Every request the run made is counted (the plan's probe came before it, and the run found
    // the answer kept). The rows share G-Eval's evaluation steps (repetitiveness): one row asks,
    // the other two read its answer.
    const usage = await page.getByTestId('run-judge-usage').first().innerText();
    expect(usage).toMatch(new RegExp(`^${sent - probes} requests \\((\\d+) cached\\), \\$`, 'u'));
    // The plan counted G-Eval's fallback: what was sent stays within its "at most".
    expect(sent - probes).toBeLessThanOrEqual(planned);
    expect(Number(/\((\d+) cached\)/u.exec(usage)?.[1])).toBeLessThanOrEqual(ROWS.length - 1);

    const summary = await page.getByTestId('run-summary').innerText();
    for (const id of ['vagueness', 'repetitiveness', 'rouge-l', 'coherence']) {
      expect(summary).toMatch(new RegExp(`^${labelPattern(id)}\\s+[01]\\.\\d{3}\\s`, 'mu'));
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
      const column = header.indexOf(scoreHeader(id));
      expect(column).toBeGreaterThan(-1);
      for (const line of lines.slice(1)) {
        expect(Number.isFinite(Number(line.split(',')[column]))).toBe(true);
      }
    }

    // The same metrics on the same rows again: every answer comes from the judge cache. Wait on
    // the new run itself: the first one's "done · 3/3 rows" is still in the list.
    await setupRun(page, ['vagueness', 'repetitiveness']);
    const secondId = await startRun(page);
    expect(secondId).not.toBe(firstId);
    await expect
      .poll(() => runItem(page, secondId).getAttribute('data-status'), { timeout: 90_000 })
      .toBe('done');
    expect(await runItem(page, secondId).innerText()).toMatch(/done · 3\/3 rows/u);
    expect(fake.requests.length).toBe(sent);
    expect(await runItem(page, secondId).getByTestId('run-judge-usage').innerText()).toMatch(
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
    // Answers held back, so that the reload lands mid-run: a request waits at the fake.
    const gate = new AnswerGate(oracleHandler(3));
    fake.setHandler(gate.handler);
    await setupRun(page, ['summarization']);
    const runId = await startRun(page);
    const item = runItem(page, runId);
    await expect.poll(() => gate.held, { timeout: 60_000 }).toBeGreaterThan(0);
    await expect.poll(() => item.innerText()).toMatch(/running · [0-2]\/3 rows/u);
    await page.reload();
    // The reload closed the held requests' connections: their answers go nowhere.
    gate.allow(Infinity);
    // The key lived in memory only: after the reload the run waits, paused, saying why.
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 30_000 }).toBe('paused');
    expect(await item.getByTestId('run-message').innerText()).toMatch(/No API key/u);
    const stored = Number(await item.getAttribute('data-done'));
    await configureProvider(page, fake, JUDGE);
    fake.setHandler(oracleHandler(3));
    await item.getByTestId('run-resume').click();
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 90_000 }).toBe('done');
    expect(await item.innerText()).toMatch(/done · 3\/3 rows/u);
    expect(stored).toBeLessThan(3);
    expect(app.errors).toEqual([]);
  });

  it('a failing row is retried alone, a dead key pauses the run, going offline pauses and resumes it', async () => {
    await configureProvider(page, fake, JUDGE);
    await importDataset(page, file);
    const judgeRequests = () =>
      fake.requests.filter((r) => !/Reply with the digit/u.test(JSON.stringify(r.body))).length;

    // Row 2 (the heat wave) meets a 500 on every attempt: it is stored as failed, with its reason.
    fake.reset();
    fake.setHandler((req) =>
      JSON.stringify(req.body).includes('heat wave')
        ? fakeError('openai', 'server')
        : oracleHandler(3)(req),
    );
    // Metrics no earlier test used, so that the judge cache has none of their answers.
    await setupRun(page, ['geval-coherence']);
    const runId = await startRun(page);
    const item = runItem(page, runId);
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 120_000 }).toBe('done');
    expect(await item.getAttribute('data-failed')).toBe('1');
    expect(await item.innerText()).toMatch(/3\/3 rows, 1 failed/u);
    // Every request is counted, the five failed attempts of row 2 too.
    expect(Number(await item.getByTestId('run-judge-usage').getAttribute('data-http-calls'))).toBe(
      judgeRequests(),
    );
    // The provider recovers: only row 2 is asked again.
    fake.setHandler(oracleHandler(3));
    const before = fake.requests.length;
    await item.getByTestId('run-retry-failed').click();
    await expect.poll(() => item.getAttribute('data-failed'), { timeout: 90_000 }).toBe('0');
    await expect.poll(() => item.getAttribute('data-status')).toBe('done');
    const retried = fake.requests.slice(before);
    expect(retried.length).toBeGreaterThan(0);
    expect(retried.every((r) => JSON.stringify(r.body).includes('heat wave'))).toBe(true);
    expect(await item.getByTestId('run-retry-failed').count()).toBe(0);

    // A dead key: the run pauses with the provider's reason after at most the requests in flight.
    fake.reset();
    fake.setHandler(() => fakeError('openai', 'bad-key'));
    await setupRun(page, ['geval-consistency']);
    const deadId = await startRun(page);
    const dead = runItem(page, deadId);
    await expect.poll(() => dead.getAttribute('data-status'), { timeout: 60_000 }).toBe('paused');
    expect(await dead.getByTestId('run-message').innerText()).toMatch(
      /The run is paused: OpenAI rejected the API key.*press Resume/u,
    );
    expect(judgeRequests()).toBeLessThanOrEqual(4);
    expect(await dead.getAttribute('data-done')).toBe('0');
    fake.setHandler(oracleHandler(3));
    await dead.getByTestId('run-resume').click();
    await expect.poll(() => dead.getAttribute('data-status'), { timeout: 90_000 }).toBe('done');
    expect(await dead.getAttribute('data-failed')).toBe('0');

    // Offline mid-run: paused by itself, then on again once the connection is back. The answers
    // are held until the page is offline, so that the connection drops with requests in flight.
    const offlineGate = new AnswerGate(oracleHandler(3));
    fake.setHandler(offlineGate.handler);
    await setupRun(page, ['geval-relevance']);
    const offId = await startRun(page);
    const off = runItem(page, offId);
    await expect.poll(() => offlineGate.held, { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => off.getAttribute('data-state')).toBe('running');
    await app.context.setOffline(true);
    offlineGate.allow(Infinity);
    await expect.poll(() => off.getAttribute('data-status'), { timeout: 30_000 }).toBe('paused');
    expect(await off.getByTestId('run-message').innerText()).toMatch(/offline/u);
    await app.context.setOffline(false);
    await expect.poll(() => off.getAttribute('data-status'), { timeout: 90_000 }).toBe('done');
    expect(await off.getAttribute('data-failed')).toBe('0');
    expect(await off.getAttribute('data-done')).toBe('3');
    // The browser logs every failed HTTP status as a console error: those were the faults.
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  });

  it('a second tab without the key leaves a running run alone', async () => {
    await configureProvider(page, fake, JUDGE);
    await importDataset(page, file);
    // Answers held back: the run stays mid-flight in tab A until tab B has made up its mind.
    const gate = new AnswerGate(oracleHandler(3));
    fake.setHandler(gate.handler);
    await setupRun(page, ['geval-fluency']);
    const runId = await startRun(page);
    const item = runItem(page, runId);
    await expect.poll(() => gate.held, { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => item.getAttribute('data-state')).toBe('running');
    // Tab B: same browser profile, no key in memory. It must not take the run over or rewrite
    // its status as "paused: No API key".
    const other = await app.context.newPage();
    await other.goto(page.url());
    await other.getByTestId('run-item').first().waitFor();
    const seen = runItem(other, runId);
    // B's run watch has asked who holds the run and found tab A: the moment it would otherwise
    // have taken the run over or paused it.
    await expect.poll(() => seen.getAttribute('data-driver')).toBe('other-tab');
    expect(await seen.getAttribute('data-status')).toBe('running');
    expect(await seen.getByTestId('run-message').count()).toBe(0);
    gate.allow(Infinity);
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 90_000 }).toBe('done');
    expect(await item.getAttribute('data-failed')).toBe('0');
    expect((await getRunStatusFromTab(other, runId)) ?? 'done').not.toBe('paused');
    await other.close();
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  });
});
