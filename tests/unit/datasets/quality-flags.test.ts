/**
 * The quality estimate's flags across a data set: per row of a run (its table and exports), per
 * side of a comparison, per system of the leaderboard, as plain escaped text in every file.
 */
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { compareSides, type SideData } from '../../../src/lib/datasets/compare.ts';
import { leaderboard } from '../../../src/lib/datasets/leaderboard.ts';
import { scoreTable } from '../../../src/lib/datasets/run-view.ts';
import type { RunData } from '../../../src/lib/datasets/run-data.ts';
import { runToCsv } from '../../../src/lib/datasets/export/csv.ts';
import { runToMarkdown } from '../../../src/lib/datasets/export/markdown.ts';
import { comparisonToHtml, runToHtml } from '../../../src/lib/datasets/export/html.ts';
import { comparisonToMarkdown } from '../../../src/lib/datasets/export/compare-markdown.ts';
import { comparisonExport } from '../../../src/lib/datasets/export/compare-json.ts';
import type { ComparisonReport } from '../../../src/lib/datasets/export/comparison-report.ts';
import type { MetricId, MetricResult } from '../../../src/lib/metrics/types.ts';
import type { DatasetRow } from '../../../src/lib/rows/formats.ts';
import type { StoredDataset, StoredRun, StoredRunResult } from '../../../src/lib/storage/schema.ts';
import { fakeResult } from '../metrics/scored.ts';

const METRICS: MetricId[] = ['rouge-l', 'quality-offline'];

function flag(id: string) {
  return { id, message: `${id} <b>sentence</b>` };
}

function results(rouge: number, flags: string[] | null): MetricResult[] {
  return [
    fakeResult({ id: 'rouge-l', status: 'ok', score: rouge }),
    fakeResult({
      id: 'quality-offline',
      status: flags === null ? 'n/a' : 'ok',
      score: flags === null ? null : 0.5,
      details: { kind: 'quality-offline', flags: (flags ?? []).map(flag) },
    }),
  ];
}

function stored(runId: string, row: number, r: MetricResult[]): StoredRunResult {
  return { runId, row, status: 'done', finishedAt: 0, elapsedMs: 0, results: r };
}

function run(id: string): StoredRun {
  return {
    id,
    datasetId: 'd',
    metrics: METRICS,
    settings: {},
    backends: { perMetric: {} },
    counts: { done: 4, total: 4, failed: 0 },
    status: 'done',
    createdAt: Date.UTC(2026, 0, 2),
  } as unknown as StoredRun;
}

// Four rows: two systems (M1 copies leads) over two sources.
const ROWS = [1, 2, 3, 4].map((row) => ({
  row,
  group: `doc${Math.ceil(row / 2)}`,
  system: row % 2 ? 'M1' : 'M2',
}));
const FLAGS: (string[] | null)[] = [['lead-copy', 'one-sentence'], [], ['lead-copy'], null];
const RESULTS = FLAGS.map((f, i) => stored('r', i + 1, results(0.1 * (i + 1), f)));

describe('quality flags of a run', () => {
  it('keeps each row’s flags and their tally in the score table', () => {
    const table = scoreTable(run('r'), RESULTS);
    expect([...table.flags!.keys()]).toEqual([0, 2]);
    expect(table.flags!.get(0)!.map((f) => f.id)).toEqual(['lead-copy', 'one-sentence']);
    expect(table.flagTally).toEqual({
      scored: 3,
      flags: [
        { id: 'lead-copy', count: 2 },
        { id: 'one-sentence', count: 1 },
      ],
    });
  });

  const data: RunData = {
    dataset: {
      id: 'd',
      name: 'dev',
      kind: 'case',
      rowCount: 4,
      humanColumns: [],
    } as unknown as StoredDataset,
    rows: ROWS.map(
      (r) =>
        ({
          ...r,
          kind: 'case',
          human: {},
          input: { source: 's', summary: 'x' },
        }) as unknown as DatasetRow,
    ),
    run: run('r'),
    results: RESULTS,
  };

  it('writes the flag ids as a CSV column, only when a row carries one', () => {
    const parsed = Papa.parse<Record<string, string>>(runToCsv(data), { header: true });
    expect(parsed.meta.fields).toContain('Flags [flags]');
    expect(parsed.data.map((r) => r['Flags [flags]'])).toEqual([
      'lead-copy; one-sentence',
      '',
      'lead-copy',
      '',
    ]);
    const clean = { ...data, results: FLAGS.map((_, i) => stored('r', i + 1, results(0.1, []))) };
    expect(runToCsv(clean)).not.toContain('[flags]');
  });

  it('counts the flags in the Markdown and HTML reports, as text', () => {
    expect(runToMarkdown(data)).toContain(
      'Quality flags (3 rows scored): lead copy 2/3; one sentence 1/3',
    );
    const html = runToHtml({
      title: 'run',
      datasetName: 'dev',
      createdAt: 0,
      status: 'done',
      table: scoreTable(data.run, data.results),
    });
    expect(html).toContain('<th>Flags</th>');
    expect(html).toContain('<td>lead copy; one sentence</td>');
    expect(html).toContain('lead copy 2/3; one sentence 1/3');
    expect(html).not.toContain('<b>');
  });
});

