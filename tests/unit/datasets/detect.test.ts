/**
 * Recognising each format from the real shared files (and files built from them), with the
 * proposed mapping and the sentence the import dialog shows; user overrides of the mapping.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { readJsonl, sharedPath } from '../../helpers/shared.ts';
import { detectDataset } from '../../../src/lib/datasets/detect/dataset.ts';
import { mappingProblems } from '../../../src/lib/datasets/detect/describe.ts';
import {
  applyMappingOverrides,
  parseMappingOverride,
} from '../../../src/lib/datasets/detect/overrides.ts';
import { proposeHumanColumns } from '../../../src/lib/datasets/detect/propose.ts';
import { parseDatasetText } from '../../../src/lib/datasets/parse/dataset.ts';
import { isPredictionRow } from '../../../src/lib/rows/formats.ts';
import { findPredictionColumn, sftPrompt } from '../../../src/lib/datasets/sft.ts';
import { SFT_SAMPLE, summeval, summevalCsv } from './_support.ts';

describe('detectDataset on the shared files', () => {
  it('SummEval dev.jsonl: summeval records, text/decoded/references, expert and turker ratings', () => {
    const d = detectDataset(summeval, { format: 'jsonl', rowCount: 600 });
    expect(d.kind).toBe('summeval');
    expect(d.confidence).toBe(1);
    expect(d.description).toBe(
      'SummEval records: 600 rows, 4 expert dimensions, 4 turker dimensions',
    );
    expect(d.mapping).toEqual({
      kind: 'summeval',
      source: 'text',
      summary: 'decoded',
      reference: 'references',
      group: 'id',
      system: 'model_id',
      human: [
        { column: 'expert_annotations', name: 'expert' },
        { column: 'turker_annotations', name: 'turker' },
      ],
    });
    expect(d.mappingProblems).toEqual([]);
  });

  it('TinyEval predictions: pred/answers/all_classes/length, and the task from the file name', () => {
    const path = 'data/tinyeval/pred/internlm/trec.jsonl';
    const d = detectDataset(readJsonl(path), { format: 'jsonl', fileName: path, rowCount: 300 });
    expect(d).toMatchObject({
      kind: 'prediction',
      confidence: 1,
      task: 'trec',
      mapping: {
        kind: 'prediction',
        prediction: 'pred',
        answers: 'answers',
        allClasses: 'all_classes',
        length: 'length',
        human: [],
      },
    });
    expect(d.description).toBe(
      'TinyEval/LongBench predictions: 300 rows, task trec (question type classification), with class labels',
    );
    // multi_news has all_classes: null everywhere: not mapped; `length` is not a rating.
    const news = detectDataset(readJsonl('data/tinyeval/pred/internlm/multi_news.jsonl'), {
      format: 'jsonl',
      fileName: 'multi_news.jsonl',
    });
    expect(news.mapping.allClasses).toBeUndefined();
    expect(news.mapping.human).toEqual([]);
    expect(news.description).toBe(
      'TinyEval/LongBench predictions: first 50 rows, task multi_news (multi-document news summarisation)',
    );
  });

  it('a CSV of cases built from dev.jsonl: source/summary/reference and two rating columns', () => {
    const { summary } = parseDatasetText(summevalCsv(20), { fileName: 'cases.csv' });
    expect(summary.detected).toMatchObject({
      format: 'csv',
      kind: 'case',
      confidence: 1,
      columns: ['doc_id', 'source', 'summary', 'reference', 'coherence', 'relevance'],
      mapping: {
        kind: 'case',
        source: 'source',
        summary: 'summary',
        reference: 'reference',
        group: 'doc_id',
        human: [
          { column: 'coherence', name: 'coherence' },
          { column: 'relevance', name: 'relevance' },
        ],
      },
    });
  });

  it('cases under other usual names (article/summary, document/candidate) at lower confidence', () => {
    const d = detectDataset(
      [{ article: 'A.', summary: 'S.', highlights: 'H.', overall: '4', annotator_id: 3 }],
      { format: 'csv' },
    );
    expect(d.kind).toBe('case');
    expect(d.confidence).toBe(0.8);
    expect(d.mapping).toMatchObject({
      source: 'article',
      summary: 'summary',
      reference: 'highlights',
    });
    expect(d.mapping.human).toEqual([{ column: 'overall', name: 'overall' }]);
  });

  it('SFT rows with a prediction column; without one, predictions to generate', () => {
    const { rows, summary } = parseDatasetText(SFT_SAMPLE, { fileName: 'sft.jsonl' });
    expect(summary.detected.kind).toBe('sft');
    expect(summary.detected.description).toBe(
      "SFT rows {instruction, input, output}: 3 rows, predictions in column 'pred'",
    );
    const sft = rows.filter(isPredictionRow);
    expect(sft).toHaveLength(3);
    expect(sft[0]).toMatchObject({
      row: 1,
      kind: 'sft',
      input: {
        prediction: 'Bonjour',
        answers: ['Bonjour'],
        fields: { instruction: 'Translate to French.', input: 'Good morning' },
      },
    });
    // TinyEval's custom_zh.jsonl: a JSON array of SFT rows, no predictions yet: they load as rows
    // whose predictions are generated first (generate.ts).
    const custom = JSON.parse(
      readFileSync(sharedPath('data/tinyeval/dataset/custom_zh.jsonl'), 'utf8'),
    ) as Record<string, unknown>[];
    const d = detectDataset(custom, { format: 'json' });
    expect(d.kind).toBe('sft');
    expect(d.mappingProblems).toEqual([]);
    expect(d.confidence).toBe(1);
    expect(d.description).toBe(
      'SFT rows {instruction, input, output}: first 1 row, no prediction column (generate the predictions with a model first)',
    );
    // Without anything to build a prompt from, a missing prediction column is still a problem.
    expect(mappingProblems({ kind: 'sft', output: 'output' }, ['output'])).toEqual([
      "No column for the model's prediction (looked for pred, prediction, response, …): map one (prediction=COLUMN).",
    ]);
  });

  it('unrecognised columns: confidence 0 and a description naming them', () => {
    const d = detectDataset([{ question: 'Q', label: 'x' }], { format: 'jsonl' });
    expect(d.confidence).toBe(0);
    expect(d.description).toMatch(/^Unrecognised records \(columns question, label\)/u);
    expect(d.mappingProblems.length).toBeGreaterThan(0);
  });
});

describe('mapping overrides (the user confirms or changes the proposal)', () => {
  it('COLUMN=FIELD moves a column to a field, a rating, a template field, or nowhere', () => {
    const d = detectDataset(summeval.slice(0, 5), { format: 'jsonl' });
    const m = applyMappingOverrides(
      d.mapping,
      [
        'references=ignore',
        'turker_annotations=ignore',
        'model_id=human:system_rank',
        'text=fields.context',
      ].map(parseMappingOverride),
    );
    expect(m.reference).toBeUndefined();
    expect(m.source).toBeUndefined();
    expect(m.fields).toEqual({ context: 'text' });
    expect(m.human).toEqual([
      { column: 'expert_annotations', name: 'expert' },
      { column: 'model_id', name: 'system_rank' },
    ]);
    expect(mappingProblems(m, d.columns)).toEqual([
      'No column for the source text (looked for source, document, article, text): map one (source=COLUMN).',
    ]);
    expect(() => parseMappingOverride('text')).toThrow("--map wants COLUMN=FIELD, not 'text'.");
    expect(() => parseMappingOverride('text=body')).toThrow(/unknown field 'body'/u);
    expect(
      mappingProblems({ kind: 'case', source: 'nope', summary: 'decoded' }, d.columns),
    ).toEqual(["Column 'nope' (the source text) is not in the file."]);
  });

  it('numeric columns other than text, ids and lengths are proposed as ratings', () => {
    const records = [
      { source: 'a', summary: 'b', score: 3, id: 1, length: 200, notes: 'x', stars: '4' },
      { source: 'c', summary: 'd', score: 4.5, id: 2, length: 100, notes: 'y', stars: '' },
    ];
    expect(
      proposeHumanColumns(records, Object.keys(records[0]!), new Set(['source', 'summary'])),
    ).toEqual([
      { column: 'score', name: 'score' },
      { column: 'stars', name: 'stars' },
    ]);
  });
});

describe('sft.ts', () => {
  it('finds the prediction column and builds the prompt', () => {
    expect(findPredictionColumn(['instruction', 'input', 'output', 'Response'])).toBe('Response');
    expect(findPredictionColumn(['instruction', 'output'])).toBeUndefined();
    expect(sftPrompt('Translate.', 'Good morning')).toBe('Translate.\nGood morning');
    expect(sftPrompt('Name the capital of Italy.', '')).toBe('Name the capital of Italy.');
  });
});
