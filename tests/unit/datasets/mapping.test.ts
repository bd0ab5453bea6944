/**
 * The mapping review: the sample the parse worker sends (preview cut short, column profiles, a
 * proposal per kind), the editor's changes to a mapping, the problems that stop an import (each
 * naming its column), when a file is shown to the user first, and the preview rows as a mapping
 * reads them.
 */
import { describe, expect, it } from 'vitest';
import { detectDataset, DETECT_SAMPLE } from '../../../src/lib/datasets/detect/dataset.ts';
import {
  choiceProblemRefs,
  choiceProblems,
  describeChoice,
  reviewReasons,
  settledChoice,
} from '../../../src/lib/datasets/mapping/checks.ts';
import {
  freePromptFields,
  promptFieldProblems,
  promptFieldsOf,
  withField,
  withHuman,
  withHumanName,
  withKind,
  withPromptField,
  withPromptFields,
  type PromptField,
} from '../../../src/lib/datasets/mapping/edit.ts';
import { taskOptions, type MappingChoice } from '../../../src/lib/datasets/mapping/fields.ts';
import { previewTable } from '../../../src/lib/datasets/mapping/preview.ts';
import {
  buildSample,
  PREVIEW_CHARS,
  previewRecord,
  profileColumns,
  type DatasetSample,
} from '../../../src/lib/datasets/mapping/sample.ts';
import { columnsOf } from '../../../src/lib/datasets/detect/propose.ts';
import type { ColumnMapping } from '../../../src/lib/rows/formats.ts';
import { readJsonl } from '../../helpers/shared.ts';
import { loadWords } from '../../../src/lib/datasets/export/words.ts';
import { englishRef } from '../../../src/lib/i18n/message.ts';
import { summeval as summevalRecords, SFT_SAMPLE } from './_support.ts';

const summeval = summevalRecords as unknown as Record<string, unknown>[];

/** Rows of a file whose column names match no known kind (as a CSV gives them: strings). */
const unusual = [
  {
    article_body: 'The council approved a new park on Monday. Work starts in May.',
    model_output: 'A park was approved.',
    gold_summary: 'The council approved a park; work starts in May.',
    grader_a: '4',
    word_count: '4',
    notes: '',
  },
  {
    article_body: 'Heavy rain closed the coastal road for two days.',
    model_output: 'Rain closed a road.',
    gold_summary: 'Rain shut the coastal road for two days.',
    grader_a: '3.5',
    word_count: '4',
    notes: 'check',
  },
  {
    article_body: 'The library extends its opening hours from June.',
    model_output: '',
    gold_summary: 'Longer library hours from June.',
    grader_a: '2',
    word_count: '0',
    notes: '',
  },
];

function sampleOf(records: Record<string, unknown>[], firstRow = 1): DatasetSample {
  return buildSample(
    records.map((record, i) => ({ row: firstRow + i, record })),
    columnsOf(records),
    { fileRecords: records.length, problems: [] },
  );
}

const unusualColumns = columnsOf(unusual);
const unusualSample = sampleOf(unusual, 2);

function caseChoice(overrides: Partial<ColumnMapping> = {}): MappingChoice {
  return {
    mapping: {
      kind: 'case',
      source: 'article_body',
      summary: 'model_output',
      reference: 'gold_summary',
      human: [{ column: 'grader_a', name: 'grader_a' }],
      ...overrides,
    },
  };
}