describe('quality flags of a comparison and a leaderboard', () => {
  const side = (runId: string, flags: (string[] | null)[]): SideData => ({
    datasetId: 'd',
    run: run(runId),
    rows: ROWS,
    results: flags.map((f, i) => stored(runId, i + 1, results(0.2, f))),
  });

  it('counts the paired rows carrying each flag, per side', () => {
    const c = compareSides(side('a', FLAGS), side('b', [[], [], ['cut-mid-sentence'], []]));
    expect(c.flags).toEqual({
      a: {
        scored: 3,
        flags: [
          { id: 'lead-copy', count: 2 },
          { id: 'one-sentence', count: 1 },
        ],
      },
      b: { scored: 4, flags: [{ id: 'cut-mid-sentence', count: 1 }] },
    });
    const report: ComparisonReport = {
      title: 'B against A',
      a: {
        label: 'A',
        runId: 'a',
        runName: 'a',
        datasetId: 'd',
        datasetName: 'd',
        runCreatedAt: 0,
      },
      b: {
        label: 'B',
        runId: 'b',
        runName: 'b',
        datasetId: 'd',
        datasetName: 'd',
        runCreatedAt: 0,
      },
      comparison: c,
      leaderboard: null,
      createdAt: 0,
    };
    const md = comparisonToMarkdown(report);
    expect(md).toContain('- Quality flags, A (baseline): lead copy 2/3; one sentence 1/3');
    expect(md).toContain('- Quality flags, B (candidate): cut off 1/4');
    expect(comparisonToHtml(report)).toContain('Quality flags, B (candidate): cut off 1/4');
    expect(comparisonExport(report).qualityFlags).toEqual(c.flags);
  });

  it('gives no flag lines when no row carries one', () => {
    const none = Array.from({ length: 4 }, () => [] as string[]);
    const c = compareSides(side('a', none), side('b', none));
    expect(c.flags!.a).toEqual({ scored: 4, flags: [] });
    const report = {
      title: 't',
      a: {
        label: 'A',
        runId: 'a',
        runName: 'a',
        datasetId: 'd',
        datasetName: 'd',
        runCreatedAt: 0,
      },
      b: {
        label: 'B',
        runId: 'b',
        runName: 'b',
        datasetId: 'd',
        datasetName: 'd',
        runCreatedAt: 0,
      },
      comparison: c,
      leaderboard: null,
      createdAt: 0,
    };
    expect(comparisonToMarkdown(report)).not.toContain('Quality flags');
    expect(comparisonExport(report)).not.toHaveProperty('qualityFlags');
  });

  it('gives each system the share of its rows carrying each flag', () => {
    const board = leaderboard(ROWS, RESULTS, ['rouge-l', 'quality-offline'])!;
    for (const column of board.columns) {
      const bySystem = Object.fromEntries(column.entries.map((e) => [e.system, e.flags]));
      expect(bySystem.M1).toEqual({
        scored: 2,
        flags: [
          { id: 'lead-copy', count: 2 },
          { id: 'one-sentence', count: 1 },
        ],
      });
      // M2: one row scored without flags, one not scored.
      expect(bySystem.M2).toEqual({ scored: 1, flags: [] });
    }
    const html = comparisonToHtml({
      title: 't',
      a: {
        label: 'A',
        runId: 'r',
        runName: 'r',
        datasetId: 'd',
        datasetName: 'd',
        runCreatedAt: 0,
      },
      b: {
        label: 'B',
        runId: 'r',
        runName: 'r',
        datasetId: 'd',
        datasetName: 'd',
        runCreatedAt: 0,
      },
      comparison: compareSides(side('r', FLAGS), side('r', FLAGS)),
      leaderboard: board,
      metric: 'rouge-l',
      createdAt: 0,
    });
    expect(html).toContain('<td>lead copy 100%; one sentence 50%</td>');
  });

  it('leaves systems without a scored quality estimate without flags', () => {
    const plain = RESULTS.map((r) => ({ ...r, results: r.results.slice(0, 1) }));
    const board = leaderboard(ROWS, plain, ['rouge-l'])!;
    expect(board.columns[0]!.entries.every((e) => e.flags === undefined)).toBe(true);
  });
});
