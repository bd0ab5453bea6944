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
 * The scale and dimensions are in annotations/dimensions.ts, reading in annotations/read.ts,
 * writing in annotations/write.ts; this module is the one entry.
 */
export * from './annotations/dimensions.ts';
export {
  annotationProgress,
  getRow,
  isFullyRated,
  listRowRatings,
  nextUnrated,
  type RowRatings,
} from './annotations/read.ts';
export * from './annotations/write.ts';
