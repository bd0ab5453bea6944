/**
 * The calibration worker in one thread (workers/calibration-host.ts over the RPC layer, with
 * fake-indexeddb): the page names a run, the worker reads its rows and results itself and posts
 * the run view's numbers, which equal what the page built from every row before, then the same
 * calibration `calibrate` gives; it builds the CSV and Markdown exports too.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { serveCalibration } from '../../../workers/calibration-host.ts';
import { calibrationApi } from '../../../src/lib/workers/calibration-api.ts';
import { createBatchRun } from '../../../src/lib/datasets/batch.ts';
import { loadRunData } from '../../../src/lib/datasets/run-data.ts';
import {
  calibrationInput,
  ratingPairs,
  runView,
  scoreTable,
  type RunView,
} from '../../../src/lib/datasets/run-view.ts';
import {
  calibrate,
  calibrationRows,
  scatterPoints,
} from '../../../src/lib/datasets/calibration.ts';
import { runToCsv } from '../../../src/lib/datasets/export/csv.ts';
import { runToMarkdown } from '../../../src/lib/datasets/export/markdown.ts';
import { saveDataset } from '../../../src/lib/storage/datasets.ts';
import { putRowResult } from '../../../src/lib/storage/runs.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import type { MetricId } from '../../../src/lib/metrics/types.ts';
import type { CaseRow } from '../../../src/lib/rows/formats.ts';
import { readJsonl } from '../../helpers/shared.ts';
import { saveTestDataset } from '../../helpers/stored.ts';
import { fakeResult } from '../metrics/scored.ts';
import { connect, replyMatching } from '../workers/_channel.ts';

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
  const dataset = await saveTestDataset(id, rows);
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

function ratings(row: number): Record<string, number> {
  return { relevance: row % 4, coherence: 6 - row };
}

/** A small run with a bit of everything the view shows: two metrics, an n/a, a failed row, a
 * row without ratings, one without a group and one without results. */
async function mixedRun(id: string, human = true) {
  const rows: CaseRow[] = [1, 2, 3, 4, 5, 6].map((row) => ({
    row,
    kind: 'case',
    ...(row === 5 ? {} : { group: `doc${row % 2}` }),
    input: { source: `Source ${row}.`, summary: `Summary ${row}.` },
    human: human && row !== 2 ? ratings(row) : {},
  }));
  const dataset = await saveDataset(
    {
      id: `ds-${id}`,
      name: `Mixed ${id}`,
      createdAt: 1,
      kind: 'case',
      mapping: { kind: 'case', human: [] },
      problems: { count: 0, examples: [] },
    },
    rows,
  );
  const metrics: MetricId[] = ['rouge-1', 'rouge-l'];
  const run = await createBatchRun({
    dataset,
    metrics,
    settings: { metrics: DEFAULT_SETTINGS },
    appVersion: 'test',
    id,
  });
  for (const row of [1, 2, 3, 4, 5]) {
    await putRowResult({
      runId: id,
      row,
      status: row === 4 ? 'failed' : 'done',
      results:
        row === 4
          ? []
          : metrics.map((metric, m) =>
              fakeResult({
                id: metric,
                status: row === 3 && m === 1 ? 'n/a' : 'ok',
                score: row === 3 && m === 1 ? null : (row * (m + 2)) % 7,
              }),
            ),
      ...(row === 4 ? { error: 'boom' } : {}),
      finishedAt: 1,
      elapsedMs: 1,
    });
  }
  return run;
}

/** The page's `openRun` call: the view it posts first, then the calibration. */
async function openRun(runId: string) {
  const { client, sent, replies } = connect(calibrationApi, serveCalibration);
  const views: RunView[] = [];
  const calibration = await client.call('openRun', { runId }, { onProgress: (v) => views.push(v) });
  return { calibration, views, sent, replies, client };
}

