/**
 * Data sets and batch runs in IndexedDB (schema v3): typed operations for the import, the batch
 * runner and the history.
 *
 * Habits (idb's README): every transaction holds IndexedDB requests only, never other awaited work,
 * so it cannot auto-commit half way; rows are written in batches, one transaction per batch, so an
 * import of 100,000 rows neither holds one giant transaction nor pays one per row.
 *
 * A row's results are stored once, when the row is complete, in the same transaction as the run's
 * counters: after a crash either both happened or neither, so a resumed run scores exactly the
 * rows that have no results (`pendingRows`) and the counters never count a row twice.
 */
import { db } from './db.ts';
import { describeStorageError } from './quota.ts';
import type {
  DatasetProblemsSummary,
  JudgeUsage,
  RunStatus,
  StoredDataset,
  StoredDatasetRow,
  StoredRun,
  StoredRunResult,
} from './schema.ts';
import { needsPrediction, type DatasetRow, type RowProblem } from '../rows/formats.ts';

/** Rows per write transaction when saving a data set. */
export const ROW_BATCH_SIZE = 500;

/** Problem examples kept with a data set (the import screen shows them all at the time). */
export const MAX_STORED_PROBLEMS = 20;

/**
 * Marks a transaction's `done` as handled at once: when a request throws before `tx.done` is
 * awaited (or the transaction is aborted on purpose), its rejection must not surface as an
 * unhandled one. Awaiting `tx.done` later still rejects.
 */
function guarded<T extends { done: Promise<void> }>(tx: T): T {
  tx.done.catch(() => undefined);
  return tx;
}

// Compound keys sort numbers before strings, arrays after: these bounds span every row number.
function idRange(id: string): IDBKeyRange {
  return IDBKeyRange.bound([id, -Infinity], [id, Infinity]);
}

/** The first problems and the count, as stored with a data set. */
export function summarizeProblems(problems: readonly RowProblem[]): DatasetProblemsSummary {
  return { count: problems.length, examples: problems.slice(0, MAX_STORED_PROBLEMS) };
}