describe('the sample sent before import', () => {
  it('cuts long strings and long lists, keeps numbers, lists of ratings and row numbers', () => {
    const long = 'x'.repeat(PREVIEW_CHARS + 50);
    const record = {
      text: long,
      score: 3.5,
      ok: true,
      missing: null,
      experts: [{ coherence: 4, fluency: 5 }],
      labels: Array.from({ length: 150 }, (_, i) => `c${i}`),
      deep: { a: { b: { c: { d: 'deep' } } } },
    };
    const p = previewRecord(record);
    expect(p.text).toBe('x'.repeat(PREVIEW_CHARS) + '…');
    expect(p.score).toBe(3.5);
    expect(p.ok).toBe(true);
    expect(p.missing).toBeNull();
    expect(p.experts).toEqual([{ coherence: 4, fluency: 5 }]);
    expect(p.labels).toHaveLength(100);
    expect(p.deep).toEqual({ a: { b: { c: '{"d":"deep"}' } } });
    // A cut never leaves half of a surrogate pair.
    const emoji = previewRecord({ t: 'a'.repeat(PREVIEW_CHARS - 1) + '😀😀' }).t as string;
    expect(emoji).toBe('a'.repeat(PREVIEW_CHARS - 1) + '…');
  });

  it('profiles each column: filled, numeric and structured values', () => {
    const profiles = profileColumns(unusual, unusualColumns);
    expect(profiles.grader_a).toEqual({ filled: 3, numeric: 3, structured: 0 });
    expect(profiles.model_output).toEqual({ filled: 2, numeric: 0, structured: 0 });
    expect(profiles.notes).toEqual({ filled: 1, numeric: 0, structured: 0 });
    const se = profileColumns(summeval.slice(0, 5), columnsOf(summeval.slice(0, 5)));
    expect(se.expert_annotations).toEqual({ filled: 5, numeric: 0, structured: 5 });
  });

  it('keeps the first three rows with their numbers and proposes a mapping per kind', () => {
    expect(unusualSample.preview.map((p) => p.row)).toEqual([2, 3, 4]);
    expect(unusualSample.proposals.case).toMatchObject({ kind: 'case', reference: 'gold_summary' });
    expect(unusualSample.proposals.case.source).toBeUndefined();
    expect(unusualSample.proposals.prediction).toMatchObject({
      kind: 'prediction',
      prediction: 'model_output',
    });
    const se = sampleOf(summeval.slice(0, DETECT_SAMPLE));
    expect(se.proposals.summeval).toMatchObject({ source: 'text', summary: 'decoded' });
    expect(se.preview).toHaveLength(3);
  });
});

describe('changing a mapping', () => {
  it('a column chosen for a field stops being a rating; none clears the field', () => {
    const m = withField(caseChoice().mapping, 'summary', 'grader_a');
    expect(m.summary).toBe('grader_a');
    expect(m.human).toEqual([]);
    expect(withField(m, 'reference', undefined).reference).toBeUndefined();
  });

  it('ratings are ticked, unticked and renamed in place', () => {
    let m = withHuman(caseChoice().mapping, 'word_count', true);
    expect(m.human).toEqual([
      { column: 'grader_a', name: 'grader_a' },
      { column: 'word_count', name: 'word_count' },
    ]);
    m = withHumanName(m, 'grader_a', 'quality');
    m = withHuman(m, 'grader_a', true, 'quality');
    expect(m.human?.map((h) => h.name)).toEqual(['quality', 'word_count']);
    expect(withHuman(m, 'word_count', false).human).toEqual([
      { column: 'grader_a', name: 'quality' },
    ]);
  });

  it('another kind starts from its own proposal', () => {
    expect(withKind(unusualSample, 'prediction')).toEqual(unusualSample.proposals.prediction);
    expect(withKind(unusualSample, 'prediction')).not.toBe(unusualSample.proposals.prediction);
  });

  it('settles the choice: the task only for rows a task scores, names trimmed', () => {
    expect(settledChoice({ ...caseChoice(), task: 'trec' })).toEqual({
      mapping: { ...caseChoice().mapping },
    });
    const named = withHumanName(caseChoice().mapping, 'grader_a', '  quality ');
    expect(settledChoice({ mapping: named }).mapping.human).toEqual([
      { column: 'grader_a', name: 'quality' },
    ]);
    const prediction: ColumnMapping = { kind: 'prediction', prediction: 'p', answers: 'a' };
    expect(settledChoice({ mapping: prediction, task: 'trec' }).task).toBe('trec');
  });
});