describe('the calibration worker', () => {
  it('posts the view the page built from every row before, then the calibration', async () => {
    await mixedRun('mixed');
    const { calibration, views, sent, client } = await openRun('mixed');
    const data = await loadRunData('mixed');
    expect(views).toHaveLength(1);
    const view = views[0]!;
    // The same table the page built from the run's results.
    expect(view.table).toEqual(scoreTable(data.run, data.results));
    expect(view.table.rows).toEqual([1, 2, 3, 4, 5]);
    expect(view.table.failed).toEqual([false, false, false, true, false]);
    expect(view.table.values.get('rouge-1')).toBeInstanceOf(Float64Array);
    expect([...view.ratings.keys()]).toEqual(['relevance', 'coherence']);
    expect(view).toEqual(runView(data.run, data.rows, data.results));
    // The metric-against-rating scatter: the points the page took from calibrationRows.
    const joined = calibrationRows(data.rows, data.results);
    for (const metric of view.table.columns) {
      for (const human of view.ratings.keys()) {
        expect(ratingPairs(view, metric, human), `${metric} × ${human}`).toEqual(
          scatterPoints(joined, metric, human).map(({ x, y }) => ({ x, y })),
        );
      }
    }
    expect(ratingPairs(view, 'rouge-1', 'relevance')).toHaveLength(3);
    expect(calibration).toEqual(calibrate(calibrationInput(data)));
    // Only the run's id went to the worker.
    expect(sent).toEqual([
      { kind: 'call', id: expect.any(String), method: 'openRun', params: { runId: 'mixed' } },
    ]);
    expect(client.pending).toBe(0);
  });

  it('answers without a calibration for a data set without ratings', async () => {
    await mixedRun('unrated', false);
    const { calibration, views } = await openRun('unrated');
    expect(calibration).toBeNull();
    expect(views[0]?.ratings.size).toBe(0);
    expect(views[0]?.table.summary.map((s) => [s.column, s.n, s.notApplicable, s.errors])).toEqual([
      ['rouge-1', 4, 0, 0],
      ['rouge-l', 3, 1, 0],
    ]);
  });

  it('calibrates SummEval’s dev rows as calibrate does on the page thread', async () => {
    await storedRun('cal-1', (row, relevance) => relevance + ((row * 7919) % 13) / 10);
    const { calibration, views } = await openRun('cal-1');
    expect(calibration).toEqual(calibrate(calibrationInput(await loadRunData('cal-1'))));
    expect(calibration?.pairs).toHaveLength(2);
    expect(calibration?.pairs[0]?.pooled.n).toBe(600);
    expect(calibration?.pairs[0]?.summaryLevel?.groupsUsed).toBeGreaterThan(0);
    expect(views[0]?.table.rows).toHaveLength(600);
  });

  it('keeps unusable scores out the same way calibrate does', async () => {
    await storedRun('cal-nan', (row, relevance) => (row % 5 === 0 ? Number.NaN : relevance));
    const { calibration } = await openRun('cal-nan');
    expect(calibration?.pairs[0]?.missingScores).toBe(120);
    expect(calibration?.pairs[0]?.pooled.n).toBe(480);
  });

  it('posts nothing for a run given up on while it was read', async () => {
    await mixedRun('dropped');
    const { toWorker, replies } = connect(calibrationApi, serveCalibration);
    // The cancel reaches the worker right after the call, while the worker reads the run.
    toWorker({ kind: 'call', id: 'c1', method: 'openRun', params: { runId: 'dropped' } });
    toWorker({ kind: 'cancel', id: 'c1' });
    await replyMatching(replies, (reply) => JSON.stringify(reply).includes('"cancelled"'));
    expect(replies).toEqual([{ kind: 'cancelled', id: 'c1' }]);
  });

  it('fails with words for a run that does not exist', async () => {
    const { client } = connect(calibrationApi, serveCalibration);
    await expect(client.call('openRun', { runId: 'nobody' })).rejects.toThrow(
      /Run nobody does not exist/u,
    );
  });

  it('builds the CSV and the Markdown report as the page did', async () => {
    await mixedRun('export');
    const data = await loadRunData('export');
    const { client } = connect(calibrationApi, serveCalibration);
    const csv = await client.call('exportRun', { runId: 'export', format: 'csv' });
    expect(csv).toEqual({
      text: runToCsv(data),
      fileName: expect.stringMatching(/^sumlens-Mixed-export-\d{4}-\d\d-\d\d\.csv$/u),
      type: 'text/csv;charset=utf-8',
    });
    const calibration = calibrate(calibrationInput(data));
    const md = await client.call('exportRun', { runId: 'export', format: 'md', calibration });
    // (but for the minute it was written)
    const undated = (text: string) => text.replace(/^- Report written .*$/mu, '');
    expect(undated(md.text)).toEqual(undated(runToMarkdown(data, { calibration })));
    expect(md.type).toBe('text/markdown;charset=utf-8');
  });
});
