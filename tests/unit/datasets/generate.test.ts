/**
 * Generate, then evaluate: TinyEval/LongBench data files (no `pred`) load as rows that need a
 * prediction; the prompt is TinyEval's template filled from the row with its middle cut to the
 * prompt length; calls are greedy; each prediction is stored with its row as it arrives, so a
 * second start generates only what is still missing; a failing row keeps its reason while a
 * quota error stops the run; scoring refuses rows still without a prediction.
 */
import { loadWords } from '../../../src/lib/datasets/export/words.ts';
import { englishRef } from '../../../src/lib/i18n/message.ts';
import type { SaidError } from '../../../src/lib/i18n/said-error.ts';
import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { readJson, readJsonl, sharedPath } from '../../helpers/shared.ts';
import { itemForPrompt, TREC_ITEMS, trecJsonl } from '../../helpers/trec-sample.ts';
import { saveTrecDataset } from '../../helpers/stored.ts';
import { NO_LOGPROB_CAPS, ScriptedJudge, type Responder } from '../judge/scripted-judge.ts';
import { detectDataset } from '../../../src/lib/datasets/detect/dataset.ts';
import { parseDatasetText } from '../../../src/lib/datasets/parse/dataset.ts';
import {
  isPredictionRow,
  needsPrediction,
  type DatasetRow,
  type GenerationRecord,
  type PredictionRow,
} from '../../../src/lib/rows/formats.ts';
import { planGeneration } from '../../../src/lib/datasets/generate/plan.ts';
import {
  buildPrompt,
  fieldsOfRows,
  generationRequest,
  genericTemplate,
  readGenerationConfig,
  settingsProblems,
  type GenerationSettings,
} from '../../../src/lib/datasets/generate/prompt.ts';
import {
  generatePredictions,
  type GenerationProgress,
  type PredictionStore,
} from '../../../src/lib/datasets/generate/runner.ts';
import { generateStoredPredictions } from '../../../src/lib/datasets/generate/stored.ts';
import { offlineRowScorer, PauseController } from '../../../src/lib/datasets/batch.ts';
import {
  fillPromptTemplate,
  scoreTinyEvalTask,
  type PromptConfig,
} from '../../../src/lib/datasets/tinyeval.ts';
import { estimateTokens } from '../../../src/lib/metrics/judge/context.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { estimateCost } from '../../../src/lib/llm/prices.ts';
import { LlmError } from '../../../src/lib/llm/types.ts';
import {
  deleteAllDatasets,
  getDataset,
  getDatasetRows,
  saveDataset,
} from '../../../src/lib/storage/datasets.ts';
import { generationFailures } from '../../../src/lib/storage/predictions.ts';

const PROMPTS = readJson<PromptConfig>('data/tinyeval/config/dataset2prompt.json');
const TREC_TEMPLATE = PROMPTS.trec!;

function trecRows(): PredictionRow[] {
  const { rows, problems } = parseDatasetText(trecJsonl(), { fileName: 'trec.jsonl' });
  expect(problems).toEqual([]);
  return rows.filter(isPredictionRow);
}

const SETTINGS: GenerationSettings = {
  template: TREC_TEMPLATE,
  maxNewTokens: 64,
  promptTokens: 2048,
};

/** Answers trec prompts like the stand-in model of the sample. */
const trecResponder: Responder = (request) => {
  const prompt = request.messages[0]?.content ?? '';
  const item = itemForPrompt(prompt);
  if (!item) throw new Error(`unexpected prompt: ${prompt.slice(-80)}`);
  return item.reply;
};

class MemoryPredictions implements PredictionStore {
  readonly predictions = new Map<number, { prediction: string; generation: GenerationRecord }>();
  readonly failures = new Map<number, GenerationRecord & { error: string }>();
  async put(row: number, prediction: string, generation: GenerationRecord) {
    if (this.predictions.has(row)) return false;
    this.predictions.set(row, { prediction, generation });
    this.failures.delete(row);
    return true;
  }
  async fail(row: number, generation: GenerationRecord & { error: string }) {
    if (this.predictions.has(row)) return false;
    this.failures.set(row, generation);
    return true;
  }
}

