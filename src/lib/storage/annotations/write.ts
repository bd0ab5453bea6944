/**
 * Writing ratings and dimensions: each change writes the row and the data set's `humanColumns` in
 * one transaction, so the list of columns never disagrees with the rows. Renaming a dimension
 * moves its ratings; removing one keeps them unless asked otherwise.
 */
import { db } from '../db.ts';
import { describeStorageError } from '../quota.ts';
import type { StoredDataset, StoredDatasetRow } from '../schema.ts';
import { isCaseRow } from '../../rows/formats.ts';
import {
  AnnotationError,
  MAX_DIMENSION_GUIDE,
  RATING_MAX,
  RATING_MIN,
  dimensionsOf,
  isRating,
  normalizeDimensionName,
  ratingColumn,
  type AnnotationDimension,
} from './dimensions.ts';
import { ratingsOf } from './read.ts';

function checkGuide(guide: string): string {
  const text = guide.trim().replace(/\s+/gu, ' ');
  if (text.length > MAX_DIMENSION_GUIDE) {
    throw new AnnotationError(
      `The guide text is ${text.length} characters long; keep it to one line of at most ${MAX_DIMENSION_GUIDE}.`,
    );
  }
  return text;
}

function guarded<T extends { done: Promise<void> }>(tx: T): T {
  tx.done.catch(() => undefined);
  return tx;
}

function rowsOf(datasetId: string): IDBKeyRange {
  return IDBKeyRange.bound([datasetId, -Infinity], [datasetId, Infinity]);
}

type RatingTx = ReturnType<typeof ratingTransaction>;

function ratingTransaction(database: Awaited<ReturnType<typeof db>>) {
  return guarded(database.transaction(['datasets', 'dataset-rows'], 'readwrite'));
}

/**
 * Runs `work` in one read-write transaction over the data set and its rows. A broken rule aborts
 * it and rethrows as is; a failed write is described (storage full: what was not saved).
 */
async function inTransaction<T>(what: string, work: (tx: RatingTx) => Promise<T>): Promise<T> {
  const database = await db();
  const tx = ratingTransaction(database);
  try {
    const value = await work(tx);
    await tx.done;
    return value;
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // Already finished or aborted by the failure itself.
    }
    if (error instanceof AnnotationError) throw error;
    throw describeStorageError(tx.error ?? error, what);
  }
}

async function datasetIn(tx: RatingTx, datasetId: string): Promise<StoredDataset> {
  const dataset = await tx.objectStore('datasets').get(datasetId);
  if (!dataset) throw new AnnotationError('This data set no longer exists (was it deleted?).');
  return dataset;
}

function knownDimension(dataset: StoredDataset, dimension: string): void {
  if (!dimensionsOf(dataset).some((d) => d.name === dimension)) {
    throw new AnnotationError(`"${dimension}" is not a dimension of "${dataset.name}".`);
  }
}

/** Whether some row other than `except` still has `column`; reads until the first one. */
async function columnInUse(
  tx: RatingTx,
  datasetId: string,
  column: string,
  except?: number,
): Promise<boolean> {
  let cursor = await tx.objectStore('dataset-rows').openCursor(rowsOf(datasetId));
  while (cursor) {
    if (cursor.value.row !== except && column in cursor.value.human) return true;
    cursor = await cursor.continue();
  }
  return false;
}

/**
 * Stores one rating (1–5) of one row, and adds its column to the data set's human columns in
 * the same transaction. Returns the row's ratings after the change.
 */
export async function setRating(
  datasetId: string,
  row: number,
  dimension: string,
  value: number,
): Promise<Record<string, number>> {
  if (!isRating(value)) {
    throw new AnnotationError(
      `A rating is a whole number from ${RATING_MIN} to ${RATING_MAX}, not ${String(value)}.`,
    );
  }
  return inTransaction(
    `The rating ${dimension} = ${value} of row ${row} was not saved.`,
    async (tx) => {
      const rows = tx.objectStore('dataset-rows');
      const [dataset, stored] = await Promise.all([
        datasetIn(tx, datasetId),
        rows.get([datasetId, row]),
      ]);
      knownDimension(dataset, dimension);
      if (!stored) throw new AnnotationError(`Row ${row} is not in "${dataset.name}".`);
      if (!isCaseRow(stored)) {
        throw new AnnotationError(
          `Row ${row} of "${dataset.name}" is a ${stored.kind} row: only summaries are rated here.`,
        );
      }
      const column = ratingColumn(dimension);
      const updated: StoredDatasetRow = { ...stored, human: { ...stored.human, [column]: value } };
      const writes: Array<Promise<unknown>> = [rows.put(updated)];
      if (!dataset.humanColumns.includes(column)) {
        writes.push(
          tx
            .objectStore('datasets')
            .put({ ...dataset, humanColumns: [...dataset.humanColumns, column] }),
        );
      }
      await Promise.all(writes);
      return ratingsOf(updated.human);
    },
  );
}

/**
 * Removes one rating of one row; the column leaves the data set's human columns once no row has
 * it. Clearing a rating that is not there changes nothing. Returns the row's ratings after.
 */
