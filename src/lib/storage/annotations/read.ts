/**
 * Reading the ratings made here: every row's `rated_*` values (read in batches), one row's texts,
 * and the progress and next unrated row computed from them.
 */
import { db } from '../db.ts';
import type { DatasetRow } from '../../rows/formats.ts';
import { RATED_PREFIX, isRating } from './dimensions.ts';

/** A row's ratings made here, by dimension name (every `rated_*` column, current dimensions or not). */
export interface RowRatings {
  row: number;
  id?: string;
  ratings: Record<string, number>;
}

/** A row's `human` values as ratings made here (the `rated_*` columns), by dimension name. */
export function ratingsOf(human: Record<string, number>): Record<string, number> {
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
