/**
 * Generated predictions in IndexedDB (datasets/generate/): each prediction is written into its
 * row as soon as it arrives, in the same transaction as the data set's count of rows still
 * without one, so a reload, a crash or a failed call loses at most the rows in flight and a new
 * start generates exactly the rows that still need a prediction: nothing twice.
 */
import { db, guarded } from './db.ts';
import { describeStorageError } from './quota.ts';
import { iterateDatasetRows, ROW_BATCH_SIZE } from './datasets.ts';
import type { StoredDatasetRow } from './schema.ts';
import { needsPrediction, type GenerationRecord, type PredictionRow } from '../rows/formats.ts';

function abortQuietly(tx: { abort(): void }): void {
  try {
    tx.abort();
  } catch {
    // Already aborted by the failure itself.
  }
}

/** A row still waiting for its prediction, with what else the transaction read. */
type Waiting<Read> = Read & { stored: StoredDatasetRow & PredictionRow };

/**
 * One transaction on a row that should still be waiting for its prediction: `read` finds it
 * (undefined when it or its data set is gone), `write` queues the writes. False, writing nothing,
 * when the row has a prediction by now (another tab, or an earlier run, got there first). A failure
 * aborts the transaction and rejects with `failure` in plain words (a full disk as a
 * StorageFullError), which says what that means for the row.
 */
async function updateWaitingRow<Read extends { stored: StoredDatasetRow }>(
  tx: { done: Promise<void>; error: DOMException | null; abort(): void },
  row: number,
  failure: string,
  read: () => Promise<Read | undefined>,
  write: (found: Waiting<Read>) => Promise<unknown>,
): Promise<boolean> {
  try {
    const found = await read();
    if (!found) throw new Error(`Row ${row} is no longer stored (was the data set deleted?).`);
    const { stored } = found;
    if (!needsPrediction(stored)) {
      await tx.done;
      return false;
    }
    await Promise.all([write({ ...found, stored }), tx.done]);
    return true;
  } catch (error) {
    abortQuietly(tx);
    throw describeStorageError(tx.error ?? error, failure);
  }
}

/**
 * The rows of a data set still without a prediction, in row order, read in batches (no
 * transaction held while the caller works on a row).
 */
export async function* rowsNeedingPrediction(
  datasetId: string,
  batchSize = ROW_BATCH_SIZE,
): AsyncGenerator<PredictionRow> {
  for await (const row of iterateDatasetRows(datasetId, batchSize)) {
    if (needsPrediction(row)) yield row;
  }
}

/**
 * Counts the rows still without a prediction and stores the count with the data set (repairs a
 * count that a data set stored before it existed, or an interrupted write, left wrong).
 */
export async function recountMissingPredictions(datasetId: string): Promise<number> {
  let missing = 0;
  for await (const row of iterateDatasetRows(datasetId)) if (needsPrediction(row)) missing++;
  const database = await db();
  const tx = guarded(database.transaction('datasets', 'readwrite'));
  const dataset = await tx.store.get(datasetId);
  if (!dataset) {
    abortQuietly(tx);
    throw new Error('The data set was deleted.');
  }
  if ((dataset.missingPredictions ?? 0) !== missing) {
    await Promise.all([tx.store.put({ ...dataset, missingPredictions: missing }), tx.done]);
  } else {
    await tx.done;
  }
  return missing;
}

/**
 * Stores a generated prediction in its row and takes the row off the data set's missing count,
 * in one transaction. Returns false, changing nothing, when the row already has a prediction
 * (another tab, or an earlier run, got there first). A full disk rejects with a StorageFullError
 * naming the row, which then still needs its prediction.
 */
export async function storeGeneratedPrediction(
  datasetId: string,
  row: number,
  prediction: string,
  generation: GenerationRecord,
): Promise<boolean> {
  const database = await db();
  const tx = guarded(database.transaction(['datasets', 'dataset-rows'], 'readwrite'));
  const rows = tx.objectStore('dataset-rows');
  const datasets = tx.objectStore('datasets');
  return updateWaitingRow(
    tx,
    row,
    `The prediction of row ${row} was not saved; that row still needs one and will be generated again on the next start.`,
    async () => {
      const [stored, dataset] = await Promise.all([
        rows.get([datasetId, row]),
        datasets.get(datasetId),
      ]);
      return stored && dataset ? { stored, dataset } : undefined;
    },
    ({ stored, dataset }) => {
      const { needsPrediction: _done, ...input } = stored.input;
      return Promise.all([
        rows.put({ ...stored, input: { ...input, prediction, generation } }),
        datasets.put({
          ...dataset,
          missingPredictions: Math.max(0, (dataset.missingPredictions ?? 1) - 1),
        }),
      ]);
    },
  );
}

/**
 * Keeps the reason a row's generation failed with the row (which still needs its prediction).
 * Returns false when the row has a prediction by now.
 */
export async function storeGenerationFailure(
  datasetId: string,
  row: number,
  generation: GenerationRecord & { error: string },
): Promise<boolean> {
  const database = await db();
  const tx = guarded(database.transaction('dataset-rows', 'readwrite'));
  return updateWaitingRow(
    tx,
    row,
    `Why row ${row} failed could not be saved; the row still needs a prediction.`,
    async () => {
      const stored = await tx.store.get([datasetId, row]);
      return stored && { stored };
    },
    ({ stored }) => tx.store.put({ ...stored, input: { ...stored.input, generation } }),
  );
}

/** Rows whose last generation attempt failed, with the reasons, in row order (at most `limit`). */
export async function generationFailures(
  datasetId: string,
  limit = 50,
): Promise<Array<{ row: number; error: string }>> {
  const out: Array<{ row: number; error: string }> = [];
  for await (const row of rowsNeedingPrediction(datasetId)) {
    const error = row.input.generation?.error;
    if (error) out.push({ row: row.row, error });
    if (out.length >= limit) break;
  }
  return out;
}
