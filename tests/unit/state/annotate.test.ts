import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { AnnotateController } from '../../../src/lib/state/annotate.svelte.ts';
import { setLocale } from '../../../src/lib/i18n/i18n.svelte.ts';
import { listRowRatings } from '../../../src/lib/storage/annotations/read.ts';
import { setRating } from '../../../src/lib/storage/annotations/write.ts';
import {
  deleteAllDatasets,
  getDataset,
  saveDataset,
  summarizeProblems,
} from '../../../src/lib/storage/datasets.ts';
import type { StoredDataset } from '../../../src/lib/storage/schema.ts';
import type { DatasetRow } from '../../../src/lib/rows/formats.ts';

const ROWS: DatasetRow[] = Array.from({ length: 3 }, (_, i) => ({
  row: i + 1,
  kind: 'summeval' as const,
  id: `doc${i}-M1`,
  group: `doc${i}`,
  input: { source: `Source ${i}.`, summary: `Summary ${i}.` },
  human: {},
}));

async function annotator(): Promise<{ annotate: AnnotateController; changes: () => number }> {
  const dataset: StoredDataset = await saveDataset(
    {
      id: 'set',
      name: 'Set',
      createdAt: 1000,
      kind: 'summeval',
      mapping: { kind: 'summeval', source: 'text', summary: 'decoded', human: [] },
      problems: summarizeProblems([]),
    },
    ROWS,
  );
  let changes = 0;
  const annotate = new AnnotateController({ dataset: () => dataset, onchange: () => changes++ });
  return { annotate, changes: () => changes };
}

/** Waits until the ratings typed have been stored. */
async function settled(annotate: AnnotateController): Promise<void> {
  // A deadline in time: a loaded CI machine can outlast a hundred 5 ms timers.
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && annotate.pending > 0;) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

beforeEach(async () => {
  await deleteAllDatasets();
});

describe('the annotator controller', () => {
  it('resumes at the first row not fully rated, on its first unrated dimension', async () => {
    const { annotate } = await annotator();
    for (const dimension of ['coherence', 'consistency', 'fluency', 'relevance']) {
      await setRating('set', 1, dimension, 4);
    }
    await setRating('set', 2, 'coherence', 3);
    await annotate.load();
    expect(annotate.loading).toBe(false);
    expect(annotate.entry?.row).toBe(2);
    expect(annotate.focused).toBe(1);
    expect(annotate.status).toBe('Resuming at row 2, the first row not fully rated.');
    expect(await annotate.readRow(2)).toBe(true);
    expect(annotate.current?.input.summary).toBe('Summary 1.');
  });

  it('a typed rating is shown at once, stored with its row, and moves on to the next dimension', async () => {
    const { annotate, changes } = await annotator();
    await annotate.load();
    expect(annotate.key('4')).toBe(true);
    expect(annotate.entry?.ratings).toEqual({ coherence: 4 });
    await settled(annotate);
    expect(annotate.focused).toBe(1);
    expect(annotate.status).toBe('Row 1: coherence 4 saved.');
    expect(changes()).toBe(1);
    expect((await listRowRatings('set'))[0]?.ratings).toEqual({ coherence: 4 });

    // A click on the chosen value clears it.
    annotate.click(0, 4);
    await settled(annotate);
    expect(annotate.status).toBe('Row 1: coherence cleared.');
    expect((await listRowRatings('set'))[0]?.ratings).toEqual({});
  });

  it('the last dimension of a row goes on to the next row; rows end with a word, not a move', async () => {
    const { annotate } = await annotator();
    await annotate.load();
    await annotate.focusDimension(annotate.dimensions.length - 1);
    await annotate.rateByKey(5);
    await settled(annotate);
    expect(annotate.entry?.row).toBe(2);
    expect(annotate.focused).toBe(0);
    expect(annotate.key('k')).toBe(true);
    expect(annotate.key('k')).toBe(true);
    await settled(annotate);
    expect(annotate.entry?.row).toBe(1);
    expect(annotate.status).toBe('This is the first row.');
    expect(annotate.key('x')).toBe(false);
  });

  it('a jump to a row that does not exist names the rows there are', async () => {
    const { annotate } = await annotator();
    await annotate.load();
    expect(annotate.jump(7)).toBe(false);
    expect(annotate.error).toBe(
      'There is no row 7 in this data set: its rows are numbered 1 to 3.',
    );
    expect(annotate.jump(3)).toBe(true);
    expect(annotate.error).toBeUndefined();
    expect(annotate.entry?.row).toBe(3);
  });

  it('says the error and the status in the page’s language, and again on a switch', async () => {
    const { annotate } = await annotator();
    await annotate.load();
    annotate.jump(7);
    await annotate.goTo(-1);
    try {
      await setLocale('ru', false);
      expect(annotate.error).toBe(
        'В этом наборе данных нет строки 7: строки пронумерованы от 1 до 3.',
      );
      expect(annotate.status).toBe('Это первая строка.');
    } finally {
      await setLocale('en', false);
    }
    expect(annotate.status).toBe('This is the first row.');
  });

  it('adds and removes dimensions, keeping or deleting their ratings', async () => {
    const { annotate } = await annotator();
    await annotate.load();
    expect(await annotate.addDimension('Faithfulness', 'No invented facts.')).toBe(true);
    expect(annotate.status).toBe('Dimension faithfulness added.');
    expect(annotate.names).toContain('faithfulness');
    await setRating('set', 1, 'faithfulness', 2);
    expect(await annotate.removeDimension('faithfulness', false)).toBe(true);
    expect(annotate.status).toBe(
      'Dimension faithfulness removed; its ratings stay with the rows (as rated_faithfulness).',
    );
    expect((await getDataset('set'))?.annotationDimensions?.map((d) => d.name)).not.toContain(
      'faithfulness',
    );
    expect(await annotate.addDimension('', '')).toBe(false);
    expect(annotate.error).toBeTruthy();
  });
});
