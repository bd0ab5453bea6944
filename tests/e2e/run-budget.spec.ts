/**
 * A plan that is a ceiling, against the loopback fake provider answering without log-probabilities
 * (and one choice where `n` asks for several, as some servers do): the plan probes the model
 * first and counts G-Eval's fallback (20 samples = 20 requests per form and row); a budget set
 * lower than the plan pauses the run, the page says why, and the requests the fake received stop
 * at the budget (priced from the usage the fake itself reported); raising the budget finishes
 * the run, within the plan's "at most". Screenshots of the setup with its plan and of the paused
 * run, at 1280×800 and 390×844, light and dark.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';
import { importDataset, listedRun, startedRun } from './support/datasets.ts';
import { configureProvider } from './support/llm.ts';
import { shootViews } from './support/layout.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { oracleHandler, promptOfWire } from '../helpers/judge-oracle.ts';
import { DEFAULT_PRICE_TABLE, estimateCost } from '../../src/lib/llm/prices.ts';

const ROWS = 4;
const MODEL = 'gpt-4o-mini';
const BUDGET = 0.0004;
const SHOTS = join(process.cwd(), '.tmp', 'views');

/** Tokens as a provider would count them, roughly: the fake reports these, the page prices them. */
const tokens = (text: string) => Math.ceil(text.length / 4);

interface Answered {
  prompt: string | undefined;
  input: number;
  output: number;
}