/** The human rating columns present in these rows, in first-seen order. */
export function humanColumnsOf(rows: Iterable<DatasetRow>): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const name of Object.keys(row.human)) seen.add(name);
  return [...seen];
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

  for await (const row of rows) {
    for (const name of Object.keys(row.human)) humanColumns.add(name);
    if (needsPrediction(row)) missingPredictions++;
    batch.push({ ...row, datasetId: meta.id });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  // Counted from the rows themselves, whatever the meta said.
  const { missingPredictions: _claimed, ...rest } = meta;
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
 * at start-up, before listing storage use.
 */
export async function removeOrphanRows(): Promise<string[]> {
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
  const orphans = ids.filter((id) => !known.has(id));
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

export type NewRun = Omit<StoredRun, 'updatedAt' | 'status' | 'counts' | 'backends'> &
  Partial<Pick<StoredRun, 'backends' | 'status'>> & { total: number };

export async function createRun(run: NewRun): Promise<StoredRun> {
  const { total, ...rest } = run;
  const stored: StoredRun = {
    ...rest,
    backends: run.backends ?? { perMetric: {} },
    status: run.status ?? 'running',
    updatedAt: run.createdAt,
    counts: { total, done: 0, failed: 0 },
  };
  try {
    await (await db()).add('runs', stored);
  } catch (error) {
    throw describeStorageError(error, 'The run was not started: its record could not be saved.');
  }
  return stored;
}

export async function getRun(id: string): Promise<StoredRun | undefined> {
  return (await db()).get('runs', id);
}

/** Newest first; results are not loaded. */
export async function listRuns(datasetId?: string): Promise<StoredRun[]> {
  const database = await db();
  const runs =
    datasetId === undefined
      ? await database.getAllFromIndex('runs', 'by-created')
      : (await database.getAllFromIndex('runs', 'by-dataset', datasetId)).sort(
          (a, b) => a.createdAt - b.createdAt,
        );
  return runs.reverse();
}

function addUsage(total: JudgeUsage | undefined, add: JudgeUsage): JudgeUsage {
  const base = total ?? { input: 0, output: 0, calls: 0, httpCalls: 0, cachedCalls: 0 };
  const cachedInput =
    base.cachedInput === undefined && add.cachedInput === undefined
      ? undefined
      : (base.cachedInput ?? 0) + (add.cachedInput ?? 0);
  // A cost stays known only while every row's cost is known.
  const cost =
    (total === undefined || base.cost !== undefined) && add.cost !== undefined
      ? (base.cost ?? 0) + add.cost
      : undefined;
  return {
    input: base.input + add.input,
    output: base.output + add.output,
    ...(cachedInput === undefined ? {} : { cachedInput }),
    calls: base.calls + add.calls,
    httpCalls: base.httpCalls + add.httpCalls,
    cachedCalls: base.cachedCalls + add.cachedCalls,
    ...(cost === undefined ? {} : { cost }),
  };
}

/**
 * Stores one complete row's results and, in the same transaction, adds it to the run's counters,
 * judge usage and backends. Idempotent: a row already stored is left as it is and not counted
 * again (returns false). A full disk rejects with a StorageFullError naming the row.
 */
export async function putRowResult(result: StoredRunResult): Promise<boolean> {
  const database = await db();
  const tx = guarded(database.transaction(['runs', 'run-results'], 'readwrite'));
  const results = tx.objectStore('run-results');
  const runs = tx.objectStore('runs');
  try {
    const [existing, run] = await Promise.all([
      results.getKey([result.runId, result.row]),
      runs.get(result.runId),
    ]);
    if (!run) throw new Error(`Run ${result.runId} does not exist (was it deleted?).`);
    // A row stored as failed may be scored again and replaced; a done row never is.
    const replaces = existing === undefined ? undefined : await results.get(existing);
    if (replaces && replaces.status !== 'failed') {
      await tx.done;
      return false;
    }
    run.counts = {
      ...run.counts,
      done: run.counts.done + (replaces ? 0 : 1),
      failed: run.counts.failed - (replaces ? 1 : 0) + (result.status === 'failed' ? 1 : 0),
    };
    if (result.judge) run.judgeUsage = addUsage(run.judgeUsage, result.judge);
    for (const r of result.results) {
      const seen = (run.backends.perMetric[r.id] ??= []);
      if (!seen.includes(r.backend)) seen.push(r.backend);
    }
    run.updatedAt = result.finishedAt;
    await Promise.all([
      replaces ? results.put(result) : results.add(result),
      runs.put(run),
      tx.done,
    ]);
    return true;
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // Already aborted by the failure itself.
    }
    // An aborted transaction's own error says why (QuotaExceededError); its requests only say
    // AbortError.
    throw describeStorageError(
      tx.error ?? error,
      `The results of row ${result.row} were not saved; the run was paused so that nothing is lost, and that row will be scored again on resume.`,
    );
  }
}

/**
 * Stores a whole run at once (an imported export): the run record, then its results in batches of
 * `batchSize`, one transaction each. The counters are recomputed from the results. If a batch
 * fails, the run and what was written of it are removed again and the error says so.
 */
export async function restoreRun(
  run: StoredRun,
  results: readonly StoredRunResult[],
  batchSize = ROW_BATCH_SIZE,
): Promise<StoredRun> {
  const database = await db();
  const stored: StoredRun = {
    ...run,
    counts: {
      total: run.counts.total,
      done: results.length,
      failed: results.filter((r) => r.status === 'failed').length,
    },
  };
  let failure: unknown;
  try {
    await database.add('runs', stored);
    for (let i = 0; i < results.length; i += Math.max(1, batchSize)) {
      const tx = guarded(database.transaction('run-results', 'readwrite'));
      const store = tx.objectStore('run-results');
      const items = results.slice(i, i + Math.max(1, batchSize));
      try {
        await Promise.all([...items.map((r) => store.put({ ...r, runId: run.id })), tx.done]);
      } catch (error) {
        failure = tx.error ?? error;
        throw error;
      }
    }
  } catch (error) {
    await deleteRun(run.id).catch(() => undefined);
    throw describeStorageError(
      failure ?? error,
      `The run of "${run.datasetName}" was not imported: storing its results failed, and what was written was removed again.`,
    );
  }
  return stored;
}

/** The stored results of a run, in row order (`from`/`count` page through them). */
export async function listRunResults(
  runId: string,
  from = -Infinity,
  count?: number,
): Promise<StoredRunResult[]> {
  const range = IDBKeyRange.bound([runId, from], [runId, Infinity]);
  return (await db()).getAll('run-results', range, count);
}

/**
 * Every result of a run in row order, read `batchSize` results per transaction (each read is
 * deserialised at once: small reads keep the page's steps short).
 */
export async function* iterateRunResults(
  runId: string,
  batchSize = ROW_BATCH_SIZE,
): AsyncGenerator<StoredRunResult> {
  let from = -Infinity;
  for (;;) {
    const results = await listRunResults(runId, from, batchSize);
    for (const result of results) yield result;
    if (results.length < batchSize) return;
    from = results[results.length - 1].row + 1;
  }
}

/** The row numbers of a run that have results. */
export async function doneRows(runId: string): Promise<Set<number>> {
  const keys = await (await db()).getAllKeys('run-results', idRange(runId));
  return new Set(keys.map((k) => k[1]));
}

/**
 * The rows of the run's data set that have no results yet, in row order: what a resumed run still
 * has to score. Reads in batches; rows stored while iterating are not re-checked (the runner and
 * `putRowResult` guard against doubles).
 */
export async function* pendingRows(
  runId: string,
  options: { includeFailed?: boolean; batchSize?: number } = {},
): AsyncGenerator<DatasetRow> {
  const run = await getRun(runId);
  if (!run) throw new Error(`Run ${runId} does not exist.`);
  const done = await doneRows(runId);
  if (options.includeFailed)
    for (const row of (await failedResults(runId)).keys()) done.delete(row);
  for await (const row of iterateDatasetRows(run.datasetId, options.batchSize ?? ROW_BATCH_SIZE)) {
    if (!done.has(row.row)) yield row;
  }
}

/** The results of a run's failed rows, by row number (failed rows are few: read them whole). */
export async function failedResults(runId: string): Promise<Map<number, StoredRunResult>> {
  const out = new Map<number, StoredRunResult>();
  for await (const result of iterateRunResults(runId)) {
    if (result.status === 'failed') out.set(result.row, result);
  }
  return out;
}

/**
 * Adds judge usage to a run's totals without a row: the requests of rows that were dropped
 * unsaved when the run paused (a dead key, offline) were still sent, and may be billed.
 */
export async function addRunUsage(runId: string, usage: JudgeUsage): Promise<void> {
  const database = await db();
  const tx = guarded(database.transaction('runs', 'readwrite'));
  const run = await tx.store.get(runId);
  if (!run) {
    await tx.done;
    return;
  }
  run.judgeUsage = addUsage(run.judgeUsage, usage);
  await Promise.all([tx.store.put(run), tx.done]);
}

export interface RunUpdate {
  status?: RunStatus;
  message?: string | null;
  /** Judge settings or backends learnt after the start. */
  backends?: StoredRun['backends'];
  total?: number;
}

/** Changes a run's status (and message); sets `finishedAt` when it becomes done. */
export async function updateRun(id: string, update: RunUpdate): Promise<StoredRun> {
  const database = await db();
  const tx = guarded(database.transaction('runs', 'readwrite'));
  const store = tx.objectStore('runs');
  const run = await store.get(id);
  if (!run) {
    tx.abort();
    await tx.done.catch(() => undefined);
    throw new Error(`Run ${id} does not exist.`);
  }
  const now = Date.now();
  if (update.status !== undefined) {
    run.status = update.status;
    if (update.status === 'done') run.finishedAt = now;
  }
  if (update.message === null) delete run.message;
  else if (update.message !== undefined) run.message = update.message;
  if (update.backends) run.backends = update.backends;
  if (update.total !== undefined) run.counts = { ...run.counts, total: update.total };
  run.updatedAt = now;
  await Promise.all([store.put(run), tx.done]);
  return run;
}

/** Deletes a run and its results. */
export async function deleteRun(id: string): Promise<void> {
  const tx = guarded((await db()).transaction(['runs', 'run-results'], 'readwrite'));
  await Promise.all([
    tx.objectStore('runs').delete(id),
    tx.objectStore('run-results').delete(idRange(id)),
    tx.done,
  ]);
}

/**
 * Removes the rows of a run whose scoring failed as a whole, and takes them off the counters, so
 * that resuming scores them again. Returns how many were removed.
 */
export async function clearFailedRows(runId: string): Promise<number> {
  const database = await db();
  const tx = guarded(database.transaction(['runs', 'run-results'], 'readwrite'));
  const results = tx.objectStore('run-results');
  const runs = tx.objectStore('runs');
  const [all, run] = await Promise.all([results.getAll(idRange(runId)), runs.get(runId)]);
  const failedRows = all.filter((r) => r.status === 'failed');
  const writes: Array<Promise<unknown>> = failedRows.map((r) => results.delete([runId, r.row]));
  if (run && failedRows.length > 0) {
    run.counts = {
      ...run.counts,
      done: run.counts.done - failedRows.length,
      failed: run.counts.failed - failedRows.length,
    };
    if (run.status === 'done') run.status = 'paused';
    run.updatedAt = Date.now();
    writes.push(runs.put(run));
  }
  await Promise.all([...writes, tx.done]);
  return failedRows.length;
}

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

/** The store the batch runner writes through (see src/lib/datasets/batch.ts). */
export interface RunResultStore {
  putResult(result: StoredRunResult): Promise<boolean>;
  setStatus(runId: string, status: RunStatus, message?: string | null): Promise<void>;
  addUsage(runId: string, usage: JudgeUsage): Promise<void>;
}

export const indexedDbRunStore: RunResultStore = {
  putResult: putRowResult,
  addUsage: addRunUsage,
  async setStatus(runId, status, message) {
    await updateRun(runId, { status, message });
  },
};
