import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AnnotationError,
  DEFAULT_DIMENSIONS,
  dimensionsOf,
  isAnnotatable,
  normalizeDimensionName,
} from '../../../src/lib/storage/annotations/dimensions.ts';
import {
  annotationProgress,
  getRow,
  listRowRatings,
  nextUnrated,
  type RowRatings,
} from '../../../src/lib/storage/annotations/read.ts';
import {
  addDimension,
  clearRating,
  removeDimension,
  setRating,
  updateDimension,
} from '../../../src/lib/storage/annotations/write.ts';
import {
  deleteAllDatasets,
  getDataset,
  getDatasetRows,
  saveDataset,
  summarizeProblems,
} from '../../../src/lib/storage/datasets.ts';
import { createRun, putRowResult } from '../../../src/lib/storage/runs.ts';
import { StorageFullError } from '../../../src/lib/storage/quota.ts';
import { loadRunData } from '../../../src/lib/datasets/run-data.ts';
import { runCalibration } from '../../../src/lib/datasets/run-view.ts';
import type { DatasetRow } from '../../../src/lib/rows/formats.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { fakeResult } from '../metrics/scored.ts';

function caseRows(
  n: number,
  human: (i: number) => Record<string, number> = () => ({}),
): DatasetRow[] {
  return Array.from({ length: n }, (_, i) => ({
    row: i + 1,
    kind: 'summeval' as const,
    id: `doc${i}-M1`,
    group: `doc${i}`,
    input: { source: `Source ${i}.`, summary: `Summary ${i}.` },
    human: human(i),
  }));
}

async function store(id: string, rows: DatasetRow[], kind: 'summeval' | 'prediction' = 'summeval') {
  return saveDataset(
    {
      id,
      name: `Set ${id}`,
      createdAt: 1000,
      kind,
      mapping:
        kind === 'summeval'
          ? { kind: 'summeval', source: 'text', summary: 'decoded', human: [] }
          : { kind: 'prediction', prediction: 'pred', answers: 'answers', human: [] },
      problems: summarizeProblems([]),
    },
    rows,
  );
}

async function humanOf(datasetId: string, row: number): Promise<Record<string, number>> {
  const stored = await getRow(datasetId, row);
  if (!stored) throw new Error(`row ${row} missing`);
  return stored.human;
}