describe('what stops an import', () => {
  const problems = (choice: MappingChoice) => choiceProblems(choice, unusualColumns, unusualSample);

  it('a complete mapping has none', () => {
    expect(problems(caseChoice())).toEqual([]);
  });

  it('says the same problems in the reader’s language, naming the same columns', async () => {
    const ru = await loadWords('ru');
    const ja = await loadWords('ja');
    const refs = (choice: MappingChoice) =>
      choiceProblemRefs(choice, unusualColumns, unusualSample);
    const both = caseChoice({ source: undefined, summary: 'headline' });
    expect(refs(both).map(englishRef)).toEqual(problems(both));
    expect(refs(both).map((m) => ru(m.key, m.values))).toEqual([
      'Выберите столбец, в котором «исходный текст» (обязательно).',
      'Столбца «headline» («резюме») нет в файле.',
    ]);
    const shared = refs(caseChoice({ summary: 'article_body' }));
    expect(ja(shared[0]!.key, shared[0]!.values)).toBe(
      '列「article_body」が原文と摘要の両方として読まれています: どちらかに別の列を選んでください。'
        .replace('原文', ja('datasets.field.source'))
        .replace('摘要', ja('datasets.field.summary')),
    );
  });

  it('names the missing required field and the column at fault', () => {
    expect(problems(caseChoice({ source: undefined }))).toEqual([
      'Choose the column that holds the source text (required).',
    ]);
    expect(problems(caseChoice({ summary: 'grader_a', human: [] }))).toEqual([
      "Column 'grader_a' holds only numbers in the sampled rows: it cannot be the summary, which is text.",
    ]);
    expect(problems(caseChoice({ summary: 'article_body' }))).toEqual([
      "Column 'article_body' is read as both the source text and the summary: choose another column for one of them.",
    ]);
    expect(problems(caseChoice({ summary: 'headline' }))).toEqual([
      "Column 'headline' (the summary) is not in the file.",
    ]);
    const empty = sampleOf(unusual.map((r) => ({ ...r, notes: ' ' })));
    expect(choiceProblems(caseChoice({ summary: 'notes' }), unusualColumns, empty)).toEqual([
      "Column 'notes' (the summary) is empty in all 3 sampled rows.",
    ]);
  });

  it('rating columns must hold numbers and have distinct names', () => {
    expect(
      problems(
        caseChoice({
          human: [
            { column: 'notes', name: 'notes' },
            { column: 'grader_a', name: 'score' },
            { column: 'word_count', name: 'score' },
          ],
        }),
      ),
    ).toEqual([
      "Rating column 'notes' holds no numbers in the sampled rows: ratings must be numbers.",
      "Two rating columns are named 'score': rename one.",
    ]);
    expect(problems(caseChoice({ human: [{ column: 'grader_a', name: ' ' }] }))).toEqual([
      "Rating column 'grader_a' needs a name.",
    ]);
  });

  it('predictions need a known task', () => {
    const mapping: ColumnMapping = {
      kind: 'prediction',
      prediction: 'model_output',
      answers: 'gold_summary',
    };
    expect(problems({ mapping })).toEqual([
      'Choose the task that scores these predictions (trec, multi_news, custom:rouge-l, …): without one they cannot be scored.',
    ]);
    expect(problems({ mapping, task: 'custom:rouge-l' })).toEqual([]);
    expect(problems({ mapping, task: 'custom:meteor' })[0]).toMatch(
      /^Unknown metric 'meteor' for a custom task/u,
    );
    // Every task the editor offers resolves.
    for (const t of taskOptions()) expect(problems({ mapping, task: t.id })).toEqual([]);
    expect(taskOptions().map((t) => t.id)).toEqual(
      expect.arrayContaining(['trec', 'multi_news', 'custom:rouge-l', 'custom:bleu']),
    );
  });
});

