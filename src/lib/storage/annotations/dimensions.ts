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
 *
 * This module is the annotator's vocabulary: the 1–5 scale, the rating column of a dimension
 * (`rated_<name>`), the dimensions of a data set and the rules on their names. Reading is in
 * read.ts, writing in write.ts.
 */
import type { StoredDataset } from '../schema.ts';

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
