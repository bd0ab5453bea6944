/**
 * Data sets and their rows in IndexedDB (schema v3): typed operations for the import (the parse
 * worker writes through `saveDataset`), the run view and the history. Runs and their results are
 * in ./runs.ts.
 *
 * Habits (idb's README): every transaction holds IndexedDB requests only, never other awaited work,
 * so it cannot auto-commit half way; rows are written in batches, one transaction per batch, so an
 * import of 100,000 rows neither holds one giant transaction nor pays one per row.
 *
 * A row's results are stored once, when the row is complete, in the same transaction as the run's
 * counters: after a crash either both happened or neither, so a resumed run scores exactly the
 * rows that have no results (`pendingRows`) and the counters never count a row twice.
 */
import { db, guarded, idRange } from './db.ts';
import { describeStorageError } from './quota.ts';
import type { DatasetProblemsSummary, StoredDataset, StoredDatasetRow } from './schema.ts';
import { needsPrediction, type DatasetRow, type RowProblem } from '../rows/formats.ts';

/**
 * The Web Lock an import holds while it writes a data set's rows: start-up cleaning leaves the
 * rows of a held one alone (another tab is still importing them).
 */
export function importLockName(datasetId: string): string {
  return `sumlens-import:${datasetId}`;
}

/** Rows per write transaction when saving a data set. */
export const ROW_BATCH_SIZE = 500;

/** Problem examples kept with a data set (the import screen shows them all at the time). */
export const MAX_STORED_PROBLEMS = 20;

/** The first problems and the count, as stored with a data set. */
export function summarizeProblems(problems: readonly RowProblem[]): DatasetProblemsSummary {
  // The count is of rows left out; a cell left out of a row that loaded is an example only.
  return {
    count: problems.filter((p) => !p.kept).length,
    examples: problems.slice(0, MAX_STORED_PROBLEMS),
  };
}

export type DatasetMeta = Omit<StoredDataset, 'rowCount' | 'humanColumns'> & {
  humanColumns?: string[];
};

/**
 * Time a write transaction may spend queueing rows before it is committed and the rest go in the
 * next one. Each `put` clones its row on the caller's thread (the page's, for an import), and a
 * batch of 500 long SummEval rows took 150–250 ms there: a slice keeps every step well under the
 * 50 ms that makes a page feel stuck, whatever the rows' length.
 */
export const WRITE_SLICE_MS = 12;

export interface SaveDatasetOptions {
  /** At most this many rows per transaction. */
  batchSize?: number;
  /** See WRITE_SLICE_MS; at least one row goes in each transaction. */
  sliceMs?: number;
  /** The clock the slice is measured with (tests pass a fake). */
  clock?: () => number;
  /** Rows written so far, after each transaction. */
  onProgress?(saved: number): void;
  /**
   * Called once every row is written, before the record is: what only the end of the rows tells
   * (the file's problems, its format). Throwing here removes the rows again.
   */
  complete?(saved: number): Partial<DatasetMeta>;
}

/**
 * Stores a data set and its rows, in batches of at most `batchSize` rows per transaction, each
 * transaction queueing rows for at most `sliceMs` before it commits (the rest of the batch goes in
 * the next one, in a later task); the data set's record (with the final row count and human
 * columns) is written last, so a data set is listed only once all its rows are in. If a batch
 * fails (storage full), the rows already written are removed again and the error says what was
 * not saved: nothing half-imported stays behind.
 */
