/**
 * The calibration worker in one thread (workers/calibration-host.ts over the RPC layer, with
 * fake-indexeddb): the page names a run, the worker reads its rows and results itself and answers
 * with the same table `calibrate` gives on the page thread.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { serveCalibration } from '../../../workers/calibration-host.ts';
import { calibrationApi } from '../../../src/lib/workers/calibration-api.ts';
import { createBatchRun } from '../../../src/lib/datasets/batch.ts';
import { loadRunData } from '../../../src/lib/datasets/run-data.ts';
import { calibrationInput } from '../../../src/lib/datasets/run-view.ts';
import { calibrate } from '../../../src/lib/datasets/calibration.ts';
import { saveDataset } from '../../../src/lib/storage/datasets.ts';
import { putRowResult } from '../../../src/lib/storage/runs.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import type { CaseRow } from '../../../src/lib/rows/formats.ts';
import { readJsonl } from '../../helpers/shared.ts';
import { fakeResult } from '../metrics/scored.ts';
import { connect } from '../workers/_channel.ts';

interface DevRecord {
  id: string;
  expert_annotations: Record<string, number>[];
}

/** SummEval's 600 dev rows with their mean ratings, stored, and a run with a made-up score. */
async function storedRun(id: string, scoreOf: (row: number, relevance: number) => number) {
  const dev = readJsonl<DevRecord>('data', 'summeval', 'dev.jsonl');
  const mean = (r: DevRecord, k: string) =>
    r.expert_annotations.reduce((s, a) => s + (a[k] ?? 0), 0) / r.expert_annotations.length;
  const rows: CaseRow[] = dev.map((r, i) => ({
    row: i + 1,
    kind: 'summeval',
    group: r.id,
    input: { source: 'S.', summary: 'T.' },
    human: { relevance: mean(r, 'relevance'), coherence: mean(r, 'coherence') },
  }));
  const dataset = await saveDataset(
    {
      id: `ds-${id}`,
      name: `Data set ${id}`,
      createdAt: 1,
      kind: 'summeval',
      mapping: { kind: 'summeval', human: [] },
      problems: { count: 0, examples: [] },
    },
    rows,
  );
  const run = await createBatchRun({
    dataset,
    metrics: ['rouge-1'],
    settings: { metrics: DEFAULT_SETTINGS },
    appVersion: 'test',
    id,
  });
  for (const row of rows) {
    const score = scoreOf(row.row, row.human.relevance ?? 0);
    await putRowResult({
      runId: id,
      row: row.row,
      status: 'done',
      results: [
        fakeResult({ id: 'rouge-1', status: 'ok', score, explanation: '', backend: 'test' }),
      ],
      finishedAt: 1,
      elapsedMs: 1,
    });
  }
  return run;
}

describe('the calibration worker', () => {
  it('reads the run itself and answers with what calibrate gives on the page thread', async () => {
    await storedRun('cal-1', (row, relevance) => relevance + ((row * 7919) % 13) / 10);
    const { client, sent } = connect(calibrationApi, serveCalibration);
    const calibration = await client.call('calibrate', { runId: 'cal-1' });
    expect(calibration).toEqual(calibrate(calibrationInput(await loadRunData('cal-1'))));
    expect(calibration.pairs).toHaveLength(2);
    expect(calibration.pairs[0]?.pooled.n).toBe(600);
    expect(calibration.pairs[0]?.summaryLevel?.groupsUsed).toBeGreaterThan(0);
    // Only the run's id went to the worker.
    expect(sent).toEqual([
      { kind: 'call', id: expect.any(String), method: 'calibrate', params: { runId: 'cal-1' } },
    ]);
    expect(client.pending).toBe(0);
  });

  it('keeps unusable scores out the same way calibrate does', async () => {
    await storedRun('cal-nan', (row, relevance) => (row % 5 === 0 ? Number.NaN : relevance));
    const { client } = connect(calibrationApi, serveCalibration);
    const calibration = await client.call('calibrate', { runId: 'cal-nan' });
    expect(calibration.pairs[0]?.missingScores).toBe(120);
    expect(calibration.pairs[0]?.pooled.n).toBe(480);
  });

  it('fails with words for a run that does not exist', async () => {
    const { client } = connect(calibrationApi, serveCalibration);
    await expect(client.call('calibrate', { runId: 'nobody' })).rejects.toThrow(
      /Run nobody does not exist/u,
    );
  });
});
