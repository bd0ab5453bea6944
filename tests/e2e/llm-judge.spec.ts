/**
 * The LLM judge from the page, end to end, against a loopback fake provider that speaks each
 * provider's real wire format (tests/helpers/fake-llm.ts) and answers like a sensible judge
 * (tests/helpers/judge-oracle.ts). Never a real provider.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  cardState,
  launchBrowser,
  openPage,
  waitForScores,
  type AppPage,
} from './support/browser.ts';
import { configureProvider, tickJudgeMetrics, type ProviderChoice } from './support/llm.ts';
import { latestResults } from './support/stored-results.ts';
import {
  fakeError,
  geminiSuccess,
  openaiSuccess,
  startFakeLlm,
  textReply,
} from '../helpers/fake-llm.ts';
import type { FakeHandler, FakeLlm } from '../helpers/fake-llm.ts';
import { oracleHandler, promptOfWire, wireMessages } from '../helpers/judge-oracle.ts';
import { formReply } from '../unit/judge/scripted-judge.ts';
import { AnswerGate } from '../helpers/answer-gate.ts';
import { JUDGE_METRIC_IDS } from '../../src/lib/metrics/registry.ts';

const SOURCE =
  'The city council voted to close the old bridge on Monday. Repairs would cost 4 million euros. ' +
  'Engineers found cracks in two pillars last year. A ferry will carry commuters until a new bridge ' +
  'opens in 2027. Local shops fear losing customers.';
const SUMMARY =
  'The city council voted to close the old bridge on Monday. A ferry will carry commuters until a new ' +
  'bridge opens in 2027. The article discusses the reactions of shop owners.';
const INSTRUCTIONS = 'Decision: State what was decided.\nMood: Overall mood. [calm | worried]';

const LLM_IDS = JUDGE_METRIC_IDS.filter((id) => id !== 'geval-custom');

const OPENAI: ProviderChoice = {
  kind: 'openai',
  model: 'gpt-4o-mini',
  key: 'sk-e2e-openai-secret',
};

async function waitForJudge(page: Page, timeout = 90_000): Promise<void> {
  await page.waitForFunction(
    (ids) =>
      ids.every((id) => {
        const s = document
          .querySelector(`[data-testid="metric-${id}"]`)
          ?.getAttribute('data-status');
        return s === 'ok' || s === 'n/a' || s === 'error';
      }),
    LLM_IDS,
    { timeout },
  );
}

async function configure(page: Page, fake: FakeLlm, provider: ProviderChoice): Promise<void> {
  await configureProvider(page, fake, provider);
  const panel = page.getByTestId('judge-panel');
  if ((await panel.getAttribute('open')) === null) await panel.locator('summary').click();
  if (!(await page.getByTestId('judge-enabled').isChecked())) {
    await page.getByTestId('judge-enabled').check();
  }
  await page.getByTestId('judge-samples').fill('3');
  await tickJudgeMetrics(page, LLM_IDS);
}

/**
 * G-Eval's samples of one form, in turn: the card must show their mean, 10/3, a figure no answer
 * of the fake carries (with every sample the same, the card could echo the fake's own score).
 */
const GEVAL_SAMPLES = [2, 3, 5];
const GEVAL_MEAN = 10 / 3;

/** `base`, except that each G-Eval form gets the next of GEVAL_SAMPLES per sample asked for. */
function spreadGevalSamples(base: FakeHandler): FakeHandler {
  const given = new Map<string, number>();
  return (req) => {
    if (promptOfWire(req) !== 'g-eval.form@1') return base(req);
    // One request asks for n samples where the wire can (OpenAI `n`, Gemini `candidateCount`),
    // else the client sends the same form n times: count per form either way.
    const n = Number(req.body?.n ?? req.body?.generationConfig?.candidateCount ?? 1);
    const form = JSON.stringify(wireMessages(req));
    const first = given.get(form) ?? 0;
    given.set(form, first + n);
    const texts = Array.from({ length: n }, (_, i) =>
      formReply(GEVAL_SAMPLES[(first + i) % GEVAL_SAMPLES.length]!),
    );
    if (req.wire === 'openai') return { body: openaiSuccess({ texts }) };
    if (req.wire === 'gemini') return { body: geminiSuccess({ texts }) };
    return textReply(req, texts[0]!);
  };
}

