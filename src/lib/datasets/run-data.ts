/**
 * A run with everything it refers to (its data set's record and rows, its results), read from
 * IndexedDB in the calibration worker for the run view, the exports and calibration alike; the
 * page reads only the two records (`loadRunRecords`) and one row when it is opened.
 */
import { getDataset, iterateDatasetRows } from '../storage/datasets.ts';
import { getRun, iterateRunResults } from '../storage/runs.ts';
import type { StoredDataset, StoredRun, StoredRunResult } from '../storage/schema.ts';
import type { DatasetRow } from '../rows/formats.ts';

export interface RunData {
  dataset: StoredDataset;
  rows: DatasetRow[];
  run: StoredRun;
  results: StoredRunResult[];
}

/** A data-set row without its texts: what the run view and calibration read of it. */
export type RatedRow = Pick<DatasetRow, 'row' | 'group' | 'human'> &
  Partial<Pick<DatasetRow, 'id' | 'system'>>;

/** A run's numbers: its records, its results and its rows without their texts. */
export interface RunScores {
  dataset: StoredDataset;
  run: StoredRun;
  rows: RatedRow[];
  results: StoredRunResult[];
}

/**
 * Rows (or results) per IndexedDB read: each read's values are deserialised in one go, so small
 * reads keep every step short (the rows carry whole source texts) and a cancel is read between.
 */
export const RUN_READ_BATCH = 50;

/** A run's record and its data set's, or why the run cannot be shown. */
export async function loadRunRecords(
  runId: string,
): Promise<{ run: StoredRun; dataset: StoredDataset }> {
  const run = await getRun(runId);
  if (!run) throw new Error(`Run ${runId} does not exist.`);
  const dataset = await getDataset(run.datasetId);
  if (!dataset) {
    throw new Error(
      `The data set of this run ("${run.datasetName}") was deleted: nothing to export.`,
    );
  }
  return { run, dataset };
}

async function loadResults(runId: string): Promise<StoredRunResult[]> {
  const results: StoredRunResult[] = [];
  for await (const result of iterateRunResults(runId, RUN_READ_BATCH)) results.push(result);
  return results;
}

/** Reads a run, its data set's rows and its results from IndexedDB, `RUN_READ_BATCH` at a time. */
export async function loadRunData(runId: string): Promise<RunData> {
  const { run, dataset } = await loadRunRecords(runId);
  const rows: DatasetRow[] = [];
  for await (const row of iterateDatasetRows(dataset.id, RUN_READ_BATCH)) rows.push(row);
  return { dataset, rows, run, results: await loadResults(runId) };
}

/** As `loadRunData`, keeping only the rows' numbers, groups and ratings (not their texts). */
export async function loadRunScores(runId: string): Promise<RunScores> {
  const { run, dataset } = await loadRunRecords(runId);
  const rows: RatedRow[] = [];
  for await (const row of iterateDatasetRows(dataset.id, RUN_READ_BATCH)) {
    rows.push({
      row: row.row,
      ...(row.group === undefined ? {} : { group: row.group }),
      ...(row.id === undefined ? {} : { id: row.id }),
      ...(row.system === undefined ? {} : { system: row.system }),
      human: row.human,
    });
  }
  return { dataset, run, rows, results: await loadResults(runId) };
}
