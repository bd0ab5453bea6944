/**
 * Generate, then evaluate, end to end: a small trec data file without predictions is imported,
 * the loopback fake provider (OpenAI wire, never a real one) writes the predictions with TinyEval's
 * trec template loaded from dataset2prompt.json, a failing row keeps its reason, a reload keeps
 * what was stored and a second start asks only for the missing row, and the task then scores
 * exactly what the fake's answers imply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';
import { importDataset } from './support/datasets.ts';
import { configureProvider } from './support/llm.ts';
import { fakeError, startFakeLlm, textReply, type FakeLlm } from '../helpers/fake-llm.ts';
import { readJson, sharedPath } from '../helpers/shared.ts';
import {
  itemForPrompt,
  TREC_ITEMS,
  trecJsonl,
  trecRecords,
  type TrecItem,
} from '../helpers/trec-sample.ts';
import {
  fillPromptTemplate,
  scoreTinyEvalTask,
  type PromptConfig,
} from '../../src/lib/datasets/tinyeval.ts';

const TREC_TEMPLATE = readJson<PromptConfig>('data/tinyeval/config/dataset2prompt.json').trec!;
const MODEL = 'fake-generator';

function trecItem(page: Page) {
  return page.getByTestId('dataset-item').filter({ hasText: 'trec' });
}

async function waitForGeneration(page: Page): Promise<void> {
  await expect
    .poll(() => page.getByTestId('generate-progress').getAttribute('data-state'), {
      timeout: 60_000,
    })
    .toMatch(/^(done|stopped|cancelled)$/u);
}

describe('generate, then evaluate', () => {
  let app: App;
  let page: Page;
  let fake: FakeLlm;
  /** The question whose first request fails (a per-row error), once. */
  let failOnce: TrecItem | undefined = TREC_ITEMS[3];

  beforeAll(async () => {
    fake = await startFakeLlm({ requireOpenAiKey: false });
    fake.setHandler((req) => {
      const prompt = String(req.body?.messages?.[0]?.content ?? '');
      const item = itemForPrompt(prompt);
      if (!item) return fakeError('openai', 'bad-request');
      if (item === failOnce) {
        failOnce = undefined;
        return fakeError('openai', 'context-length');
      }
      return textReply(req, item.reply);
    });
    app = await openApp();
    page = app.page;
  });

  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('generates the missing trec predictions, resumes after a reload, and scores them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-generate-'));
    const file = join(dir, 'trec.jsonl');
    writeFileSync(file, trecJsonl());
    await importDataset(page, file);
    expect(await trecItem(page).count()).toBe(1);

    // Five rows without predictions: the run button says to generate them first.
    expect(await trecItem(page).getAttribute('data-missing')).toBe('5');
    const run = trecItem(page).getByTestId('run-offline');
    expect(await run.isDisabled()).toBe(true);
    expect(await run.innerText()).toBe('Generate predictions first');

    await configureProvider(page, fake, { kind: 'openai-compatible', model: MODEL });
    await trecItem(page).getByTestId('generate-open').click();
    const panel = page.getByTestId('generate-panel');
    await expect.poll(() => panel.isVisible()).toBe(true);
    const template = page.getByTestId('generate-template');
    // A generic template naming the rows' fields first; TinyEval's trec entry once loaded.
    await expect.poll(() => template.inputValue()).toMatch(/\{context\}[\s\S]*\{input\}/u);
    await page
      .getByTestId('generate-config')
      .setInputFiles(sharedPath('data/tinyeval/config/dataset2prompt.json'));
    await expect.poll(() => template.inputValue()).toBe(TREC_TEMPLATE);
    await page.getByTestId('generate-max-new').fill('64');

    // The plan: five rows, and a local model without a price has an unknown cost, never $0.
    await expect.poll(() => page.getByTestId('generate-plan').getAttribute('data-rows')).toBe('5');
    expect(await page.getByTestId('generate-plan-cost').innerText()).toMatch(/^unknown/u);
    expect(await page.getByTestId('generate-plan').innerText()).toMatch(/estimated/u);
    expect(fake.requests).toHaveLength(0);

    await page.getByTestId('generate-start').click();
    await waitForGeneration(page);
    const progress = page.getByTestId('generate-progress');
    expect(await progress.getAttribute('data-state')).toBe('done');
    expect(await progress.getAttribute('data-generated')).toBe('4');
    expect(await progress.getAttribute('data-failed')).toBe('1');
    // The failed row keeps the provider's reason and still needs its prediction.
    await page.getByTestId('generate-failures').locator('summary').click();
    expect(await page.getByTestId('generate-failures').innerText()).toMatch(
      /row 4: .*context length/iu,
    );
    await expect.poll(() => trecItem(page).getAttribute('data-missing')).toBe('1');
    expect(fake.requests).toHaveLength(5);

    // Every prompt was TinyEval's template filled with its row, sent greedily as one user turn.
    const expectedPrompts = trecRecords().map((r) => fillPromptTemplate(TREC_TEMPLATE, r));
    for (const req of fake.requests) {
      expect(req.path).toBe('/v1/chat/completions');
      expect(req.model).toBe(MODEL);
      expect(req.body.temperature).toBe(0);
      expect(req.body.max_tokens ?? req.body.max_completion_tokens).toBe(64);
      expect(req.body.n ?? 1).toBe(1);
      expect(req.body.messages).toHaveLength(1);
      expect(req.body.messages[0].role).toBe('user');
      expect(expectedPrompts).toContain(req.body.messages[0].content);
    }
    expect(new Set(fake.requests.map((r) => r.body.messages[0].content)).size).toBe(5);

    // A reload keeps the stored predictions; Start asks only for the row still missing, with
    // the template remembered for this data set.
    await page.reload();
    await expect.poll(() => trecItem(page).getAttribute('data-missing')).toBe('1');
    await trecItem(page).getByTestId('generate-open').click();
    await expect.poll(() => template.inputValue()).toBe(TREC_TEMPLATE);
    await expect.poll(() => page.getByTestId('generate-plan').getAttribute('data-rows')).toBe('1');
    await page.getByTestId('generate-start').click();
    await waitForGeneration(page);
    expect(await progress.getAttribute('data-generated')).toBe('1');
    expect(fake.requests).toHaveLength(6);
    expect(fake.requests[5]!.body.messages[0].content).toBe(expectedPrompts[3]);

    await page.reload();
    await expect.poll(() => trecItem(page).getAttribute('data-missing')).toBe('0');
    expect(await trecItem(page).getByTestId('generate-open').count()).toBe(0);

    // The task now runs, and scores what the fake's answers imply.
    const expected = scoreTinyEvalTask(
      'trec',
      TREC_ITEMS.map((item) => ({
        prediction: item.reply,
        answers: [item.label],
        allClasses: trecRecords()[0]!.all_classes as string[],
      })),
    );
    expect(expected.score).toBe(80);
    await trecItem(page).getByTestId('run-offline').click();
    const runItem = page.getByTestId('run-item').first();
    await expect.poll(() => runItem.innerText(), { timeout: 60_000 }).toMatch(/done/u);
    await page.getByTestId('run-open').first().click();
    const summary = await page.getByTestId('run-summary').innerText();
    expect(summary, summary).toMatch(
      new RegExp(`Task trec\\s+${expected.mean.toFixed(3).replace('.', '\\.')}\\s`, 'u'),
    );

    // Nothing but the fake provider was contacted, and the page logged no errors beyond the
    // failed request's own console line.
    expect(app.requests.foreign().every((u) => u.startsWith(fake.url))).toBe(true);
    expect(app.errors.filter((e) => !/Failed to load resource/u.test(e))).toEqual([]);
  });
});
