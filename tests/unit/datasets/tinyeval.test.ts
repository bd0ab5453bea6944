/**
 * TinyEval tasks through the import path: the prediction files are parsed as a user's upload
 * would be (parse → rows → task), and the published internlm figures come out exactly:
 * multi_news 23.66, multifieldqa_zh 34.97 (jieba words), trec 52.0. The metric functions alone
 * are checked against the per-item vectors in tests/unit/metrics/lexical/tinyeval-vectors.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { readJson, sharedPath } from '../../helpers/shared.ts';
import { parseDatasetText } from '../../../src/lib/datasets/parse/dataset.ts';
import { isPredictionRow, type PredictionRow } from '../../../src/lib/rows/formats.ts';
import {
  fillPromptTemplate,
  needsWordSegmenter,
  parsePromptConfig,
  pyRound2,
  resolveTask,
  scoreTinyEvalRow,
  scoreTinyEvalTask,
  taskFromFileName,
  templateFields,
  TINYEVAL_TASKS,
} from '../../../src/lib/datasets/tinyeval.ts';
import { loadJiebaNode } from '../../../src/lib/metrics/lexical/jieba.ts';

interface ReproEntry {
  n: number;
  expected_result_json: number | null;
  modeB_max_over_gts: number;
  per_item_modeB_first10: number[];
}

const repro = readJson<Record<string, ReproEntry>>('data/reference/tinyeval_repro.json');
const jieba = loadJiebaNode();

function loadPredictions(model: string, dataset: string): PredictionRow[] {
  const path = sharedPath(`data/tinyeval/pred/${model}/${dataset}.jsonl`);
  const { rows, problems, summary } = parseDatasetText(readFileSync(path), { fileName: path });
  expect(problems).toEqual([]);
  expect(summary.detected.kind).toBe('prediction');
  expect(summary.detected.task).toBe(dataset);
  return rows.filter(isPredictionRow);
}

describe('published TinyEval figures through parse → rows → task', () => {
  it.each([
    ['multi_news', 23.66],
    ['multifieldqa_zh', 34.97],
    ['trec', 52.0],
  ] as const)('internlm %s: %s', (dataset, published) => {
    const rows = loadPredictions('internlm', dataset);
    const task = resolveTask(dataset);
    const result = scoreTinyEvalTask(task, rows, { segmenter: jieba });
    const entry = repro[`internlm/${dataset}`]!;
    expect(result.n).toBe(entry.n);
    expect(result.score).toBe(published);
    expect(result.score).toBe(entry.expected_result_json);
    entry.per_item_modeB_first10.forEach((v, i) =>
      expect(Math.abs(result.perRow[i]! - v)).toBeLessThan(1e-6),
    );
    if (needsWordSegmenter(task)) expect(result.segmenter).toBe('jieba');
  });

  it('internlm2 multifieldqa_zh: 48.97 (no published figure; the max-over-answers value)', () => {
    const rows = loadPredictions('internlm2', 'multifieldqa_zh');
    expect(scoreTinyEvalTask('multifieldqa_zh', rows, { segmenter: jieba }).score).toBe(48.97);
  });

  it('the same from a CSV export of the trec predictions (lists in cells)', () => {
    const rows = loadPredictions('internlm', 'trec');
    const csv = [
      'pred,answers,all_classes',
      ...rows.map((r) =>
        [r.input.prediction, JSON.stringify(r.input.answers), JSON.stringify(r.input.allClasses)]
          .map((v) => `"${v.replace(/"/gu, '""')}"`)
          .join(','),
      ),
    ].join('\r\n');
    const parsed = parseDatasetText(csv, { fileName: 'trec.csv' });
    expect(parsed.problems).toEqual([]);
    expect(parsed.summary.detected.task).toBe('trec');
    expect(scoreTinyEvalTask('trec', parsed.rows.filter(isPredictionRow)).score).toBe(52.0);
  });
});

describe('scoreTinyEvalRow', () => {
  it('max over answers; trec-style tasks score the first line only', () => {
    const classes = ['Location', 'Other location', 'City', 'Date'];
    // "Other location" contains "location" case-sensitively? No: "Location" ≠ "location".
    const r = scoreTinyEvalRow(
      'trec',
      '\n\nOther location\nType: Date',
      ['Other location'],
      classes,
    );
    expect(r.scored).toBe('Other location');
    expect(r.score).toBe(1);
    // Without the first-line cut, "Date" would be a second match (score 0.5).
    expect(
      scoreTinyEvalRow('custom:classification', 'Other location\nDate', ['Other location'], classes)
        .score,
    ).toBe(0.5);
    const qa = scoreTinyEvalRow('hotpotqa', 'The Eiffel Tower', ['Eiffel Tower', 'Big Ben']);
    expect(qa.perAnswer).toEqual([1, 0]);
    expect(qa.score).toBe(1);
    expect(scoreTinyEvalRow('hotpotqa', 'x', []).score).toBe(0);
  });

  it('custom tasks take any reference metric (BLEU scaled to 0–1)', () => {
    const p = 'the cat sat on the mat';
    expect(scoreTinyEvalRow('custom:rouge-1', p, ['the cat sat on the mat']).score).toBeCloseTo(
      1,
      9,
    );
    const bleu = scoreTinyEvalRow('custom:bleu', p, ['the cat sat on the mat']).score;
    expect(bleu).toBeCloseTo(1, 6);
    expect(scoreTinyEvalRow('custom:token-f1', p, ['a dog']).score).toBe(0);
    expect(resolveTask('custom', 'qa-f1').metric).toBe('qa-f1');
  });

  it('unknown tasks and metrics name the known ones', () => {
    expect(() => resolveTask('gsm8k')).toThrow(/Unknown task 'gsm8k'. Known: multi_news, /u);
    expect(() => resolveTask('custom:meteor')).toThrow(/Unknown metric 'meteor'/u);
    expect(() => resolveTask('custom')).toThrow(/needs a metric/u);
  });
});

describe('task registry', () => {
  it('TinyEval tasks and the LongBench tasks our metrics cover', () => {
    expect(TINYEVAL_TASKS.multi_news!.metric).toBe('longbench-rouge');
    expect(TINYEVAL_TASKS.multifieldqa_zh!.metric).toBe('qa-f1-zh');
    expect(TINYEVAL_TASKS.trec).toMatchObject({ metric: 'classification', firstLine: true });
    expect(TINYEVAL_TASKS.custom_zh!.metric).toBe('longbench-rouge-zh');
    expect(TINYEVAL_TASKS.samsum!.firstLine).toBe(true);
    expect(taskFromFileName('pred/internlm/trec.jsonl')).toBe('trec');
    expect(taskFromFileName('C:\\x\\hotpotqa_e.jsonl')).toBe('hotpotqa');
    expect(taskFromFileName('mydata.jsonl')).toBeUndefined();
  });

  it("pyRound2 rounds as Python's round(x, 2), exact ties to even", () => {
    expect(pyRound2(52.125)).toBe(52.12); // exactly representable tie
    expect(pyRound2(52.375)).toBe(52.38);
    expect(pyRound2(2.675)).toBe(2.67); // 2.67499999… in binary
    expect(pyRound2(23.656266)).toBe(23.66);
    expect(pyRound2(52)).toBe(52);
  });
});

describe('prompt templates (config/dataset2prompt.json)', () => {
  const config = parsePromptConfig(readJson('data/tinyeval/config/dataset2prompt.json'));

  it('fills {context} and {input} as Python str.format does', () => {
    expect(Object.keys(config)).toEqual(
      expect.arrayContaining(['multi_news', 'multifieldqa_zh', 'trec', 'custom_zh', 'custom_en']),
    );
    expect(templateFields(config.multifieldqa_zh!)).toEqual(['context', 'input']);
    const prompt = fillPromptTemplate(config.trec!, {
      context: 'Q: Who? Type: Person',
      input: 'Q: Where?',
    });
    expect(prompt).toBe(
      'Please determine the type of the question below. Here are some examples of questions.\n\nQ: Who? Type: Person\nQ: Where?',
    );
    expect(fillPromptTemplate('{{literal}} {x}', { x: 1 })).toBe('{literal} 1');
    expect(() => fillPromptTemplate(config.multi_news!, {})).toThrow(
      'Prompt template needs {context}, which the row does not have.',
    );
    expect(() => parsePromptConfig({ trec: 3 })).toThrow(/Prompt config: trec/u);
  });

  it('prediction rows keep the template fields of a LongBench data file', () => {
    const line = JSON.stringify({ pred: 'x', answers: ['y'], context: 'C', input: 'I', _id: 'a1' });
    const { rows } = parseDatasetText(line);
    const row = rows.filter(isPredictionRow)[0]!;
    expect(row.input.fields).toEqual({ context: 'C', input: 'I' });
    expect(fillPromptTemplate(config.multifieldqa_zh!, row.input.fields!)).toContain('C\n\n现在');
    expect(row.group).toMatch(/^src:/u);
  });
});
