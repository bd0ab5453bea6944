/**
 * What detection, the mapping editor and the storage meter say comes as a message the page words
 * in its language, while the English text the CLI and the tests read stays as it was.
 */
import { describe, expect, it } from 'vitest';
import { loadWords } from '../../../src/lib/datasets/export/words.ts';
import { detectDataset } from '../../../src/lib/datasets/detect/dataset.ts';
import { describeDatasetRef } from '../../../src/lib/datasets/detect/describe.ts';
import { detectionDoubt, detectionDoubtRef } from '../../../src/lib/datasets/mapping/checks.ts';
import { englishRef, type MessageRef } from '../../../src/lib/i18n/message.ts';
import { describeEstimate, describeEstimateRef } from '../../../src/lib/storage/quota.ts';
import type { StorageEstimateInfo } from '../../../src/lib/storage/quota.ts';
import { summeval } from './_support.ts';

const ru = await loadWords('ru');
const ja = await loadWords('ja');
const word = (words: typeof ru, message: MessageRef | undefined) =>
  message ? words(message.key, message.values) : undefined;

const CASES = [
  { source: 'A long source.', summary: 'A summary.', quality: 4 },
  { source: 'Another source.', summary: 'Another summary.', quality: 2 },
];

describe('a detected data set in the reader’s language', () => {
  it('words the description in Russian and Japanese; the English text is unchanged', () => {
    const d = detectDataset(CASES, { format: 'jsonl', rowCount: 2 });
    expect(d.description).toBe('Cases (source, summary): 2 rows, 1 human rating column (quality)');
    expect(d.descriptionRef).toBeDefined();
    expect(englishRef(d.descriptionRef!)).toBe(d.description);
    expect(word(ru, d.descriptionRef)).toBe(
      'Случаи (source, summary): 2 строки, 1 столбец оценок людей (quality)',
    );
    expect(word(ja, d.descriptionRef)).toBe(
      'ケース（source, summary）：2 行、人手評価の列 1 個（quality）',
    );
  });

  it('words SummEval’s rating dimensions with Russian plurals', () => {
    const d = detectDataset(summeval, { format: 'jsonl', rowCount: 600 });
    expect(d.description).toBe(
      'SummEval records: 600 rows, 4 expert dimensions, 4 turker dimensions',
    );
    expect(word(ru, d.descriptionRef)).toBe(
      'Записи SummEval: 600 строк, 4 критерия expert, 4 критерия turker',
    );
  });

  it('words a prediction file’s task, and a file of no known kind', () => {
    const predictions = describeDatasetRef(
      { kind: 'prediction', prediction: 'pred', answers: 'answers', human: [] },
      [],
      { count: 21, final: false },
    );
    expect(englishRef(predictions)).toBe(
      'TinyEval/LongBench predictions: first 21 rows, no task named yet',
    );
    expect(word(ru, predictions)).toBe(
      'Предсказания TinyEval/LongBench: первая 21 строка, задача пока не указана',
    );
    const unknown = detectDataset([{ question: 'Q', label: 'x' }], { format: 'jsonl' });
    expect(word(ru, unknown.descriptionRef)).toMatch(
      /^Нераспознанные записи \(столбцы question, label\)/u,
    );
  });

  it('words the doubt about a file found only through alias names', () => {
    const d = { ...detectDataset(CASES, { format: 'jsonl' }), confidence: 0.8 };
    expect(detectionDoubt(d)).toBe(
      'Not sure what this file is (confidence 80%): check the columns.',
    );
    expect(word(ru, detectionDoubtRef(d))).toBe(
      'Непонятно, что это за файл (уверенность 80\u00a0%): проверьте столбцы.',
    );
    expect(detectionDoubtRef({ ...d, confidence: 1 })).toBeUndefined();
  });
});

describe('the storage meter in the reader’s language', () => {
  const MB = 1024 * 1024;
  const info: StorageEstimateInfo = {
    supported: true,
    usage: 50 * MB,
    quota: 10 * 1024 * MB,
    fraction: (50 * MB) / (10 * 1024 * MB),
    persisted: false,
  };

  it('keeps the English line and words it in Russian and Japanese', () => {
    expect(describeEstimate(info)).toBe(
      '50.0 MB of 10.0 GB used (0.5%). The browser may clear it when the disk runs low.',
    );
    expect(englishRef(describeEstimateRef(info))).toBe(describeEstimate(info));
    expect(word(ru, describeEstimateRef(info))).toBe(
      'Занято 50.0 MB из 10.0 GB (0,5\u00a0%). Браузер может удалить данные, когда на диске мало места.',
    );
    expect(word(ja, describeEstimateRef({ ...info, persisted: true }))).toBe(
      '10.0 GB のうち 50.0 MB を使用中（0.5%）。永続的に保存されています。',
    );
  });

  it('words an unknown use and an unsupported browser', () => {
    expect(word(ru, describeEstimateRef({ ...info, usage: null }))).toBe(
      'Сколько места занято, неизвестно.',
    );
    expect(word(ru, describeEstimateRef({ ...info, supported: false }))).toMatch(
      /^Этот браузер не сообщает/u,
    );
  });
});
