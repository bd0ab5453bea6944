import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  deleteAllDatasets,
  getDataset,
  getDatasetRows,
  saveDataset,
  summarizeProblems,
} from '../../../src/lib/storage/datasets.ts';
import {
  generationFailures,
  storeGeneratedPrediction,
  storeGenerationFailure,
} from '../../../src/lib/storage/predictions.ts';
import type { DatasetRow, GenerationRecord } from '../../../src/lib/rows/formats.ts';

const GENERATION: GenerationRecord = {
  provider: 'openai',
  model: 'm',
  at: 1,
  promptCut: false,
  promptTokens: 10,
  maxNewTokens: 20,
  templateHash: 'h',
};

function waitingRows(n: number): DatasetRow[] {
  return Array.from({ length: n }, (_, i) => ({
    row: i + 1,
    kind: 'prediction' as const,
    input: { prediction: '', answers: ['a'], needsPrediction: true, fields: { input: `q${i}` } },
    human: {},
  }));
}

async function saveWaiting(id: string, n: number): Promise<void> {
  await saveDataset(
    {
      id,
      name: id,
      createdAt: 1,
      kind: 'prediction',
      format: 'jsonl',
      mapping: { kind: 'prediction', fields: { input: 'input' }, answers: 'answers', human: [] },
      problems: summarizeProblems([]),
    },
    waitingRows(n),
  );
}

beforeEach(async () => {
  await deleteAllDatasets();
});

describe('generated predictions', () => {
  it('stores a prediction once, taking the row off the missing count', async () => {
    await saveWaiting('d1', 2);
    expect((await getDataset('d1'))?.missingPredictions).toBe(2);
    expect(await storeGeneratedPrediction('d1', 1, 'the answer', GENERATION)).toBe(true);
    expect(await storeGeneratedPrediction('d1', 1, 'again', GENERATION)).toBe(false);
    expect((await getDataset('d1'))?.missingPredictions).toBe(1);
    const [row] = await getDatasetRows('d1', 1, 1);
    expect(row.input).toEqual({
      prediction: 'the answer',
      answers: ['a'],
      fields: { input: 'q0' },
      generation: GENERATION,
    });
  });

  it('keeps a failure only on a row still waiting', async () => {
    await saveWaiting('d2', 2);
    const failure = { ...GENERATION, error: 'rate limited' };
    expect(await storeGenerationFailure('d2', 2, failure)).toBe(true);
    expect(await generationFailures('d2')).toEqual([{ row: 2, error: 'rate limited' }]);
    await storeGeneratedPrediction('d2', 1, 'done', GENERATION);
    expect(await storeGenerationFailure('d2', 1, failure)).toBe(false);
  });

  it('says so when the row is gone', async () => {
    await saveWaiting('d3', 1);
    await expect(storeGeneratedPrediction('d3', 5, 'x', GENERATION)).rejects.toThrow(
      /prediction of row 5 was not saved/,
    );
    await expect(storeGenerationFailure('d3', 5, { ...GENERATION, error: 'e' })).rejects.toThrow(
      /Why row 5 failed could not be saved/,
    );
  });
});