describe('a run paused at its budget', () => {
  let app: App;
  let page: Page;
  let fake: FakeLlm;
  const answered: Answered[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-budget-'));
  const file = join(dir, 'bridge-budget.jsonl');

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    writeFileSync(
      file,
      Array.from({ length: ROWS }, (_, i) =>
        JSON.stringify({
          source: `Report ${i + 1}. The council of Arden closed the old bridge on Monday. Repairs would cost ${i + 2} million euros. A ferry will carry commuters from 2027.`,
          summary: `Report ${i + 1}: Arden closed its bridge, and repairs cost ${i + 2} million euros.`,
        }),
      ).join('\n') + '\n',
    );
    fake = await startFakeLlm();
    // The oracle answers the probe without logprobs and `n` with one choice; each answer reports
    // the usage of its real prompt and reply, so that a budget is reached as with a provider.
    const oracle = oracleHandler(3);
    fake.setHandler(async (req: RecordedRequest) => {
      const reply = await oracle(req);
      const body = reply.body as { usage?: object; choices?: unknown };
      const input = tokens(JSON.stringify(req.body.messages));
      const output = tokens(JSON.stringify(body.choices));
      body.usage = {
        prompt_tokens: input,
        completion_tokens: output,
        total_tokens: input + output,
      };
      answered.push({ prompt: promptOfWire(req), input, output });
      return reply;
    });
    app = await openApp();
    page = app.page;
  });

  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  /** What the fake answered to the run (the probe apart), in order, each priced as the page does. */
  const judgeCosts = () =>
    answered
      .filter((a) => a.prompt !== undefined)
      .map((a) => estimateCost({ input: a.input, output: a.output }, 'openai', MODEL)!);

  it('plans the fallback, pauses at the budget with the reason, and finishes once it is raised', async () => {
    await configureProvider(page, fake, { kind: 'openai', model: MODEL, key: 'sk-e2e-budget' });
    // One request at a time: the budget is checked before each one.
    await page.getByTestId('provider-concurrency').fill('1');
    await importDataset(page, file);

    await page.getByTestId('run-configure').last().click();
    const setup = page.getByTestId('run-setup');
    await setup.waitFor();
    const boxes = setup.locator('[data-testid^="run-metric-"]');
    for (let i = 0; i < (await boxes.count()); i++) {
      const box = boxes.nth(i);
      const id = ((await box.getAttribute('data-testid')) ?? '').replace('run-metric-', '');
      await box.setChecked(id === 'vagueness' || id === 'geval-consistency');
    }
    const plan = page.getByTestId('run-plan');
    const judgePlan = page.getByTestId('run-plan-judge');
    // The plan asked the model first: no logprobs, so G-Eval falls back to its 20 samples.
    await expect.poll(() => judgePlan.getAttribute('data-capabilities')).toBe('probe');
    expect(await judgePlan.getAttribute('data-geval-method')).toBe('sampling');
    expect(await page.getByTestId('run-plan-method').innerText()).toMatch(
      /returns no log-probabilities: each G-Eval form falls back to 20 samples, counted as 20 requests per form/u,
    );
    const geval = page.locator('[data-testid="run-plan-metric"][data-metric="geval-consistency"]');
    expect(await geval.getAttribute('data-requests-per-row')).toBe('20');
    expect(await geval.getAttribute('data-requests-per-run')).toBe('1');
    const vagueness = page.locator('[data-testid="run-plan-metric"][data-metric="vagueness"]');
    expect(await vagueness.getAttribute('data-requests-per-row')).toBe('1');
    const planned = Number(await plan.getAttribute('data-llm-calls'));
    expect(planned).toBe(1 + ROWS * (20 + 1));
    // Only the probe went out before Start.
    expect(judgeCosts()).toHaveLength(0);

    await page.getByTestId('run-budget-usd').fill(String(BUDGET));
    await page.getByTestId('run-budget-usd').blur();
    await expect
      .poll(() => page.getByTestId('run-ceiling').getAttribute('data-cost'))
      .toBe(String(BUDGET));
    for (const problem of await shootViews(page, SHOTS, 'run-budget-setup', () => setup)) {
      expect.soft(problem).toBe('');
    }

    const runId = await startedRun(page, () => page.getByTestId('run-start').click());
    const item = listedRun(page, runId);
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 90_000 }).toBe('paused');
    const message = await item.getByTestId('run-message').innerText();
    expect(message).toMatch(
      /^Paused: reached the budget of \$0\.0004 — \d+ of 85 planned requests sent \(\$0\.0\d+ spent\); raise the budget or resume once past it\.$/u,
    );
    // Server side: the request that reached the budget was the last one sent.
    const costs = judgeCosts();
    const all = costs.reduce((a, b) => a + b, 0);
    const beforeLast = all - costs.at(-1)!;
    expect(beforeLast).toBeLessThan(BUDGET);
    expect(all).toBeGreaterThanOrEqual(BUDGET);
    expect(costs.length).toBeLessThan(planned);
    expect(message).toContain(`${costs.length} of 85 planned`);
    // Paused: no time left, no model-loading line, no Pause or Cancel; the ceiling's choice.
    expect(await item.getByTestId('run-eta').count()).toBe(0);
    expect(await page.getByTestId('run-loading').count()).toBe(0);
    expect(await item.getByTestId('run-pause').count()).toBe(0);
    expect(await item.getByTestId('run-cancel').count()).toBe(0);
    expect(await item.getByTestId('run-ceiling-raise').count()).toBe(1);
    expect(judgeCosts()).toHaveLength(costs.length);
    for (const problem of await shootViews(page, SHOTS, 'run-budget-paused', () => item)) {
      expect.soft(problem).toBe('');
    }

    // A raised budget: the run goes on where it stopped and finishes within its plan.
    await item.getByTestId('run-ceiling-usd').fill('1');
    await item.getByTestId('run-ceiling-raise').click();
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 120_000 }).toBe('done');
    expect(await item.innerText()).toMatch(/done · 4\/4 rows/u);
    // Within the plan but for the requests the pause dropped in flight (asked again on resume):
    // the second drive may send at most the plan of the rows it had left.
    expect(judgeCosts().length).toBeLessThanOrEqual(costs.length + planned);
    expect(await item.getByTestId('run-pause').count()).toBe(0);
    expect(await item.getByTestId('run-cancel').count()).toBe(0);
    // Every request the run sent is in its usage (the plan's probe came before it).
    expect(await item.getByTestId('run-judge-usage').getAttribute('data-http-calls')).toBe(
      String(judgeCosts().length),
    );
    expect(DEFAULT_PRICE_TABLE.entries.some((e) => e.model === MODEL)).toBe(true);
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  }, 300_000);
});
