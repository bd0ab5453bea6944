/**
 * People's ratings typed in the page's annotator, stored with the rows of a data set.
 *
 * A rating of dimension `coherence` is the row's `human.rated_coherence` (1–5), so ratings made
 * here never overwrite imported ones (`expert_coherence`, `overall`) and calibrate like them: the
 * run view reads `human` when a run is opened. Each change writes the row and the data set's
 * `humanColumns` in one transaction, so the list of columns never disagrees with the rows.
 *
 * The dimensions asked are stored on the data set (`annotationDimensions`); unset means the four
 * of SummEval (Fabbri et al. 2021). Removing a dimension keeps its ratings unless asked otherwise,
 * and renaming one moves its ratings to the new column.
 */
import { db } from './db.ts';
import { describeStorageError } from './quota.ts';
import type { StoredDataset, StoredDatasetRow } from './schema.ts';
import { isCaseRow, type DatasetRow } from '../rows/formats.ts';

export type AnnotationDimension = NonNullable<StoredDataset['annotationDimensions']>[number];

export const RATING_MIN = 1;
export const RATING_MAX = 5;

/** Prefix of the human columns written here; imported columns never carry it by accident. */
export const RATED_PREFIX = 'rated_';

export const MAX_DIMENSION_NAME = 40;
export const MAX_DIMENSION_GUIDE = 300;

/** SummEval's four dimensions, with our own one-line definitions. */
export const DEFAULT_DIMENSIONS: readonly AnnotationDimension[] = [
  {
    name: 'coherence',
    guide:
      'The summary reads as one organised whole: sentences follow on from each other and build a clear picture, not a heap of loose facts.',
  },
  {
    name: 'consistency',
    guide:
      'Every fact in the summary is backed by the source: nothing invented, nothing that contradicts it.',
  },
  {
    name: 'fluency',
    guide:
      'Each sentence on its own is well formed: grammatical, readable, no repetitions, fragments or formatting debris.',
  },
  {
    name: 'relevance',
    guide:
      'The summary keeps what matters most in the source and leaves out the minor and the redundant.',
  },
];

/** A rule of the annotator was broken (bad name, unknown row): the message says which. */
export class AnnotationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AnnotationError';
  }
}

export function ratingColumn(dimension: string): string {
  return RATED_PREFIX + dimension;
}

/** Case and SummEval rows have a source and a summary to rate; prediction rows do not. */
export function isAnnotatable(dataset: Pick<StoredDataset, 'kind'>): boolean {
  return dataset.kind === 'case' || dataset.kind === 'summeval';
}

/**
 * A typed name as a dimension name: trimmed, lower case, inner spaces as `_`. Letters (any
 * script), digits, `_` and `-` only, since it becomes part of a column name in CSV and Markdown.
 */
export function normalizeDimensionName(input: string): string {
  const name = input.trim().toLowerCase().replace(/\s+/gu, '_');
  if (name === '') throw new AnnotationError('A dimension needs a name.');
  if (name.length > MAX_DIMENSION_NAME) {
    throw new AnnotationError(
      `The dimension name "${name}" is ${name.length} characters long; at most ${MAX_DIMENSION_NAME}.`,
    );
  }
  const bad = /[^\p{L}\p{N}_-]/u.exec(name);
  if (bad) {
    throw new AnnotationError(
      `The dimension name "${name}" contains "${bad[0]}": use letters, digits, "_" or "-".`,
    );
  }
  return name;
}

function checkGuide(guide: string): string {
  const text = guide.trim().replace(/\s+/gu, ' ');
  if (text.length > MAX_DIMENSION_GUIDE) {
    throw new AnnotationError(
      `The guide text is ${text.length} characters long; keep it to one line of at most ${MAX_DIMENSION_GUIDE}.`,
    );
  }
  return text;
}

/**
 * The dimensions the annotator asks for this data set. A stored list that is not a list of
 * named dimensions (an edited export) falls back to the defaults rather than breaking the view.
 */
