/**
 * A run with everything it refers to (its data set's record and rows, its results), read from
 * IndexedDB for the run view, the exports and calibration alike.
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

/**
 * Rows (or results) per IndexedDB read when the page loads a run: each read's values are
 * deserialised on the page's thread in one go, so small reads keep every step short (the rows
 * carry whole source texts).
 */
export const RUN_READ_BATCH = 50;

/** Reads a run, its data set's rows and its results from IndexedDB, `RUN_READ_BATCH` at a time. */
export async function loadRunData(runId: string): Promise<RunData> {
  const run = await getRun(runId);
  if (!run) throw new Error(`Run ${runId} does not exist.`);
  const dataset = await getDataset(run.datasetId);
  if (!dataset) {
    throw new Error(
      `The data set of this run ("${run.datasetName}") was deleted: nothing to export.`,
    );
  }
  const rows: DatasetRow[] = [];
  for await (const row of iterateDatasetRows(dataset.id, RUN_READ_BATCH)) rows.push(row);
  const results: StoredRunResult[] = [];
  for await (const result of iterateRunResults(runId, RUN_READ_BATCH)) results.push(result);
  return { dataset, rows, run, results };
}