beforeEach(async () => {
  await deleteAllDatasets();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('ratings', () => {
  it('stores a rating as rated_<dimension> beside imported ones and lists the column once', async () => {
    await store(
      'a',
      caseRows(3, () => ({ expert_coherence: 4.33 })),
    );
    expect((await getDataset('a'))?.humanColumns).toEqual(['expert_coherence']);

    expect(await setRating('a', 2, 'coherence', 2)).toEqual({ coherence: 2 });
    expect(await setRating('a', 3, 'coherence', 5)).toEqual({ coherence: 5 });
    // Re-rating replaces the value; the imported expert rating is untouched.
    expect(await setRating('a', 2, 'coherence', 3)).toEqual({ coherence: 3 });
    expect(await humanOf('a', 2)).toEqual({ expert_coherence: 4.33, rated_coherence: 3 });
    expect(await humanOf('a', 1)).toEqual({ expert_coherence: 4.33 });
    expect((await getDataset('a'))?.humanColumns).toEqual(['expert_coherence', 'rated_coherence']);

    await setRating('a', 2, 'fluency', 1);
    expect(await setRating('a', 2, 'relevance', 4)).toEqual({
      coherence: 3,
      fluency: 1,
      relevance: 4,
    });
    expect((await getDataset('a'))?.humanColumns).toEqual([
      'expert_coherence',
      'rated_coherence',
      'rated_fluency',
      'rated_relevance',
    ]);
    // The rest of the row is stored as it was.
    expect((await getDatasetRows('a', 2, 1))[0]).toMatchObject({
      row: 2,
      id: 'doc1-M1',
      group: 'doc1',
      input: { source: 'Source 1.', summary: 'Summary 1.' },
    });
  });

  it('refuses values off the 1–5 scale, unknown dimensions and rows, and prediction rows', async () => {
    await store('a', caseRows(2));
    for (const bad of [0, 6, 2.5, Number.NaN]) {
      await expect(setRating('a', 1, 'coherence', bad)).rejects.toThrow(
        /whole number from 1 to 5/u,
      );
    }
    await expect(setRating('a', 1, 'tone', 3)).rejects.toThrow(/"tone" is not a dimension/u);
    await expect(setRating('a', 9, 'coherence', 3)).rejects.toThrow(/Row 9 is not in "Set a"/u);
    await expect(setRating('gone', 1, 'coherence', 3)).rejects.toThrow(/no longer exists/u);
    await store(
      'p',
      [{ row: 1, kind: 'prediction', input: { prediction: 'x', answers: ['x'] }, human: {} }],
      'prediction',
    );
    const error = await setRating('p', 1, 'coherence', 3).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnnotationError);
    expect((error as Error).message).toMatch(/prediction row: only summaries are rated/u);
    // Nothing was written by the refused calls.
    expect(await humanOf('a', 1)).toEqual({});
    expect((await getDataset('a'))?.humanColumns).toEqual([]);
  });

  it('clears a rating, and drops the column only when no row has it any more', async () => {
    await store('a', caseRows(3));
    await setRating('a', 1, 'coherence', 4);
    await setRating('a', 3, 'coherence', 2);
    await setRating('a', 3, 'fluency', 5);

    expect(await clearRating('a', 1, 'coherence')).toEqual({});
    expect((await getDataset('a'))?.humanColumns).toEqual(['rated_coherence', 'rated_fluency']);
    expect(await clearRating('a', 3, 'coherence')).toEqual({ fluency: 5 });
    expect((await getDataset('a'))?.humanColumns).toEqual(['rated_fluency']);
    expect(await humanOf('a', 3)).toEqual({ rated_fluency: 5 });
    // Clearing what is not there is a no-op, not an error.
    expect(await clearRating('a', 2, 'coherence')).toEqual({});
    expect((await getDataset('a'))?.humanColumns).toEqual(['rated_fluency']);
  });

  it('keeps every rating typed in quick succession', async () => {
    await store('a', caseRows(20));
    const dims = ['coherence', 'consistency', 'fluency', 'relevance'];
    await Promise.all(
      caseRows(20).flatMap((r) =>
        dims.map((d, j) => setRating('a', r.row, d, ((r.row + j) % 5) + 1)),
      ),
    );
    const listed = await listRowRatings('a');
    expect(listed).toHaveLength(20);
    for (const r of listed) {
      expect(r.ratings).toEqual(Object.fromEntries(dims.map((d, j) => [d, ((r.row + j) % 5) + 1])));
    }
    expect((await getDataset('a'))?.humanColumns).toEqual(dims.map((d) => `rated_${d}`));
  });

  it('says which rating was not saved when the storage is full, and keeps the row as it was', async () => {
    await store('a', caseRows(2));
    await setRating('a', 1, 'coherence', 4);
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(() => {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    });
    const error = await setRating('a', 1, 'coherence', 2).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect(error).toBeInstanceOf(StorageFullError);
    expect((error as Error).message).toMatch(/rating coherence = 2 of row 1 was not saved/u);
    expect(await humanOf('a', 1)).toEqual({ rated_coherence: 4 });
  });

  it('lists ratings in row order across read batches, with ids and without texts', async () => {
    await store(
      'a',
      caseRows(1203, (i): Record<string, number> => (i === 0 ? { expert_fluency: 3 } : {})),
    );
    await setRating('a', 1, 'fluency', 2);
    await setRating('a', 1202, 'coherence', 5);
    const listed = await listRowRatings('a');
    expect(listed.map((r) => r.row)).toEqual(Array.from({ length: 1203 }, (_, i) => i + 1));
    expect(listed[0]).toEqual({ row: 1, id: 'doc0-M1', ratings: { fluency: 2 } });
    expect(listed[1201]).toEqual({ row: 1202, id: 'doc1201-M1', ratings: { coherence: 5 } });
    expect(listed[5]).toEqual({ row: 6, id: 'doc5-M1', ratings: {} });
  });
});

describe('progress and the next unrated row', () => {
  const rows: RowRatings[] = [
    { row: 1, ratings: { coherence: 3, fluency: 4 } },
    { row: 2, ratings: { coherence: 1 } },
    { row: 5, ratings: {} },
    { row: 6, ratings: { coherence: 5, fluency: 5, relevance: 2 } },
  ];

  it('counts rows rated on every dimension and per dimension', () => {
    expect(annotationProgress(rows, ['coherence', 'fluency'])).toEqual({
      rows: 4,
      fullyRated: 2,
      perDimension: { coherence: 3, fluency: 2 },
    });
    expect(annotationProgress(rows, ['relevance'])).toEqual({
      rows: 4,
      fullyRated: 1,
      perDimension: { relevance: 1 },
    });
  });

  it('finds the next row not rated on every dimension, wrapping round', () => {
    const dims = ['coherence', 'fluency'];
    expect(nextUnrated(rows, dims)).toBe(1);
    expect(nextUnrated(rows, dims, 1)).toBe(2);
    expect(nextUnrated(rows, dims, 2)).toBe(1);
    expect(nextUnrated(rows, ['coherence'], 1)).toBe(2);
    expect(nextUnrated(rows, ['coherence'], 2)).toBe(2);
    expect(
      nextUnrated(
        rows.filter((r) => r.row !== 2 && r.row !== 5),
        dims,
      ),
    ).toBe(-1);
    expect(nextUnrated([], dims)).toBe(-1);
  });
});

describe('dimensions', () => {
  it('defaults to the four SummEval dimensions with a guide each', async () => {
    await store('a', caseRows(1));
    const dataset = await getDataset('a');
    expect(dimensionsOf(dataset!).map((d) => d.name)).toEqual([
      'coherence',
      'consistency',
      'fluency',
      'relevance',
    ]);
    for (const d of DEFAULT_DIMENSIONS) expect(d.guide.length).toBeGreaterThan(20);
    // An edited export with a broken list does not break the annotator.
    expect(dimensionsOf({ annotationDimensions: [] }).length).toBe(4);
    expect(
      dimensionsOf({
        annotationDimensions: [
          { name: 'tone', guide: 'Polite.' },
          { name: 'tone', guide: 'again' },
          { name: '', guide: '' },
        ],
      }),
    ).toEqual([{ name: 'tone', guide: 'Polite.' }]);
    expect(isAnnotatable({ kind: 'case' })).toBe(true);
    expect(isAnnotatable({ kind: 'summeval' })).toBe(true);
    expect(isAnnotatable({ kind: 'prediction' })).toBe(false);
    expect(isAnnotatable({ kind: 'sft' })).toBe(false);
  });

  it('normalises typed names and explains a refused one', () => {
    expect(normalizeDimensionName('  Factual  accuracy ')).toBe('factual_accuracy');
    expect(normalizeDimensionName('Kohärenz')).toBe('kohärenz');
    expect(() => normalizeDimensionName('   ')).toThrow(/needs a name/u);
    expect(() => normalizeDimensionName('tone/style')).toThrow(/contains "\/"/u);
    expect(() => normalizeDimensionName('x'.repeat(41))).toThrow(/41 characters long; at most 40/u);
  });

  it('adds a dimension that can be rated at once, and refuses a double', async () => {
    await store('a', caseRows(2));
    const dims = await addDimension(
      'a',
      'Factual accuracy',
      '  No wrong numbers,\n names or dates. ',
    );
    expect(dims.at(-1)).toEqual({
      name: 'factual_accuracy',
      guide: 'No wrong numbers, names or dates.',
    });
    expect(dimensionsOf((await getDataset('a'))!)).toEqual(dims);
    await setRating('a', 1, 'factual_accuracy', 5);
    expect(await humanOf('a', 1)).toEqual({ rated_factual_accuracy: 5 });
    await expect(addDimension('a', 'Coherence')).rejects.toThrow(/"coherence" is already/u);
    await expect(addDimension('a', 'tone', 'x'.repeat(301))).rejects.toThrow(/at most 300/u);
  });

  it('renames a dimension and moves its ratings to the new column, order kept', async () => {
    await store(
      'a',
      caseRows(4, () => ({ expert_fluency: 2 })),
    );
    await setRating('a', 1, 'fluency', 4);
    await setRating('a', 3, 'fluency', 1);
    await setRating('a', 3, 'relevance', 2);
    const dims = await updateDimension('a', 'fluency', {
      name: 'Readability',
      guide: 'Easy to read.',
    });
    expect(dims.map((d) => d.name)).toEqual([
      'coherence',
      'consistency',
      'readability',
      'relevance',
    ]);
    expect(dims[2]).toEqual({ name: 'readability', guide: 'Easy to read.' });
    expect(await humanOf('a', 1)).toEqual({ expert_fluency: 2, rated_readability: 4 });
    expect(await humanOf('a', 3)).toEqual({
      expert_fluency: 2,
      rated_readability: 1,
      rated_relevance: 2,
    });
    expect((await getDataset('a'))?.humanColumns).toEqual([
      'expert_fluency',
      'rated_readability',
      'rated_relevance',
    ]);
    // A guide-only change leaves the ratings where they are.
    await updateDimension('a', 'relevance', { guide: 'Keeps the main points.' });
    expect(await humanOf('a', 3)).toMatchObject({ rated_relevance: 2 });
    expect(dimensionsOf((await getDataset('a'))!)[3]).toEqual({
      name: 'relevance',
      guide: 'Keeps the main points.',
    });
    await expect(updateDimension('a', 'coherence', { name: 'relevance' })).rejects.toThrow(
      /"relevance" is already a dimension/u,
    );
    await expect(updateDimension('a', 'tone', { name: 'x' })).rejects.toThrow(/not a dimension/u);
  });

  it('removes a dimension keeping its ratings, or deleting them when asked', async () => {
    await store('a', caseRows(3));
    await setRating('a', 1, 'fluency', 3);
    await setRating('a', 2, 'relevance', 5);
    await setRating('a', 2, 'coherence', 1);

    let dims = await removeDimension('a', 'fluency');
    expect(dims.map((d) => d.name)).toEqual(['coherence', 'consistency', 'relevance']);
    // Kept: still a human column (still calibrates), and not a rating the annotator asks for.
    expect(await humanOf('a', 1)).toEqual({ rated_fluency: 3 });
    expect((await getDataset('a'))?.humanColumns).toContain('rated_fluency');
    await expect(setRating('a', 1, 'fluency', 2)).rejects.toThrow(/not a dimension/u);
    // Renaming onto the kept column would mix two sets of ratings: refused.
    await expect(updateDimension('a', 'coherence', { name: 'fluency' })).rejects.toThrow(
      /rated_fluency are already stored .*add "fluency" back/u,
    );
    // Added back, its ratings count again.
    await addDimension('a', 'fluency');
    expect((await listRowRatings('a'))[0].ratings).toEqual({ fluency: 3 });

    dims = await removeDimension('a', 'relevance', { deleteRatings: true });
    expect(dims.map((d) => d.name)).toEqual(['coherence', 'consistency', 'fluency']);
    expect(await humanOf('a', 2)).toEqual({ rated_coherence: 1 });
    expect((await getDataset('a'))?.humanColumns).toEqual(['rated_fluency', 'rated_coherence']);

    await removeDimension('a', 'consistency');
    await removeDimension('a', 'fluency', { deleteRatings: true });
    await expect(removeDimension('a', 'coherence')).rejects.toThrow(/at least one dimension/u);
    await expect(removeDimension('a', 'tone')).rejects.toThrow(/"tone" is not a dimension/u);
  });
});

describe('calibration of a run with ratings made after it', () => {
  it('pairs the rated rows with the run when the run is read again', async () => {
    await store(
      'a',
      caseRows(6, () => ({ expert_relevance: 3 })),
    );
    await createRun({
      id: 'r',
      datasetId: 'a',
      datasetName: 'Set a',
      createdAt: 2000,
      metrics: ['rouge-l'],
      settings: { metrics: DEFAULT_SETTINGS },
      appVersion: 'test',
      total: 6,
    });
    const scores = [0.1, 0.4, 0.3, 0.9, 0.2, 0.5];
    for (const [i, score] of scores.entries()) {
      await putRowResult({
        runId: 'r',
        row: i + 1,
        status: 'done',
        results: [fakeResult({ id: 'rouge-l', status: 'ok', score })],
        finishedAt: 3000,
        elapsedMs: 1,
      });
    }
    // Ranked the same as the scores on rows 1–4, so Spearman is 1 over those four rows.
    const ratings = [1, 3, 2, 5];
    for (const [i, value] of ratings.entries()) await setRating('a', i + 1, 'coherence', value);

    const calibration = runCalibration(await loadRunData('r'));
    const pair = calibration.pairs.find((p) => p.human === 'rated_coherence');
    expect(pair?.metric).toBe('rouge-l');
    expect(pair?.pooled.n).toBe(4);
    expect(pair?.pooled.values.spearman).toBeCloseTo(1, 12);
    // The imported column is still there, over all six rows.
    expect(calibration.pairs.find((p) => p.human === 'expert_relevance')?.pooled.n).toBe(6);
  });
});
