/**
 * Batch runs and their results in IndexedDB (schema v3): typed operations for the batch runner
 * (in the batch worker or the page), the run list and the run view.
 *
 * A row's results are stored once, when the row is complete, in the same transaction as the run's
 * counters: after a crash either both happened or neither, so a resumed run scores exactly the
 * rows that have no results (`pendingRows`) and the counters never count a row twice.
 */
import type { MessageRef } from '../i18n/message.ts';
import { db, guarded, idRange } from './db.ts';
import { describeStorageError } from './quota.ts';
import { announceRunChange } from './run-changes.ts';
import { clearJournaledStatus, withJournaledStatus } from './run-status-journal.ts';
import { iterateDatasetRows, ROW_BATCH_SIZE } from './datasets.ts';
import type {
  JudgeUsage,
  RunStatus,
  StoredBatchJob,
  StoredRun,
  StoredRunResult,
} from './schema.ts';
import type { DatasetRow } from '../rows/formats.ts';
import { addUsage, applyUpdate, type RunUpdate } from './run-record.ts';

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
  announceRunChange(stored.id);
  return stored;
}

/** A run as stored, with a status the page could keep only outside IndexedDB laid over it. */
export async function getRun(id: string): Promise<StoredRun | undefined> {
  const run = await (await db()).get('runs', id);
  return run && withJournaledStatus(run);
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
  return runs.reverse().map((run) => withJournaledStatus(run));
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
    announceRunChange(result.runId);
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
  announceRunChange(stored.id);
  return stored;
}

/** One row's stored result in a run (the run view opens a row on demand). */
export async function getRowResult(
  runId: string,
  row: number,
): Promise<StoredRunResult | undefined> {
  return (await db()).get('run-results', [runId, row]);
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
  announceRunChange(runId);
}

/**
 * Reads a run, changes it with `edit` and writes it back in one transaction, so that two writers
 * (the runner's status, the batch job ids) never undo each other's change.
 */
async function editRun(id: string, edit: (run: StoredRun) => void): Promise<StoredRun> {
  const database = await db();
  const tx = guarded(database.transaction('runs', 'readwrite'));
  const store = tx.objectStore('runs');
  const run = await store.get(id);
  if (!run) {
    tx.abort();
    await tx.done.catch(() => undefined);
    throw new Error(`Run ${id} does not exist.`);
  }
  edit(run);
  await Promise.all([store.put(run), tx.done]);
  announceRunChange(id);
  return run;
}

/** Changes a run's status (and message); sets `finishedAt` when it becomes done. */
export async function updateRun(id: string, update: RunUpdate): Promise<StoredRun> {
  const run = await editRun(id, (run) => applyUpdate(run, update));
  // IndexedDB holds the newest status again: a journaled one would only shadow it.
  if (update.status !== undefined) clearJournaledStatus(id);
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
  clearJournaledStatus(id);
  announceRunChange(id);
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
  if (failedRows.length > 0) announceRunChange(runId);
  return failedRows.length;
}

/** The store the batch runner writes through (its contract is `BatchStore` in datasets/batch.ts). */
export const indexedDbRunStore = {
  putResult: putRowResult,
  addUsage: addRunUsage,
  async setStatus(
    runId: string,
    status: RunStatus,
    message?: string | null,
    messageRef?: MessageRef,
  ): Promise<void> {
    await updateRun(runId, { status, message, ...(messageRef ? { messageRef } : {}) });
  },
};

/**
 * The pending provider batch jobs of one run, kept on its record: a job id is stored the moment
 * the provider accepted the job and dropped once its answers are in the judge cache, so a tab
 * closed in between polls the same job when the run resumes.
 */
export function runBatchJobStore(runId: string) {
  const change = async (edit: (jobs: StoredBatchJob[]) => StoredBatchJob[]) => {
    await editRun(runId, (run) => {
      run.batchJobs = edit(run.batchJobs ?? []);
    });
  };
  return {
    async list(): Promise<StoredBatchJob[]> {
      return (await getRun(runId))?.batchJobs ?? [];
    },
    add: (job: StoredBatchJob) =>
      change((jobs) => [...jobs.filter((j) => j.jobId !== job.jobId), job]),
    remove: (jobId: string) => change((jobs) => jobs.filter((j) => j.jobId !== jobId)),
  };
}