const ru = await loadWords('ru');
const ja = await loadWords('ja');

describe('rows without predictions load as rows that need one', () => {
  it("TinyEval's data files (no pred) are prediction data sets to generate, task from the file name", () => {
    const records = readJsonl('data/tinyeval/dataset/multi_news.jsonl');
    const d = detectDataset(records, {
      format: 'jsonl',
      fileName: 'dataset/multi_news.jsonl',
      rowCount: records.length,
    });
    expect(d).toMatchObject({
      kind: 'prediction',
      confidence: 1,
      task: 'multi_news',
      mappingProblems: [],
      mapping: {
        kind: 'prediction',
        answers: 'answers',
        fields: { context: 'context', input: 'input' },
      },
    });
    expect(d.mapping.prediction).toBeUndefined();
    expect(d.description).toBe(
      'TinyEval/LongBench data without predictions (generate them with a model first): 200 rows, task multi_news (multi-document news summarisation)',
    );

    const text = readFileSync(sharedPath('data/tinyeval/dataset/multifieldqa_zh.jsonl'));
    const { rows, problems, summary } = parseDatasetText(text, {
      fileName: 'multifieldqa_zh.jsonl',
    });
    expect(problems).toEqual([]);
    expect(summary.detected.task).toBe('multifieldqa_zh');
    expect(rows).toHaveLength(200);
    const first = rows[0]!;
    expect(needsPrediction(first)).toBe(true);
    expect(first).toMatchObject({
      kind: 'prediction',
      input: {
        prediction: '',
        needsPrediction: true,
        answers: ['厦门大学。'],
        fields: { input: '全国美国文学研究会的第十八届年会在哪所大学举办的？' },
      },
    });
  });

  it("SFT rows without a prediction column (TinyEval's custom_zh) load too", () => {
    const text = readFileSync(sharedPath('data/tinyeval/dataset/custom_zh.jsonl'));
    const { rows, problems, summary } = parseDatasetText(text, { fileName: 'custom_zh.jsonl' });
    expect(problems).toEqual([]);
    expect(summary.detected.kind).toBe('sft');
    expect(summary.detected.mappingProblems).toEqual([]);
    expect(summary.detected.description).toMatch(
      /no prediction column \(generate the predictions/u,
    );
    expect(rows[0]).toMatchObject({
      kind: 'sft',
      input: {
        prediction: '',
        needsPrediction: true,
        answers: ['臣妾是甄嬛，家父是大理寺少卿。'],
        fields: { instruction: '假设你是皇帝身边的女人--甄嬛', input: '你是谁?' },
      },
    });
  });

  it('a missing prediction loads when the row has input to generate it from, else is a bad row', () => {
    const text = [
      { pred: 'Paris', answers: ['Paris'], context: 'France.', input: 'Capital?' },
      { pred: null, answers: ['Rome'], context: 'Italy.', input: 'Capital?' },
      { answers: ['Bern'], context: '', input: '' },
      { pred: ['not', 'text'], answers: ['Oslo'], context: 'Norway.', input: 'Capital?' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const { rows, problems } = parseDatasetText(text);
    const predictions = rows.filter(isPredictionRow);
    expect(predictions.map((r) => [r.row, r.input.prediction, needsPrediction(r)])).toEqual([
      [1, 'Paris', false],
      [2, '', true],
    ]);
    expect(predictions[0]!.input).not.toHaveProperty('needsPrediction');
    expect(problems.map((p) => p.reason)).toEqual([
      "row 3: no prediction in column 'pred', and no input to generate one from",
      "row 4: no prediction in column 'pred' (an array)",
    ]);
  });

  it('the stored data set counts the rows still without a prediction', async () => {
    await deleteAllDatasets();
    const saved = await saveDataset(
      {
        id: 'counted',
        name: 'trec',
        createdAt: 1,
        kind: 'prediction',
        mapping: { kind: 'prediction', answers: 'answers', human: [] },
        problems: { count: 0, examples: [] },
        // A stale claim is replaced by the count of the rows themselves.
        missingPredictions: 99,
      },
      trecRows(),
    );
    expect(saved.missingPredictions).toBe(TREC_ITEMS.length);
    expect((await getDataset('counted'))?.missingPredictions).toBe(TREC_ITEMS.length);
  });

  it('scoring refuses a row still without a prediction, naming it', async () => {
    const score = offlineRowScorer({
      metrics: [],
      settings: DEFAULT_SETTINGS,
      task: 'trec',
      backends: {},
    });
    const row = trecRows()[1]!;
    await expect(score(row, new AbortController().signal)).rejects.toThrow(
      'Row 2 has no prediction yet: generate predictions first ("Generate predictions" in the data-set list).',
    );
  });
});

describe('prompts', () => {
  it("fills TinyEval's template like Python's str.format", () => {
    const row = trecRows()[0]!;
    const prompt = buildPrompt(row, TREC_TEMPLATE, 2048);
    expect(prompt.cut).toBe(false);
    expect(prompt.text).toBe(
      'Please determine the type of the question below. Here are some examples of questions.\n\n' +
        `${row.input.fields!.context}\n${TREC_ITEMS[0]!.question}`,
    );
    expect(prompt.tokens).toBe(estimateTokens(prompt.text));
    expect(() => buildPrompt(row, 'Summarise: {document}', 2048)).toThrow(
      'Prompt template needs {document}, which the row does not have.',
    );
  });

  it('cuts the middle of an over-long prompt: head and tail kept, within the limit', () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ');
    const row: PredictionRow = {
      row: 1,
      kind: 'prediction',
      human: {},
      input: {
        prediction: '',
        needsPrediction: true,
        answers: ['x'],
        fields: { context: words, input: 'What is the last word?' },
      },
    };
    const template = 'Read this.\n\n{context}\n\nQuestion: {input}\nAnswer:';
    const full = fillPromptTemplate(template, row.input.fields!);
    const prompt = buildPrompt(row, template, 500);
    expect(prompt.originalTokens).toBe(estimateTokens(full));
    expect(prompt.originalTokens).toBeGreaterThan(500);
    expect(prompt.cut).toBe(true);
    expect(prompt.tokens).toBeLessThanOrEqual(500);
    expect(prompt.tokens).toBeGreaterThan(480);
    // The instruction at the start and the question at the end survive; the middle goes.
    expect(prompt.text.startsWith('Read this.\n\nword0 word1 word2 ')).toBe(true);
    expect(prompt.text.endsWith('word2999\n\nQuestion: What is the last word?\nAnswer:')).toBe(
      true,
    );
    expect(prompt.text).not.toContain(' word1500 ');
    // Joined without a marker (as pred.py) at a word boundary: one jump in the word numbers,
    // with about as many tokens before it as after it.
    expect(prompt.text).not.toMatch(/cut|…/u);
    const numbers = [...prompt.text.matchAll(/word(\d+)/gu)].map((m) => Number(m[1]));
    const jumps = numbers.flatMap((n, i) => (i > 0 && n !== numbers[i - 1]! + 1 ? [i] : []));
    expect(jumps).toHaveLength(1);
    const tailStart = prompt.text.indexOf(`word${numbers[jumps[0]!]} `);
    expect(prompt.text[tailStart - 1]).toBe(' ');
    const headTokens = estimateTokens(prompt.text.slice(0, tailStart));
    const tailTokens = estimateTokens(prompt.text.slice(tailStart));
    expect(Math.abs(headTokens - tailTokens)).toBeLessThan(20);

    // Chinese: one token per character; TinyEval's multifieldqa_zh template and a long row.
    const zh = parseDatasetText(
      readFileSync(sharedPath('data/tinyeval/dataset/multifieldqa_zh.jsonl')),
      { fileName: 'multifieldqa_zh.jsonl' },
    ).rows.filter(isPredictionRow)[0]!;
    const zhPrompt = buildPrompt(zh, PROMPTS.multifieldqa_zh!, 2048);
    expect(zhPrompt.cut).toBe(true);
    expect(zhPrompt.tokens).toBeLessThanOrEqual(2048);
    expect(zhPrompt.text.startsWith('阅读以下文字并用中文简短回答：')).toBe(true);
    expect(
      zhPrompt.text.endsWith(
        '现在请基于上面的文章回答下面的问题，只告诉我答案，不要输出任何其他字词。\n\n问题：全国美国文学研究会的第十八届年会在哪所大学举办的？\n回答：',
      ),
    ).toBe(true);
  });

  it('a generic template names the fields the rows have', () => {
    expect(genericTemplate(['context', 'input'])).toMatch(/\{context\}[\s\S]*\{input\}\nAnswer:$/u);
    expect(genericTemplate(['instruction', 'input'])).toBe('{instruction}\n{input}');
    expect(genericTemplate(['context'])).toMatch(/\{context\}/u);
    expect(genericTemplate(['question'])).toBe('{question}');
    expect(genericTemplate(['question', 'passage'])).toBe(
      'Question:\n{question}\n\nPassage:\n{passage}\n\nAnswer:',
    );
    expect(fieldsOfRows(trecRows())).toEqual(['context', 'input']);
    // Every generic template builds a prompt for the rows it was written for.
    const row = trecRows()[0]!;
    expect(buildPrompt(row, genericTemplate(fieldsOfRows([row])), 2048).text).toContain(
      TREC_ITEMS[0]!.question,
    );
  });

  it("reads TinyEval's three config files by their content", () => {
    const target = { task: 'trec', name: 'trec', model: 'qwen2:7b' };
    const prompts = readGenerationConfig(PROMPTS, target);
    expect(prompts).toMatchObject({
      kind: 'prompts',
      template: TREC_TEMPLATE,
      message: 'Template for trec loaded.',
    });
    expect(ru(prompts.messageRef.key, prompts.messageRef.values)).toBe('Шаблон для trec загружен.');
    expect(
      readGenerationConfig(readJson('data/tinyeval/config/dataset2maxlen.json'), target),
    ).toMatchObject({ kind: 'max-new-tokens', maxNewTokens: 64 });
    expect(
      readGenerationConfig(readJson('data/tinyeval/config/model2maxlen.json'), target),
    ).toMatchObject({ kind: 'prompt-lengths', promptTokens: 2048 });
    expect(readGenerationConfig(PROMPTS, { name: 'my_questions', model: 'x' }).message).toMatch(
      /^The prompt config has no template for my_questions \(it lists multifieldqa_zh, /u,
    );
    expect(() =>
      readGenerationConfig(readJson('data/tinyeval/config/model2maxlen.json'), {
        name: 'trec',
        model: 'gpt-4o-mini',
      }),
    ).toThrow(/none is trec \(max new tokens\) or the model gpt-4o-mini/u);
    expect(() => readGenerationConfig([1, 2], target)).toThrow(/is a JSON object/u);
    expect(() => readGenerationConfig({ trec: -3 }, target)).toThrow(/"trec" is -3/u);
    // Refusals carry their message, worded on the page in the reader's language.
    const refusal = (json: unknown, t: typeof target) => {
      try {
        readGenerationConfig(json, t);
      } catch (error) {
        return (error as SaidError).said;
      }
      throw new Error('expected a refusal');
    };
    const none = refusal(readJson('data/tinyeval/config/model2maxlen.json'), {
      task: 'trec',
      name: 'my_trec',
      model: 'gpt-4o-mini',
    });
    expect(englishRef(none)).toMatch(/none is trec or my_trec \(max new tokens\)/u);
    expect(ru(none.key, none.values)).toMatch(/нет ни trec или my_trec/u);
    const bad = refusal({ trec: 5, qa: 'x', n: 1 }, target);
    expect(ja(bad.key, bad.values)).toMatch(/^プロンプト設定: |^設定項目「qa」/u);
  });

  it('settings problems are named before a run', () => {
    expect(settingsProblems(SETTINGS)).toEqual([]);
    expect(settingsProblems({ ...SETTINGS, template: '  ' })).toEqual([
      'The prompt template is empty.',
    ]);
    expect(settingsProblems({ ...SETTINGS, template: 'Answer {} now' })[0]).toMatch(/empty \{\}/u);
    expect(settingsProblems({ ...SETTINGS, template: 'Say {{context}}' })[0]).toMatch(
      /names no field/u,
    );
    expect(settingsProblems({ ...SETTINGS, maxNewTokens: 0, promptTokens: 10 })).toHaveLength(2);
  });

  it('asks for greedy decoding: one user turn, temperature 0, one sample, capped output', () => {
    expect(generationRequest('The prompt.', 64)).toEqual({
      messages: [{ role: 'user', content: 'The prompt.' }],
      temperature: 0,
      n: 1,
      maxTokens: 64,
      cacheKey: { prompt: 'generate.prediction@1', text: 'The prompt.', maxNewTokens: 64 },
    });
  });
});

describe('the plan', () => {
  it('rows, estimated tokens and cost before any call; an unknown price is unknown', async () => {
    const rows = trecRows();
    const prompts = rows.map((r) => buildPrompt(r, TREC_TEMPLATE, 2048).tokens + 4);
    const input = prompts.reduce((a, b) => a + b, 0);
    const plan = await planGeneration(rows, SETTINGS, { provider: 'openai', model: 'gpt-4o-mini' });
    expect(plan).toMatchObject({
      rows: 5,
      ready: 5,
      cut: 0,
      estimatedTokens: { input, output: 5 * 64 },
      problemCount: 0,
    });
    expect(plan.estimatedCost).toBe(estimateCost({ input, output: 320 }, 'openai', 'gpt-4o-mini'));
    expect(plan.estimatedCost).toBeGreaterThan(0);

    const local = await planGeneration(
      rows,
      { ...SETTINGS, template: '{context}\n{question}', promptTokens: 40 },
      { provider: 'openai-compatible', model: 'llama3.1' },
    );
    expect(local.estimatedCost).toBeUndefined();
    expect(local.notes.join(' ')).toMatch(/cost is unknown/u);
    expect(local).toMatchObject({ rows: 5, ready: 0, problemCount: 5 });
    expect(local.problems[0]).toEqual({
      row: 1,
      reason: 'Prompt template needs {question}, which the row does not have.',
    });
  });
});

describe('generating', () => {
  it('stores each prediction with provider, model and cut; the task then scores as the answers imply', async () => {
    const judge = new ScriptedJudge(trecResponder, { caps: NO_LOGPROB_CAPS });
    const store = new MemoryPredictions();
    const progress: GenerationProgress[] = [];
    const rows = trecRows();
    const outcome = await generatePredictions({
      rows,
      total: rows.length,
      judge,
      settings: SETTINGS,
      store,
      concurrency: 3,
      onProgress: (p) => progress.push(p),
      now: () => 1234,
    });
    expect(outcome).toMatchObject({ status: 'done', generated: 5, failed: 0, total: 5 });
    expect(outcome.usage).toEqual({ input: 500, output: 50 });
    // The scripted judge's model has no price: unknown, not $0.
    expect(outcome.cost).toBeUndefined();
    expect(judge.calls).toHaveLength(5);
    for (const call of judge.calls) {
      expect(call.request).toMatchObject({ temperature: 0, n: 1, maxTokens: 64 });
      expect(call.request.messages).toHaveLength(1);
      expect(call.request.messages[0]!.role).toBe('user');
    }
    expect(judge.calls.map((c) => c.request.messages[0]!.content).sort()).toEqual(
      rows.map((r) => fillPromptTemplate(TREC_TEMPLATE, r.input.fields!)).sort(),
    );
    expect(store.predictions.get(2)).toEqual({
      prediction: TREC_ITEMS[1]!.reply,
      generation: {
        provider: 'openai',
        model: 'scripted-1',
        at: 1234,
        promptCut: false,
        promptTokens: buildPrompt(rows[1]!, TREC_TEMPLATE, 2048).tokens,
        maxNewTokens: 64,
        templateHash: expect.stringMatching(/^[0-9a-f]{8}$/u),
        finishReason: 'stop',
        usage: { input: 100, output: 10 },
      },
    });
    const last = progress.at(-1)!;
    expect(last).toMatchObject({ state: 'done', done: 5, generated: 5, total: 5, etaSec: 0 });
    expect(Math.max(...progress.map((p) => p.inFlight))).toBeGreaterThan(1);

    const scored = scoreTinyEvalTask(
      'trec',
      rows.map((r) => ({ ...r.input, prediction: store.predictions.get(r.row)!.prediction })),
    );
    // Four labels right, one wrong (trec scores the first line).
    expect(scored.score).toBe(80);
  });

  it('a failing row keeps its reason; a quota error stops the run with the provider message', async () => {
    const rows = trecRows();
    const responder: Responder = (request) => {
      const item = itemForPrompt(request.messages[0]!.content);
      if (item === TREC_ITEMS[1]) {
        throw new LlmError('context-too-long', "This model's maximum context length is 8 tokens.");
      }
      if (item === TREC_ITEMS[3]) {
        throw new LlmError(
          'quota',
          'You exceeded your current quota, please check your plan and billing details.',
        );
      }
      return item!.reply;
    };
    const judge = new ScriptedJudge(responder);
    const store = new MemoryPredictions();
    const outcome = await generatePredictions({
      rows,
      total: rows.length,
      judge,
      settings: SETTINGS,
      store,
    });
    expect(outcome).toMatchObject({
      status: 'stopped',
      generated: 2,
      failed: 1,
      errorKind: 'quota',
      message: 'You exceeded your current quota, please check your plan and billing details.',
    });
    expect([...store.predictions.keys()]).toEqual([1, 3]);
    expect(store.failures.get(2)?.error).toBe("This model's maximum context length is 8 tokens.");
    // The quota row is not blamed, and nothing after it was asked.
    expect(store.failures.has(4)).toBe(false);
    expect(judge.calls).toHaveLength(4);
  });

  it('pause stops starting rows until resumed; cancel leaves the rest for later', async () => {
    const rows = trecRows();
    const pause = new PauseController();
    const judge = new ScriptedJudge(trecResponder);
    const store = new MemoryPredictions();
    let callsWhenPaused = -1;
    const running = generatePredictions({
      rows,
      total: rows.length,
      judge,
      settings: SETTINGS,
      store,
      pause: pause.signal,
      onRow: (r) => {
        if (r.row === 2) {
          pause.pause();
          callsWhenPaused = judge.calls.length;
          setTimeout(() => {
            expect(judge.calls.length).toBe(callsWhenPaused);
            pause.resume();
          }, 30);
        }
      },
    });
    expect((await running).status).toBe('done');
    expect(callsWhenPaused).toBe(2);
    expect(store.predictions.size).toBe(5);

    const cancel = new AbortController();
    const second = new MemoryPredictions();
    const cancelled = await generatePredictions({
      rows,
      total: rows.length,
      judge: new ScriptedJudge(trecResponder, { delay: () => 5 }),
      settings: SETTINGS,
      store: second,
      signal: cancel.signal,
      onRow: () => cancel.abort(),
    });
    expect(cancelled).toMatchObject({ status: 'cancelled', generated: 1 });
    expect(second.predictions.size).toBe(1);
  });

  it('a cancel while paused ends the run without a resume, the call in flight dropped', async () => {
    const rows = trecRows();
    const pause = new PauseController();
    const cancel = new AbortController();
    const store = new MemoryPredictions();
    const states: string[] = [];
    const running = generatePredictions({
      rows,
      total: rows.length,
      judge: new ScriptedJudge(trecResponder, { delay: () => 20 }),
      settings: SETTINGS,
      store,
      pause: pause.signal,
      signal: cancel.signal,
      onProgress: (p) => {
        states.push(p.state);
        // Pause, then cancel, while the first call is still out (the panel's two buttons).
        if (p.inFlight === 1 && !pause.paused) {
          pause.pause();
          setTimeout(() => cancel.abort(), 5);
        }
      },
    });
    const outcome = await running;
    expect(outcome).toMatchObject({ status: 'cancelled', generated: 0, failed: 0 });
    expect(pause.paused).toBe(true);
    expect(store.predictions.size + store.failures.size).toBe(0);
    expect(states).toContain('pausing');
    expect(states.at(-1)).toBe('cancelled');
  });
});

describe('stored data sets: resume where it stopped, nothing twice', () => {
  beforeEach(async () => {
    await deleteAllDatasets();
  });

  async function storeTrec(): Promise<void> {
    await saveTrecDataset(trecRows());
  }

  it('a stopped run resumes with only the rows still missing, and a third start asks nothing', async () => {
    await storeTrec();
    // First start: the provider's quota runs out at the third question.
    let quota = true;
    const responder: Responder = (request) => {
      const item = itemForPrompt(request.messages[0]!.content)!;
      if (quota && item === TREC_ITEMS[2]) {
        throw new LlmError('quota', 'You exceeded your current quota.');
      }
      if (item === TREC_ITEMS[4]) throw new LlmError('content-filter', 'Blocked by the filter.');
      return item.reply;
    };
    const first = new ScriptedJudge(responder);
    const stopped = await generateStoredPredictions('trec', { judge: first, settings: SETTINGS });
    expect(stopped).toMatchObject({ status: 'stopped', generated: 2, total: 5 });
    expect((await getDataset('trec'))?.missingPredictions).toBe(3);
    let rows = (await getDatasetRows('trec')) as PredictionRow[];
    expect(rows.filter((r) => !r.input.needsPrediction).map((r) => r.row)).toEqual([1, 2]);
    expect(rows[0]!.input).toMatchObject({
      prediction: TREC_ITEMS[0]!.reply,
      generation: { provider: 'openai', model: 'scripted-1', promptCut: false, maxNewTokens: 64 },
    });
    expect(rows[0]!.input).not.toHaveProperty('needsPrediction');

    // Second start (a reload, a new key): rows 1 and 2 are not asked again.
    quota = false;
    const second = new ScriptedJudge(responder);
    const resumed = await generateStoredPredictions('trec', { judge: second, settings: SETTINGS });
    expect(resumed).toMatchObject({ status: 'done', generated: 2, failed: 1, total: 3 });
    expect(second.calls.map((c) => itemForPrompt(c.request.messages[0]!.content))).toEqual([
      TREC_ITEMS[2],
      TREC_ITEMS[3],
      TREC_ITEMS[4],
    ]);
    expect((await getDataset('trec'))?.missingPredictions).toBe(1);
    expect(await generationFailures('trec')).toEqual([{ row: 5, error: 'Blocked by the filter.' }]);

    // The failed row is retried next time; rows with predictions never are.
    const third = new ScriptedJudge(trecResponder);
    const last = await generateStoredPredictions('trec', { judge: third, settings: SETTINGS });
    expect(last).toMatchObject({ status: 'done', generated: 1, failed: 0, total: 1 });
    expect(third.calls).toHaveLength(1);
    expect((await getDataset('trec'))?.missingPredictions).toBe(0);
    rows = (await getDatasetRows('trec')) as PredictionRow[];
    expect(rows.every((r) => !r.input.needsPrediction)).toBe(true);
    expect(rows[4]!.input.generation).not.toHaveProperty('error');
    expect(await generationFailures('trec')).toEqual([]);

    const none = new ScriptedJudge(trecResponder);
    expect(
      await generateStoredPredictions('trec', { judge: none, settings: SETTINGS }),
    ).toMatchObject({ status: 'done', generated: 0, total: 0 });
    expect(none.calls).toHaveLength(0);

    // Now every row scores, as the model's answers imply.
    const score = offlineRowScorer({
      metrics: [],
      settings: DEFAULT_SETTINGS,
      task: 'trec',
      backends: {},
    });
    const perRow: number[] = [];
    for (const row of rows as DatasetRow[]) {
      const out = await score(row, new AbortController().signal);
      perRow.push(('task' in out ? out.task?.score : undefined) ?? NaN);
    }
    expect(perRow).toEqual([1, 1, 1, 0, 1]);
  });
});
