/**
 * A data-set run sent as provider batch jobs from the page, against a loopback fake of each batch
 * wire a page can call (OpenAI's files + batches, Gemini's batchGenerateContent): 50 rows with a
 * one-round and two two-round judge metrics (claims → verdicts, G-Eval's steps → form), the price at the batch rate shown before Start, the
 * job's state in the run list, a reload while a job is pending (the same job is polled again,
 * none is paid for twice), every row scored from the answers without one interactive call, and a
 * second, interactive run of the same rows answered by the judge cache (0 requests). Anthropic's
 * batch endpoints answer no browser preflight, so the page offers the CLI for them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';
import { importDataset, listedRun, startedRun } from './support/datasets.ts';
import { configureProvider, type ProviderChoice } from './support/llm.ts';
import { startFakeBatch, type FakeBatch } from '../helpers/fake-batch.ts';
import type { Wire } from '../helpers/fake-llm.ts';

const ROW_COUNT = 50;
const SHOTS = join(process.cwd(), '.tmp', 'provider-batch');

/** The element at both widths and in both schemes, for a person to look at. */
async function shots(page: Page, testid: string, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page
        .getByTestId(testid)
        .screenshot({ path: join(SHOTS, `${name}-${scheme}-${width}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}
const TOWNS = ['Ghent', 'Porto', 'Tartu', 'Brno', 'Turku', 'Split', 'Graz', 'Cork', 'Lund', 'Pécs'];

/** Fifty distinct cases: each row's prompts differ, so each asks the judge its own questions. */
function rows(): string {
  return Array.from({ length: ROW_COUNT }, (_, i) => {
    const town = TOWNS[i % TOWNS.length]!;
    const year = 2020 + (i % 7);
    const cost = 2 + (i % 9);
    return JSON.stringify({
      source: `The council of ${town} voted on Monday to close the old bridge number ${i + 1}. Repairs would cost ${cost} million euros. Engineers found cracks in two pillars in ${year}. A ferry will carry commuters until a new bridge opens.`,
      summary: `${town} closed bridge ${i + 1} on Monday. A ferry carries commuters. Repairs would cost ${cost} million euros.`,
    });
  }).join('\n');
}

const JUDGES: Record<'openai' | 'gemini', ProviderChoice> = {
  openai: { kind: 'openai', model: 'gpt-4o-mini', key: 'sk-e2e-provider-batch' },
  gemini: { kind: 'gemini', model: 'gemini-2.5-flash-lite', key: 'AIza-e2e-provider-batch' },
};

/** Opens the run setup with the two judge metrics ticked (and the offline ones as they are). */
async function setupRun(page: Page): Promise<void> {
  await page.getByTestId('run-configure').last().click();
  await page.getByTestId('run-setup').waitFor();
  for (const id of ['vagueness', 'alignment', 'geval-coherence'])
    await page.getByTestId(`run-metric-${id}`).check();
}

/** Presses Start and returns the id of the run it created. */
const startRun = (page: Page) => startedRun(page, () => page.getByTestId('run-start').click());

for (const wire of ['openai', 'gemini'] as const satisfies readonly Wire[]) {
  describe(`a run as ${wire} batch jobs from the page`, () => {
    let app: App;
    let page: Page;
    let fake: FakeBatch;
    const dir = mkdtempSync(join(tmpdir(), `sumlens-provider-batch-${wire}-`));
    const file = join(dir, `bridges-${wire}.jsonl`);

    beforeAll(async () => {
      writeFileSync(file, rows() + '\n');
      // Four polls "in progress" before a job ends: long enough to reload while one is pending.
      fake = await startFakeBatch({ wire, pollsBeforeEnd: 4 });
      app = await openApp({});
      page = app.page;
    });

    afterAll(async () => {
      await app?.close();
      await fake?.close();
    });

    it('submits jobs, pauses and resumes, survives a reload while one is pending, and scores every row from the answers', async () => {
      await configureProvider(page, fake, JUDGES[wire]);
      // Kept for the tab, so that the run goes on after the reload below.
      await page.getByTestId('provider-key-persistence').selectOption('session');
      await page.getByTestId('provider-key').fill(JUDGES[wire].key!);
      await page.getByTestId('provider-key-save').click();
      await importDataset(page, file);
      await setupRun(page);
      await page.getByTestId('run-batch-jobs').check();
      await page.getByTestId('run-batch-poll').fill('1');
      // The price at the batch rate is on the page before anything is sent.
      await expect
        .poll(() => page.getByTestId('run-batch-cost').innerText())
        .toMatch(/^At the batch rate: about \$\d[\d.]* \(instead of \$\d[\d.]*\)/u);
      // Nothing but the plan's one capability probe (a one-token request, cached per model) has
      // reached the provider: no file, no job.
      expect(fake.interactiveCalls).toBeLessThanOrEqual(1);
      expect(
        fake.requests.filter(
          (r) => !/^(?:OPTIONS|POST) \S*(?:chat\/completions|:generateContent)$/u.test(r),
        ),
      ).toEqual([]);
      if (wire === 'openai') await shots(page, 'run-setup', 'setup');

      const runId = await startRun(page);
      const state = listedRun(page, runId).getByTestId('run-batch-state');
      await expect
        .poll(() => state.getAttribute('data-phase'), { timeout: 30_000 })
        .toBe('waiting');
      expect(await state.innerText()).toMatch(/^batch round 1: 1 job of \d+ requests/u);
      const submittedBeforeReload = fake.jobs.length;
      expect(submittedBeforeReload).toBe(1);
      expect(fake.jobs[0]!.polls).toBeLessThanOrEqual(4);

      // Pause stops the polling, not the provider's job; Resume polls the same job again.
      const listed = listedRun(page, runId);
      await listed.getByTestId('run-pause').click();
      await expect.poll(() => listed.getAttribute('data-status')).toBe('paused');
      const pollsWhenPaused = fake.jobs[0]!.polls;
      expect(await listed.getByTestId('run-message').innerText()).toMatch(
        /Resume polls the same job again/u,
      );
      // A pause the user asked for is said on the run's line, not as a page error.
      expect(await page.getByTestId('datasets-error').count()).toBe(0);
      await listed.getByTestId('run-resume').click();
      await expect
        .poll(() => fake.jobs[0]!.polls, { timeout: 30_000 })
        .toBeGreaterThan(pollsWhenPaused);
      expect(fake.jobs.length).toBe(1);

      // Closing the tab mid-job: the job id is on the run's record, and the reopened page polls it.
      await page.reload();
      const item = listedRun(page, runId);
      await item.waitFor();
      await expect
        .poll(() => item.getAttribute('data-status'), { timeout: 90_000, interval: 500 })
        .toBe('done')
        .catch(async (error: unknown) => {
          throw new Error(`${String(error)}; the run says: ${await item.innerText()}`);
        });
      expect(await item.getAttribute('data-done')).toBe(String(ROW_COUNT));
      expect(await item.getAttribute('data-failed')).toBe('0');
      expect(await item.getByTestId('run-batch-state').getAttribute('data-phase')).toBe('answered');
      if (wire === 'openai') await shots(page, 'run-item', 'run-list');

      // Claims then verdicts: two rounds, each request sent in exactly one job.
      const sent = fake.jobs.flatMap((j) => j.customIds);
      expect(new Set(sent).size).toBe(sent.length);
      expect(fake.jobs.length).toBeGreaterThanOrEqual(2);
      expect(fake.jobs[0]!.customIds.length).toBeGreaterThanOrEqual(2 * ROW_COUNT);
      // Every row was scored from the jobs' answers. The interactive endpoint answered one
      // capability probe at most (kept by the page), so that G-Eval's jobs asked for logprobs or
      // samples as the interactive judge will: with the traits table alone, a run of these rows
      // once sent its 1,000 G-Eval samples again at the standard price.
      expect(fake.interactiveCalls).toBeLessThanOrEqual(1);
      expect(await item.getByTestId('run-judge-usage').getAttribute('data-http-calls')).toBe('0');
    });

    it('an interactive run of the same rows afterwards makes 0 calls', async () => {
      const jobsBefore = fake.jobs.length;
      const requestsBefore = fake.requests.length;
      const interactiveBefore = fake.interactiveCalls;
      await setupRun(page);
      const runId = await startRun(page);
      const item = listedRun(page, runId);
      await expect
        .poll(() => item.getAttribute('data-status'), { timeout: 90_000, interval: 500 })
        .toBe('done');
      expect(await item.getAttribute('data-done')).toBe(String(ROW_COUNT));
      expect(fake.interactiveCalls).toBe(interactiveBefore);
      expect(fake.jobs.length).toBe(jobsBefore);
      expect(fake.requests.length).toBe(requestsBefore);
      expect(await item.getByTestId('run-judge-usage').getAttribute('data-http-calls')).toBe('0');
      expect(await item.getByTestId('run-batch-state').count()).toBe(0);
    });
  });
}

describe('Anthropic from the page', () => {
  let app: App;
  let fake: FakeBatch;

  beforeAll(async () => {
    fake = await startFakeBatch({ wire: 'anthropic' });
    app = await openApp({});
  });

  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('offers the CLI, since its batch endpoints answer no browser preflight', async () => {
    const { page } = app;
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-provider-batch-anthropic-'));
    const file = join(dir, 'bridges-anthropic.jsonl');
    writeFileSync(file, rows().split('\n').slice(0, 3).join('\n') + '\n');
    await configureProvider(page, fake, {
      kind: 'anthropic',
      model: 'claude-3-5-haiku-latest',
      key: 'sk-ant-e2e-provider-batch',
    });
    await importDataset(page, file);
    await setupRun(page);
    expect(await page.getByTestId('run-batch-jobs').count()).toBe(0);
    expect(await page.getByTestId('run-batch-cli').innerText()).toContain(
      'npm run score -- FILE --batch anthropic',
    );
    // And the fake is right to refuse a page: its preflight carries no CORS header.
    const preflight = await fetch(`${fake.url}/v1/messages/batches`, { method: 'OPTIONS' });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('a request a batch job did not answer', () => {
  let app: App;
  let fake: FakeBatch;

  beforeAll(async () => {
    // The first job errors its third line; the job that retries it answers everything.
    fake = await startFakeBatch({
      wire: 'openai',
      lineFault: (index) => (fake.jobs.length === 1 && index === 2 ? 'error' : undefined),
    });
    app = await openApp({});
  });

  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('fails only its row, sends nothing at the standard price, and a retry sends it as a batch job', async () => {
    const { page } = app;
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-provider-batch-fault-'));
    const file = join(dir, 'bridges-fault.jsonl');
    writeFileSync(file, rows().split('\n').slice(0, 5).join('\n') + '\n');
    await configureProvider(page, fake, JUDGES.openai);
    await importDataset(page, file);
    await page.getByTestId('run-configure').last().click();
    await page.getByTestId('run-setup').waitFor();
    await page.getByTestId('run-metric-vagueness').check();
    await page.getByTestId('run-batch-jobs').check();
    await page.getByTestId('run-batch-poll').fill('1');
    const runId = await startRun(page);
    const item = listedRun(page, runId);
    await expect
      .poll(() => item.getAttribute('data-status'), { timeout: 60_000, interval: 500 })
      .toBe('done');
    expect(await item.getAttribute('data-failed')).toBe('1');
    expect(await item.getByTestId('run-batch-state').innerText()).toMatch(/1 without an answer/u);
    // At the standard price only the plan's one capability probe, never a row's request.
    expect(fake.interactiveCalls).toBeLessThanOrEqual(1);
    const probes = fake.interactiveCalls;
    const firstJob = fake.jobs[0]!.customIds.length;

    await item.getByTestId('run-retry-failed').click();
    await expect
      .poll(() => item.getAttribute('data-failed'), { timeout: 60_000, interval: 500 })
      .toBe('0');
    await expect.poll(() => item.getAttribute('data-status')).toBe('done');
    // The failed request, and only what its row still lacked, went up as a second job.
    expect(fake.jobs).toHaveLength(2);
    expect(fake.jobs[1]!.customIds.length).toBeGreaterThan(0);
    expect(fake.jobs[1]!.customIds.length).toBeLessThan(firstJob);
    expect(fake.interactiveCalls).toBe(probes);
  });
});