export async function saveDataset(
  meta: DatasetMeta,
  rows: Iterable<DatasetRow> | AsyncIterable<DatasetRow>,
  options: SaveDatasetOptions = {},
): Promise<StoredDataset> {
  const batchSize = Math.max(1, options.batchSize ?? ROW_BATCH_SIZE);
  const sliceMs = options.sliceMs ?? WRITE_SLICE_MS;
  const clock = options.clock ?? (() => performance.now());
  const database = await db();
  // A rollback deletes by id: never let it touch a data set that was there before.
  if ((await database.getKey('datasets', meta.id)) !== undefined) {
    throw new Error(`A data set with id ${meta.id} is already stored.`);
  }
  const humanColumns = new Set(meta.humanColumns ?? []);
  let saved = 0;
  let missingPredictions = 0;
  let batch: StoredDatasetRow[] = [];

  const flush = async () => {
    while (batch.length > 0) {
      const tx = guarded(database.transaction('dataset-rows', 'readwrite'));
      const store = tx.objectStore('dataset-rows');
      const writes: Array<Promise<unknown>> = [];
      try {
        const started = clock();
        do writes.push(store.put(batch[writes.length]));
        while (writes.length < batch.length && clock() - started < sliceMs);
        await Promise.all([...writes, tx.done]);
      } catch (error) {
        throw await failImport(tx.error ?? error, meta, saved, batch[0].row);
      }
      batch = batch.slice(writes.length);
      saved += writes.length;
      options.onProgress?.(saved);
    }
  };

  let late: Partial<DatasetMeta>;
  try {
    for await (const row of rows) {
      for (const name of Object.keys(row.human)) humanColumns.add(name);
      if (needsPrediction(row)) missingPredictions++;
      batch.push({ ...row, datasetId: meta.id });
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    late = options.complete?.(saved) ?? {};
  } catch (error) {
    // The rows came from a reader that failed or was cancelled: none of them may stay behind.
    // (a failed write has removed them already; removing nothing again is harmless)
    await deleteDataset(meta.id).catch(() => undefined);
    throw error;
  }
  // Counted from the rows themselves, whatever the meta said.
  const { missingPredictions: _claimed, ...rest } = { ...meta, ...late };
  const dataset: StoredDataset = {
    ...rest,
    rowCount: saved,
    humanColumns: [...humanColumns],
    ...(missingPredictions > 0 ? { missingPredictions } : {}),
  };
  try {
    await database.put('datasets', dataset);
  } catch (error) {
    throw await failImport(error, meta, saved, undefined);
  }
  return dataset;
}

async function failImport(
  error: unknown,
  meta: DatasetMeta,
  saved: number,
  firstRow: number | undefined,
): Promise<Error> {
  // Roll back what was written; freeing the space cannot itself hit the quota.
  await deleteDataset(meta.id).catch(() => undefined);
  const at = firstRow === undefined ? '' : ` at row ${firstRow}`;
  return describeStorageError(
    error,
    `The data set "${meta.name}" was not saved: storing it failed${at} after ${saved} rows, and those rows were removed again.`,
  );
}

/**
 * Removes rows whose data set record does not exist: what an import interrupted by a crash or a
 * closed tab leaves behind (the record is written last). Returns the data set ids cleaned. Call it
 * at start-up, before listing storage use; `stillImporting` names the data sets another tab is
 * writing right now (their record is not written yet either).
 */
export async function removeOrphanRows(
  stillImporting: (datasetId: string) => boolean = () => false,
): Promise<string[]> {
  const database = await db();
  const ids: string[] = [];
  let cursor = await database
    .transaction('dataset-rows')
    .store.index('by-dataset')
    .openKeyCursor(null, 'nextunique');
  while (cursor) {
    ids.push(cursor.key);
    cursor = await cursor.continue();
  }
  const known = new Set(await database.getAllKeys('datasets'));
  const orphans = ids.filter((id) => !known.has(id) && !stillImporting(id));
  for (const id of orphans) await deleteDataset(id);
  return orphans;
}

/** Newest first; rows are not loaded. */
export async function listDatasets(): Promise<StoredDataset[]> {
  return (await (await db()).getAllFromIndex('datasets', 'by-created')).reverse();
}

export async function getDataset(id: string): Promise<StoredDataset | undefined> {
  return (await db()).get('datasets', id);
}

/** One stored row, without the `datasetId` key field. */
function plainRow(stored: StoredDatasetRow): DatasetRow {
  const { datasetId: _datasetId, ...row } = stored;
  return row as DatasetRow;
}

/** One row of a data set by its number (the run view opens a row on demand, not all of them). */
export async function getDatasetRow(
  datasetId: string,
  row: number,
): Promise<DatasetRow | undefined> {
  const stored = await (await db()).get('dataset-rows', [datasetId, row]);
  return stored && plainRow(stored);
}

/** Rows `from` (inclusive) onwards, at most `count`, in row order. */
export async function getDatasetRows(
  datasetId: string,
  from = -Infinity,
  count?: number,
): Promise<DatasetRow[]> {
  const range = IDBKeyRange.bound([datasetId, from], [datasetId, Infinity]);
  return (await (await db()).getAll('dataset-rows', range, count)).map(plainRow);
}

/**
 * Every row of a data set in row order, read `batchSize` rows per transaction (no transaction is
 * held open while the caller works on a row).
 */
export async function* iterateDatasetRows(
  datasetId: string,
  batchSize = ROW_BATCH_SIZE,
): AsyncGenerator<DatasetRow> {
  let from = -Infinity;
  for (;;) {
    const rows = await getDatasetRows(datasetId, from, batchSize);
    for (const row of rows) yield row;
    if (rows.length < batchSize) return;
    // Row numbers are integers: the next batch starts after the last one read.
    from = rows[rows.length - 1].row + 1;
  }
}

/** Deletes a data set, its rows, its runs and their results, in one transaction. */
export async function deleteDataset(id: string): Promise<void> {
  const database = await db();
  const tx = guarded(
    database.transaction(['datasets', 'dataset-rows', 'runs', 'run-results'], 'readwrite'),
  );
  const runs = tx.objectStore('runs');
  const results = tx.objectStore('run-results');
  const runIds = await runs.index('by-dataset').getAllKeys(id);
  await Promise.all([
    tx.objectStore('datasets').delete(id),
    tx.objectStore('dataset-rows').delete(idRange(id)),
    ...runIds.map((runId) => runs.delete(runId)),
    ...runIds.map((runId) => results.delete(idRange(runId))),
    tx.done,
  ]);
}

// ---- Runs ----

/** Deletes every data set, run and result (the "delete all" of the history). */
export async function deleteAllDatasets(): Promise<void> {
  const tx = guarded(
    (await db()).transaction(['datasets', 'dataset-rows', 'runs', 'run-results'], 'readwrite'),
  );
  await Promise.all([
    tx.objectStore('datasets').clear(),
    tx.objectStore('dataset-rows').clear(),
    tx.objectStore('runs').clear(),
    tx.objectStore('run-results').clear(),
    tx.done,
  ]);
}