async function fillCase(page: Page): Promise<void> {
  await page.getByTestId('source-input').fill(SOURCE);
  await page.getByTestId('summary-input').fill(SUMMARY);
  const details = page.locator('details.instructions');
  if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
  await page.getByTestId('instructions-input').fill(INSTRUCTIONS);
}

describe('the LLM judge from the page', () => {
  let browser: Browser;
  let app: AppPage;
  let page: Page;
  let fake: FakeLlm;

  beforeAll(async () => {
    fake = await startFakeLlm({ requireOpenAiKey: false });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await fake?.close();
  });

  beforeEach(async () => {
    await app?.context.close();
    app = await openPage(browser);
    page = app.page;
    fake.reset();
    fake.setHandler(oracleHandler(3));
  });

  const providers: ProviderChoice[] = [
    OPENAI,
    { kind: 'anthropic', model: 'claude-haiku-4-5', key: 'sk-ant-e2e-secret' },
    { kind: 'gemini', model: 'gemini-2.5-flash-lite', key: 'AIza-e2e-gemini-secret' },
    { kind: 'openai-compatible', model: 'llama3.1' },
  ];

  for (const p of providers) {
    it(`${p.kind}: every LLM metric scores from the page, with plan and cost; a re-run makes zero requests`, async () => {
      fake.setHandler(spreadGevalSamples(oracleHandler(3)));
      await configure(page, fake, p);
      await fillCase(page);
      // The plan is shown before running.
      await expect.poll(() => page.getByTestId('judge-plan-calls').innerText()).toMatch(/^\d+$/u);
      expect(Number(await page.getByTestId('judge-plan-calls').innerText())).toBeGreaterThan(5);
      // Priced models show a dollar estimate; a local model has no price, and says so.
      expect(await page.getByTestId('judge-plan-cost').innerText()).toMatch(
        p.kind === 'openai-compatible' ? /unknown/u : /^\$\d/u,
      );

      await page.getByTestId('score-button').click();
      await waitForScores(page);
      await waitForJudge(page);
      for (const id of LLM_IDS) {
        const state = await cardState(page, id);
        expect(state.status, `${id}: ${state.status}`).toBe('ok');
        expect(state.backend).toMatch(new RegExp(`^judge:${p.kind}/${p.model}`, 'u'));
      }
      // The mean of the three samples the fake gave, not any one answer of it.
      expect(Number((await cardState(page, 'geval-coherence')).score)).toBeCloseTo(GEVAL_MEAN, 2);
      expect(Number((await cardState(page, 'ccai-adherence')).score)).toBe(1);
      const sent = fake.requests.length;
      expect(sent).toBeGreaterThan(0);
      // The report counts every request the case made, the one-time capability probe with them
      // (it is paid for like any other).
      expect(await page.getByTestId('judge-report-http').innerText()).toBe(String(sent));

      // The key never travels in a body, and nothing but the provider was contacted.
      if (p.key) for (const r of fake.requests) expect(JSON.stringify(r.body)).not.toContain(p.key);
      expect(app.requests.foreign().every((u) => u.startsWith(fake.url))).toBe(true);

      // Same case, same model, same settings: every answer comes from the cache.
      await page.getByTestId('score-button').click();
      await waitForJudge(page);
      await expect.poll(() => page.getByTestId('judge-report-http').innerText()).toBe('0');
      expect(fake.requests.length).toBe(sent);
      expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
    });
  }

  it('highlights the source sentence behind a claim', async () => {
    await configure(page, fake, OPENAI);
    await fillCase(page);
    await page.getByTestId('score-button').click();
    await waitForJudge(page);
    const card = page.getByTestId('metric-alignment');
    await card.locator('summary').first().click();
    const claim = card.getByTestId('claim').first();
    expect(await claim.getAttribute('data-verdict')).toBe('supported');
    await claim.click();
    const mark = card.getByTestId('source-excerpt').locator('mark');
    expect(await mark.innerText()).toBe(
      'The city council voted to close the old bridge on Monday.',
    );
  });

  it('retries a rate limit and still scores', async () => {
    let limited = 0;
    const oracle = oracleHandler(3);
    fake.setHandler(async (req) => {
      if (promptOfWire(req) === 'vagueness.sentences@1' && limited === 0) {
        limited++;
        return fakeError('openai', 'rate-limit');
      }
      return oracle(req);
    });
    await configure(page, fake, OPENAI);
    await fillCase(page);
    await page.getByTestId('score-button').click();
    await waitForJudge(page);
    expect(limited).toBe(1);
    expect((await cardState(page, 'vagueness')).status).toBe('ok');
  });

  it('says once, plainly, when the key is wrong; the case keeps the errors; offline metrics still score', async () => {
    fake.setHandler((req) =>
      promptOfWire(req) ? fakeError('openai', 'bad-key') : textReply(req, '7'),
    );
    await configure(page, fake, { ...OPENAI, key: 'sk-e2e-wrong-key' });
    await fillCase(page);
    await page.getByTestId('score-button').click();
    await waitForScores(page);
    const notice = page.getByTestId('judge-notice');
    await notice.waitFor({ timeout: 90_000 });
    const text = await notice.innerText();
    expect(text).toMatch(/^LLM metrics stopped: .*API key/iu);
    expect(text).not.toContain('sk-e2e-wrong-key');
    // One notice, not a red card per metric.
    for (const id of LLM_IDS) expect(await page.getByTestId(`metric-${id}`).count()).toBe(0);
    expect((await cardState(page, 'rouge-1')).status).not.toBe('error');
    expect((await cardState(page, 'entity-density')).status).toBe('ok');
    // For a person to look at: the notice above the board, at both widths and in both schemes.
    mkdirSync('.tmp', { recursive: true });
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme: scheme });
        await notice.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `.tmp/judge-stopped-${width}-${scheme}.png` });
      }
    }
    // The stored case still says why each LLM metric has no score.
    await expect
      .poll(async () => Object.keys(await latestResults(page)), { timeout: 30_000 })
      .toEqual(expect.arrayContaining(LLM_IDS));
    const stored = await latestResults(page);
    expect(stored.alignment?.score ?? null).toBeNull();
  });

  it('cancels mid-run: no card keeps spinning and no request is sent after', async () => {
    // Answers held back, so that Cancel lands while requests wait at the fake.
    const gate = new AnswerGate(oracleHandler(3));
    fake.setHandler(gate.handler);
    await configure(page, fake, OPENAI);
    await fillCase(page);
    await page.getByTestId('score-button').click();
    await expect.poll(() => gate.held).toBeGreaterThan(0);
    await page.getByTestId('cancel-button').click();
    const afterCancel = fake.requests.length;
    // Cancel aborts the requests in flight (the fake sees their connections close) and ends the
    // run. A request sent after it would wait at the gate, in flight, and be counted.
    await expect.poll(() => fake.inFlight).toBe(0);
    for (const id of LLM_IDS) {
      await expect.poll(async () => (await cardState(page, id)).status).not.toBe('running');
    }
    await expect.poll(() => page.getByTestId('score-button').isEnabled()).toBe(true);
    expect(fake.requests.length).toBe(afterCancel);
    expect(fake.inFlight).toBe(0);
    gate.allow(Infinity);
  });
});