describe('which files are shown before import', () => {
  function review(records: Record<string, unknown>[], fileName: string) {
    const detected = detectDataset(records, { format: 'jsonl', fileName });
    const sample = sampleOf(records.slice(0, DETECT_SAMPLE));
    const choice = settledChoice({
      mapping: detected.mapping,
      ...(detected.task ? { task: detected.task } : {}),
    });
    return reviewReasons(detected, sample, choice);
  }

  const trec = readJsonl<Record<string, unknown>>('data/tinyeval/pred/internlm/trec.jsonl');

  it('SummEval records and a prediction file named after its task import straight away', () => {
    expect(review(summeval, 'dev.jsonl')).toEqual([]);
    expect(review(trec, 'trec.jsonl')).toEqual([]);
  });

  it('a TinyEval data file without predictions imports straight away, to generate them', () => {
    const data = readJsonl<Record<string, unknown>>('data/tinyeval/dataset/multi_news.jsonl');
    expect(data.some((r) => 'pred' in r)).toBe(false);
    expect(review(data, 'multi_news.jsonl')).toEqual([]);
  });

  it('a prediction file without a task, and unknown columns, are shown first', () => {
    expect(review(trec, 'predictions.jsonl')).toEqual([
      'Choose the task that scores these predictions (trec, multi_news, custom:rouge-l, …): without one they cannot be scored.',
    ]);
    const reasons = review(unusual, 'unusual.csv');
    expect(reasons[0]).toBe(
      'The columns do not match a known kind of file: say which column is which.',
    );
    expect(reasons).toContain('Choose the column that holds the source text (required).');
  });

  it('cases found by alias names only are shown to be confirmed', () => {
    const records = [{ article: 'A long article text.', highlights: 'A summary.', summary: 'S.' }];
    const detected = detectDataset(records, { format: 'jsonl' });
    expect(detected.confidence).toBe(0.8);
    expect(reviewReasons(detected, sampleOf(records), { mapping: detected.mapping })).toEqual([
      'Not sure what this file is (confidence 80%): check the columns.',
    ]);
  });
});

describe('the preview rows as the mapping reads them', () => {
  it('shows each mapped field and the ratings, and why a row would be rejected', () => {
    const table = previewTable(unusualSample, caseChoice().mapping);
    expect(table.headings).toEqual(['Source text', 'Summary', 'Reference summary', 'Ratings']);
    expect(table.rows[0]).toEqual({
      row: 2,
      cells: [
        unusual[0]!.article_body,
        'A park was approved.',
        unusual[0]!.gold_summary,
        'grader_a 4',
      ],
    });
    expect(table.rows[1]).toMatchObject({
      row: 3,
      cells: expect.arrayContaining(['grader_a 3.50']),
    });
    expect(table.rows[2]).toEqual({
      row: 4,
      problem: "row 4: no summary text in column 'model_output'",
    });
    expect(describeChoice(caseChoice(), unusualSample)).toBe(
      'Cases (article_body, model_output, gold_summary): 3 rows, 1 human rating column (grader_a)',
    );
  });

  it('while a required field has no column, shows what the mapped columns hold', () => {
    const table = previewTable(unusualSample, caseChoice({ summary: undefined }).mapping);
    expect(table.headings).toEqual(['Source text', 'Summary', 'Reference summary', 'Ratings']);
    expect(table.rows[1]).toEqual({
      row: 3,
      cells: [
        unusual[1]!.article_body,
        '(choose a column)',
        unusual[1]!.gold_summary,
        'grader_a 3.5',
      ],
    });
  });

  it('SummEval annotation lists become mean ratings; SFT rows show prompt fields and the answer', () => {
    const se = sampleOf(summeval.slice(0, 3));
    const table = previewTable(se, se.proposals.summeval);
    const ratings = table.rows[0] && 'cells' in table.rows[0] ? table.rows[0].cells.at(-1) : '';
    expect(ratings).toMatch(/^expert_coherence \d/u);
    const sft = sampleOf(
      SFT_SAMPLE.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>),
    );
    const sftTable = previewTable(sft, sft.proposals.sft);
    expect(sftTable.headings).toEqual([
      'Instruction',
      'Input',
      'Expected output',
      "Model's prediction",
    ]);
    expect(sftTable.rows[0]).toEqual({
      row: 1,
      cells: ['Translate to French.', 'Good morning', 'Bonjour', 'Bonjour'],
    });
    expect(sftTable.rows[2]).toEqual({
      row: 3,
      cells: ['Name the capital of Italy.', '—', 'Rome', 'Milan'],
    });
  });
});