export async function clearRating(
  datasetId: string,
  row: number,
  dimension: string,
): Promise<Record<string, number>> {
  return inTransaction(`The rating ${dimension} of row ${row} was not cleared.`, async (tx) => {
    const rows = tx.objectStore('dataset-rows');
    const [dataset, stored] = await Promise.all([
      datasetIn(tx, datasetId),
      rows.get([datasetId, row]),
    ]);
    if (!stored) throw new AnnotationError(`Row ${row} is not in "${dataset.name}".`);
    const column = ratingColumn(dimension);
    if (!(column in stored.human)) return ratingsOf(stored.human);
    const { [column]: _removed, ...human } = stored.human;
    await rows.put({ ...stored, human });
    if (!(await columnInUse(tx, datasetId, column, row))) {
      await tx.objectStore('datasets').put({
        ...dataset,
        humanColumns: dataset.humanColumns.filter((c) => c !== column),
      });
    }
    return ratingsOf(human);
  });
}

// ---- Dimensions ----

/** Adds a dimension (its ratings, if a removed one kept them, count again). Returns the new list. */
export async function addDimension(
  datasetId: string,
  name: string,
  guide = '',
): Promise<AnnotationDimension[]> {
  const dimension = { name: normalizeDimensionName(name), guide: checkGuide(guide) };
  return inTransaction(`The dimension "${dimension.name}" was not added.`, async (tx) => {
    const dataset = await datasetIn(tx, datasetId);
    const dimensions = dimensionsOf(dataset);
    if (dimensions.some((d) => d.name === dimension.name)) {
      throw new AnnotationError(`"${dimension.name}" is already a dimension.`);
    }
    const next = [...dimensions, dimension];
    await tx.objectStore('datasets').put({ ...dataset, annotationDimensions: next });
    return next;
  });
}

/**
 * Renames a dimension and/or changes its guide. A new name moves every row's rating to the new
 * column, in the same transaction, so no rating is left under the old name or lost.
 */
export async function updateDimension(
  datasetId: string,
  current: string,
  change: { name?: string; guide?: string },
): Promise<AnnotationDimension[]> {
  const name = change.name === undefined ? current : normalizeDimensionName(change.name);
  const guide = change.guide === undefined ? undefined : checkGuide(change.guide);
  return inTransaction(`The dimension "${current}" was not changed.`, async (tx) => {
    const dataset = await datasetIn(tx, datasetId);
    const dimensions = dimensionsOf(dataset);
    const index = dimensions.findIndex((d) => d.name === current);
    if (index < 0)
      throw new AnnotationError(`"${current}" is not a dimension of "${dataset.name}".`);
    let humanColumns = dataset.humanColumns;
    if (name !== current) {
      if (dimensions.some((d) => d.name === name)) {
        throw new AnnotationError(`"${name}" is already a dimension.`);
      }
      const from = ratingColumn(current);
      const to = ratingColumn(name);
      if (humanColumns.includes(to)) {
        throw new AnnotationError(
          `Ratings named ${to} are already stored (from a removed dimension): add "${name}" back instead of renaming "${current}" onto it.`,
        );
      }
      let cursor = await tx.objectStore('dataset-rows').openCursor(rowsOf(datasetId));
      while (cursor) {
        const { human } = cursor.value;
        if (from in human) {
          const { [from]: value, ...rest } = human;
          await cursor.update({ ...cursor.value, human: { ...rest, [to]: value } });
        }
        cursor = await cursor.continue();
      }
      humanColumns = humanColumns.map((c) => (c === from ? to : c));
    }
    const next = dimensions.map((d, i) => (i === index ? { name, guide: guide ?? d.guide } : d));
    await tx.objectStore('datasets').put({ ...dataset, humanColumns, annotationDimensions: next });
    return next;
  });
}

/**
 * Stops asking a dimension. Its ratings stay with the rows (and keep calibrating) unless
 * `deleteRatings`, which removes them from every row in the same transaction. The last
 * dimension cannot be removed.
 */
export async function removeDimension(
  datasetId: string,
  name: string,
  options: { deleteRatings?: boolean } = {},
): Promise<AnnotationDimension[]> {
  return inTransaction(`The dimension "${name}" was not removed.`, async (tx) => {
    const dataset = await datasetIn(tx, datasetId);
    const dimensions = dimensionsOf(dataset);
    if (!dimensions.some((d) => d.name === name)) {
      throw new AnnotationError(`"${name}" is not a dimension of "${dataset.name}".`);
    }
    if (dimensions.length === 1) {
      throw new AnnotationError('The annotator needs at least one dimension: add another first.');
    }
    const next = dimensions.filter((d) => d.name !== name);
    let humanColumns = dataset.humanColumns;
    if (options.deleteRatings) {
      const column = ratingColumn(name);
      let cursor = await tx.objectStore('dataset-rows').openCursor(rowsOf(datasetId));
      while (cursor) {
        if (column in cursor.value.human) {
          const { [column]: _removed, ...human } = cursor.value.human;
          await cursor.update({ ...cursor.value, human });
        }
        cursor = await cursor.continue();
      }
      humanColumns = humanColumns.filter((c) => c !== column);
    }
    await tx.objectStore('datasets').put({ ...dataset, humanColumns, annotationDimensions: next });
    return next;
  });
}