export function dimensionsOf(
  dataset: Pick<StoredDataset, 'annotationDimensions'>,
): AnnotationDimension[] {
  const stored: unknown = dataset.annotationDimensions;
  if (!Array.isArray(stored) || stored.length === 0)
    return DEFAULT_DIMENSIONS.map((d) => ({ ...d }));
  const out: AnnotationDimension[] = [];
  for (const item of stored as unknown[]) {
    const { name, guide } = (item ?? {}) as { name?: unknown; guide?: unknown };
    if (typeof name !== 'string' || name === '' || out.some((d) => d.name === name)) continue;
    out.push({ name, guide: typeof guide === 'string' ? guide : '' });
  }
  return out.length > 0 ? out : DEFAULT_DIMENSIONS.map((d) => ({ ...d }));
}

/** A rating as stored: an integer from 1 to 5. */
export function isRating(value: unknown): value is number {
  return (
    Number.isInteger(value) && (value as number) >= RATING_MIN && (value as number) <= RATING_MAX
  );
}

// ---- Reading ----

/** A row's ratings made here, by dimension name (every `rated_*` column, current dimensions or not). */
export interface RowRatings {
  row: number;
  id?: string;
  ratings: Record<string, number>;
}

function ratingsOf(human: Record<string, number>): Record<string, number> {
  const ratings: Record<string, number> = {};
  for (const [column, value] of Object.entries(human)) {
    if (column.startsWith(RATED_PREFIX)) ratings[column.slice(RATED_PREFIX.length)] = value;
  }
  return ratings;
}

/** Rows read per transaction while listing ratings. */
const READ_BATCH = 500;

/** Every row's number, id and ratings, in row order; the texts are not kept. */
export async function listRowRatings(datasetId: string): Promise<RowRatings[]> {
  const database = await db();
  const out: RowRatings[] = [];
  let from = -Infinity;
  for (;;) {
    const rows = await database.getAll(
      'dataset-rows',
      IDBKeyRange.bound([datasetId, from], [datasetId, Infinity]),
      READ_BATCH,
    );
    for (const r of rows) {
      out.push({
        row: r.row,
        ...(r.id === undefined ? {} : { id: r.id }),
        ratings: ratingsOf(r.human),
      });
    }
    if (rows.length < READ_BATCH) return out;
    from = rows[rows.length - 1].row + 1;
  }
}

/** One row of a data set, or undefined when there is none with that number. */
export async function getRow(datasetId: string, row: number): Promise<DatasetRow | undefined> {
  const stored = await (await db()).get('dataset-rows', [datasetId, row]);
  if (!stored) return undefined;
  const { datasetId: _datasetId, ...plain } = stored;
  return plain as DatasetRow;
}

/** Whether every one of `dimensions` has a rating. */
export function isFullyRated(
  ratings: Record<string, number>,
  dimensions: readonly string[],
): boolean {
  return dimensions.every((d) => isRating(ratings[d]));
}

export interface AnnotationProgress {
  rows: number;
  /** Rows rated on every dimension. */
  fullyRated: number;
  /** Rated rows per dimension. */
  perDimension: Record<string, number>;
}

export function annotationProgress(
  rows: readonly RowRatings[],
  dimensions: readonly string[],
): AnnotationProgress {
  const perDimension: Record<string, number> = Object.fromEntries(dimensions.map((d) => [d, 0]));
  let fullyRated = 0;
  for (const r of rows) {
    let all = true;
    for (const d of dimensions) {
      if (isRating(r.ratings[d])) perDimension[d]++;
      else all = false;
    }
    if (all) fullyRated++;
  }
  return { rows: rows.length, fullyRated, perDimension };
}

/**
 * The index of the first row after `from` (wrapping round) that is not rated on every dimension,
 * or -1 when all are. `from` = -1 starts at the first row.
 */
export function nextUnrated(
  rows: readonly RowRatings[],
  dimensions: readonly string[],
  from = -1,
): number {
  for (let step = 1; step <= rows.length; step++) {
    const i = (((from + step) % rows.length) + rows.length) % rows.length;
    if (!isFullyRated(rows[i].ratings, dimensions)) return i;
  }
  return -1;
}

// ---- Writing ----

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