describe('prompt fields of prediction rows', () => {
  /** A QA data file whose prompt columns have names detection does not know, and no prediction. */
  const qa = [
    {
      passage: 'The bridge opened in 1932 after six years of work.',
      question: 'When did the bridge open?',
      answers: ['1932', 'in 1932'],
      notes: '',
    },
    {
      passage: 'The museum holds 4,000 paintings, most of them Dutch.',
      question: 'How many paintings does the museum hold?',
      answers: ['4,000'],
      notes: '',
    },
  ];
  const qaColumns = columnsOf(qa);
  const qaSample = sampleOf(qa);
  const asked: PromptField[] = [
    { column: 'passage', name: 'context' },
    { column: 'question', name: 'input' },
  ];
  const choiceOf = (fields: readonly PromptField[]): MappingChoice => ({
    mapping: withPromptFields(qaSample.proposals.prediction, fields),
    task: 'custom:token-f1',
  });

  it('are ticked with the column name, renamed in place and unticked', () => {
    let fields = withPromptField([], 'question', 'question');
    fields = withPromptField(fields, 'passage', 'passage');
    fields = withPromptField(fields, 'passage', 'context');
    expect(fields).toEqual([
      { column: 'question', name: 'question' },
      { column: 'passage', name: 'context' },
    ]);
    expect(withPromptField(fields, 'question', undefined)).toEqual([
      { column: 'passage', name: 'context' },
    ]);
  });

  it("become the mapping's fields (names trimmed) and are read back in column order", () => {
    const m = withPromptFields(qaSample.proposals.prediction, [
      { column: 'question', name: ' input ' },
      { column: 'passage', name: 'context' },
    ]);
    expect(m.fields).toEqual({ input: 'question', context: 'passage' });
    expect(promptFieldsOf(m, qaColumns)).toEqual(asked);
    expect(withPromptFields(m, []).fields).toBeUndefined();
    // Only prediction rows take them: SFT rows read theirs from the instruction and input.
    const sft: ColumnMapping = {
      kind: 'sft',
      output: 'answers',
      instruction: 'question',
      human: [],
    };
    expect(withPromptFields(sft, asked)).toEqual(sft);
  });

  it('drop the columns the mapping reads as another field or a rating', () => {
    const m = withHuman(withField(qaSample.proposals.prediction, 'id', 'question'), 'notes', true);
    expect(freePromptFields([...asked, { column: 'notes', name: 'notes' }], m)).toEqual([
      { column: 'passage', name: 'context' },
    ]);
  });

  it('let rows without a prediction load as needing one, shown in the preview', () => {
    expect(qaSample.proposals.prediction.prediction).toBeUndefined();
    expect(choiceProblems(choiceOf([]), qaColumns, qaSample)).toEqual([
      "Choose the column that holds the model's prediction (required), or tick the prompt fields to generate predictions from.",
    ]);
    const choice = choiceOf(asked);
    expect(choiceProblems(choice, qaColumns, qaSample)).toEqual([]);
    expect(promptFieldProblems(asked, qaColumns, qaSample)).toEqual([]);
    expect(describeChoice(choice, qaSample)).toMatch(
      /^TinyEval\/LongBench data without predictions/u,
    );

    const table = previewTable(qaSample, choice.mapping);
    expect(table.headings).toEqual(['Answers', '{context}', '{input}']);
    expect(table.rows[0]).toEqual({
      row: 1,
      cells: ['1932 | in 1932', qa[0]!.passage, qa[0]!.question],
    });
    // The import reads the same rows: fields named as the user named them, no prediction yet.
    const settled = settledChoice(choice);
    expect(settled.mapping.fields).toEqual({ context: 'passage', input: 'question' });
  });

  it('need a valid, distinct name and a column with text', () => {
    const problems = (fields: PromptField[]) => promptFieldProblems(fields, qaColumns, qaSample);
    expect(problems([{ column: 'passage', name: '  ' }])).toEqual([
      "Prompt field from column 'passage' needs a name.",
    ]);
    expect(problems([{ column: 'passage', name: 'the text' }])).toEqual([
      "Prompt field name 'the text' (column 'passage') may hold only letters, digits and _: the template names it as {the text}.",
    ]);
    expect(problems([{ column: 'passage', name: 'ctx}' }])[0]).toContain(
      "Prompt field name 'ctx}' (column 'passage')",
    );
    expect(
      problems([
        { column: 'passage', name: 'context' },
        { column: 'question', name: 'context' },
      ]),
    ).toEqual([
      "Columns 'passage' and 'question' are both named prompt field 'context': rename one.",
    ]);
    expect(problems([{ column: 'notes', name: 'notes' }])).toEqual([
      "Prompt field column 'notes' is empty in all 2 sampled rows.",
    ]);
    expect(problems([{ column: 'summary', name: 'summary' }])).toEqual([
      "Prompt field column 'summary' is not in the file.",
    ]);
  });
});
