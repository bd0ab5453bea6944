/**
 * The batch worker's side (`serveBatchRuns`, in one thread over a structured-cloning channel)
 * detects each row's language with the detector it is given (the worker passes cld3) and stores
 * it with the row's result in IndexedDB, where opening the row reads it back.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { serveBatchRuns } from '../../../workers/batch-host.ts';
import { batchApi, BatchWorkerClient } from '../../../src/lib/workers/batch-api.ts';
import { createBatchRun, openedRow } from '../../../src/lib/datasets/batch.ts';
import { detectLanguages, loadLanguageIdentifier } from '../../../src/lib/metrics/text/language.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import type { CaseRow } from '../../../src/lib/rows/formats.ts';
import { getDatasetRow } from '../../../src/lib/storage/datasets.ts';
import { listRunResults } from '../../../src/lib/storage/runs.ts';
import { saveTestDataset } from '../../helpers/stored.ts';
import { connect } from '../workers/_channel.ts';

const ROWS: CaseRow[] = [
  {
    row: 1,
    kind: 'case',
    input: {
      source: '研究人员周二表示，这种新型电池可以在十分钟内充满电，明年将在三个城市试用。',
      summary: '一种新型电池可以在十分钟内充满电。',
    },
    human: {},
  },
  {
    row: 2,
    kind: 'case',
    input: {
      source:
        'Researchers said on Tuesday that the new battery charges in ten minutes and will be tried in three cities next year.',
      summary: 'A new battery charges in ten minutes.',
    },
    human: {},
  },
  {
    row: 3,
    kind: 'case',
    input: {
      source:
        'Researchers said on Tuesday that the new battery charges in ten minutes and will be tried in three cities next year.',
      summary: 'A new battery charges in ten minutes.',
    },
    human: {},
    raw: { lang: 'ja' },
  },
];

describe('languages in the batch worker', () => {
  it('stores each row with its language, which opening the row restores', async () => {
    const calls: number[] = [];
    const { worker } = connect(batchApi, (scope) =>
      serveBatchRuns(
        () => ({}),
        scope,
        undefined,
        async (texts) => {
          calls.push(texts.length);
          return detectLanguages(texts, await loadLanguageIdentifier());
        },
      ),
    );
    const client = new BatchWorkerClient(worker);
    const dataset = await saveTestDataset('langs', ROWS);
    const run = await createBatchRun({
      dataset,
      metrics: ['token-f1', 'repetition-offline'],
      settings: { metrics: DEFAULT_SETTINGS },
      appVersion: 'test',
      id: 'langs',
    });
    const outcome = await client.run(run.id);
    expect(outcome.status).toBe('done');
    expect(calls).toEqual([2]);
    const results = await listRunResults(run.id);
    expect(results.map((r) => [r.row, r.language?.code, r.language?.basis])).toEqual([
      [1, 'zh', 'detected'],
      [2, 'en', 'detected'],
      [3, 'ja', 'chosen'],
    ]);
    // The Chinese row was split into words by its own tokenizer, not as English.
    const repetition = (row: number) =>
      results[row - 1]!.results.find((r) => r.id === 'repetition-offline')!.backend;
    expect(repetition(1)).toContain('words:');
    expect(repetition(2)).not.toContain('words:');
    const row3 = (await getDatasetRow(dataset.id, 3)) as CaseRow;
    expect(openedRow(row3, results[2]!).input).toMatchObject({
      language: 'ja',
      languageChosen: true,
    });
  });
});
