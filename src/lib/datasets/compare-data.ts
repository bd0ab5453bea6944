/**
 * Reads the sides of a comparison from IndexedDB (in the calibration worker) and builds what the
 * compare view shows: the comparison when both sides are named, and the leaderboard of side A's
 * run when its rows hold several systems per source (with the systems' human means where the rows
 * are rated). Rows are read without their texts; the view
 * reads the two summaries of one pair when it shows their diff.
 */
import { iterateDatasetRows } from '../storage/datasets.ts';
import { iterateRunResults } from '../storage/runs.ts';
import type { StoredRunResult } from '../storage/schema.ts';
import { compareSides, systemsOf, type Comparison, type SideSpec } from './compare.ts';
import { leaderboard, type Leaderboard, type LeaderboardRow } from './leaderboard.ts';
import { runLabel } from './names.ts';
import { loadRunRecords, RUN_READ_BATCH } from './run-data.ts';
import { scoreColumns } from './run-view.ts';

export interface CompareRequest {
  a: SideSpec;
  b?: SideSpec;
}

export interface SideInfo {
  runId: string;
  datasetId: string;
  datasetName: string;
  /** The run's name as the runs list shows it ("dev · run 2"). */
  runName: string;
  createdAt: number;
  /** The systems of its data set's rows (none for most data sets). */
  systems: string[];
}

export interface CompareAnswer {
  sides: SideInfo[];
  comparison: Comparison | null;
  leaderboard: Leaderboard | null;
}

async function loadSide(runId: string, signal?: AbortSignal) {
  const { run, dataset } = await loadRunRecords(runId);
  // Ratings ride along for the leaderboard's human means (numbers only, no texts).
  const rows: LeaderboardRow[] = [];
  for await (const row of iterateDatasetRows(dataset.id, RUN_READ_BATCH)) {
    signal?.throwIfAborted();
    rows.push({
      row: row.row,
      ...(row.id === undefined ? {} : { id: row.id }),
      ...(row.group === undefined ? {} : { group: row.group }),
      ...(row.system === undefined ? {} : { system: row.system }),
      ...(Object.keys(row.human).length > 0 ? { human: row.human } : {}),
    });
  }
  const results: StoredRunResult[] = [];
  for await (const result of iterateRunResults(runId, RUN_READ_BATCH)) results.push(result);
  return { run, dataset, rows, results };
}

export async function loadComparison(
  request: CompareRequest,
  signal?: AbortSignal,
): Promise<CompareAnswer> {
  const a = await loadSide(request.a.runId, signal);
  const b =
    request.b && request.b.runId !== request.a.runId
      ? await loadSide(request.b.runId, signal)
      : request.b
        ? a
        : undefined;
  signal?.throwIfAborted();
  const info = (side: typeof a): SideInfo => ({
    runId: side.run.id,
    datasetId: side.dataset.id,
    datasetName: side.dataset.name,
    runName: runLabel(side.run),
    createdAt: side.run.createdAt,
    systems: systemsOf(side.rows),
  });
  const sideData = (side: typeof a, spec: SideSpec) => ({
    datasetId: side.dataset.id,
    run: side.run,
    rows: side.rows,
    results: side.results,
    ...(spec.system === undefined ? {} : { system: spec.system }),
  });
  return {
    sides: b && b !== a ? [info(a), info(b)] : [info(a)],
    comparison:
      b && request.b ? compareSides(sideData(a, request.a), sideData(b, request.b)) : null,
    leaderboard: leaderboard(
      a.rows,
      a.results,
      scoreColumns(a.run, a.results),
      a.dataset.humanColumns,
    ),
  };
}
