/**
 * The generate panel's controller without a page: it plans, runs with the model client it is
 * given, says how the run ended, lists the rows whose attempt failed, and reads TinyEval's config
 * files into the settings.
 */
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readJson } from '../../helpers/shared.ts';
import { itemForPrompt, TREC_ITEMS, trecJsonl } from '../../helpers/trec-sample.ts';
import { saveTrecDataset } from '../../helpers/stored.ts';
import { ScriptedJudge, type Responder } from '../judge/scripted-judge.ts';
import { GenerateController, type GenerateJudge } from '../../../src/lib/state/generate.svelte.ts';
import { DEFAULT_JUDGE_PROVIDER } from '../../../src/lib/state/judge-prefs.ts';
import { DEFAULT_PRICE_TABLE } from '../../../src/lib/llm/prices.ts';
import { LlmError } from '../../../src/lib/llm/types.ts';
import { parseDatasetText } from '../../../src/lib/datasets/parse/dataset.ts';
import type { PromptConfig } from '../../../src/lib/datasets/tinyeval.ts';
import { isPredictionRow } from '../../../src/lib/rows/formats.ts';
import { deleteAllDatasets, getDataset } from '../../../src/lib/storage/datasets.ts';
import type { StoredDataset } from '../../../src/lib/storage/schema.ts';

const TREC_TEMPLATE = readJson<PromptConfig>('data/tinyeval/config/dataset2prompt.json').trec!;

const judgeSession: GenerateJudge = {
  provider: { ...DEFAULT_JUDGE_PROVIDER, model: 'scripted-1', concurrency: 1 },
  prices: DEFAULT_PRICE_TABLE,
  ready: true,
  config: () => ({
    kind: 'openai',
    model: 'scripted-1',
    baseUrl: DEFAULT_JUDGE_PROVIDER.baseUrl,
    concurrency: 1,
    timeoutSec: 120,
    apiKey: 'sk-test',
  }),
};

async function storeTrec(): Promise<void> {
  const { rows } = parseDatasetText(trecJsonl(), { fileName: 'trec.jsonl' });
  await saveTrecDataset(rows.filter(isPredictionRow));
}

async function controller(responder: Responder) {
  await storeTrec();
  const dataset: StoredDataset = (await getDataset('trec'))!;
  let changes = 0;
  const judge = new ScriptedJudge(responder);
  const generate = new GenerateController({
    dataset: () => dataset,
    judge: () => judgeSession,
    onchange: () => changes++,
    makeJudge: () => judge,
    planDelayMs: 0,
  });
  await generate.load();
  generate.template = TREC_TEMPLATE;
  generate.maxNewTokens = 64;
  generate.promptTokens = 2048;
  return {
    generate,
    judge,
    changes: () => changes,
  };
}

async function planned(generate: GenerateController): Promise<void> {
  generate.planLater();
  // A deadline in time: a loaded CI machine can outlast a hundred 5 ms timers.
  for (
    const deadline = Date.now() + 10_000;
    Date.now() < deadline && !generate.plan && !generate.planError;
  ) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The page's localStorage, which Node lacks. */
function memoryStorage(): Pick<Storage, 'getItem' | 'setItem'> {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
  };
}

beforeEach(async () => {
  await deleteAllDatasets();
  vi.stubGlobal('localStorage', memoryStorage());
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the generate controller', () => {
  it('plans, then generates every missing prediction and says so', async () => {
    const { generate, judge, changes } = await controller(
      (request) => itemForPrompt(request.messages[0]!.content)!.reply,
    );
    expect(generate.fields).toEqual(['context', 'input']);
    expect(generate.missing).toBe(TREC_ITEMS.length);
    expect(generate.problems).toEqual([]);
    await planned(generate);
    expect(generate.plan).toMatchObject({ rows: TREC_ITEMS.length, ready: TREC_ITEMS.length });

    await generate.start();
    expect(generate.running).toBe(false);
    expect(generate.message).toBe(`Done. ${TREC_ITEMS.length} predictions stored.`);
    expect(judge.calls).toHaveLength(TREC_ITEMS.length);
    expect(generate.progress).toMatchObject({ generated: TREC_ITEMS.length, state: 'done' });
    expect(changes()).toBeGreaterThan(0);
    expect((await getDataset('trec'))?.missingPredictions).toBe(0);
  });

  it('a quota error stops the run with the provider message; a failed row is listed', async () => {
    const { generate } = await controller((request) => {
      const item = itemForPrompt(request.messages[0]!.content)!;
      if (item === TREC_ITEMS[1]) throw new LlmError('content-filter', 'Blocked by the filter.');
      if (item === TREC_ITEMS[3]) throw new LlmError('quota', 'You exceeded your current quota.');
      return item.reply;
    });
    await generate.start();
    expect(generate.message).toMatch(/^Stopped: You exceeded your current quota\. /u);
    expect(generate.message).toMatch(/Start goes on with the rows still missing\.$/u);
    expect(generate.failures).toEqual([{ row: 2, error: expect.stringContaining('filter') }]);
  });

  it('reads a config file into the settings, and says which file is not JSON', async () => {
    const { generate } = await controller(() => 'unused');
    await generate.readConfigFiles([
      { name: 'dataset2maxlen.json', text: async () => JSON.stringify({ trec: 50 }) },
      { name: 'broken.json', text: async () => '{' },
    ]);
    expect(generate.maxNewTokens).toBe(50);
    expect(generate.configMessages).toHaveLength(1);
    expect(generate.configError).toMatch(/^broken\.json: not valid JSON/u);
  });

  it('remembers the settings per data set once loaded', async () => {
    const { generate } = await controller(() => 'unused');
    generate.saveSettings();
    const dataset = (await getDataset('trec'))!;
    const reloaded = new GenerateController({
      dataset: () => dataset,
      judge: () => judgeSession,
      onchange: () => {},
    });
    await reloaded.load();
    expect(reloaded.template).toBe(TREC_TEMPLATE);
    expect(reloaded.maxNewTokens).toBe(64);
  });
});
