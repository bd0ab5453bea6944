/**
 * Confirming or changing how a file's columns are read, before its rows are built (issue 5 item 1).
 *
 * The parse worker reads only the first records of a dropped file (`DETECT_SAMPLE`) and sends a
 * `DatasetSample`: a short preview of the first rows, a profile of every column over the sample
 * and a proposed mapping for each kind. The page's MappingEditor changes the mapping with the
 * `with*` helpers, lists what stops it importing (`choiceProblems`, checked against the sample
 * so that "this column is empty" is said before the whole file is read) and shows the preview
 * rows as the mapping reads them (`previewTable`, through the same `toRow` as the import).
 * `reviewReasons` decides whether a file imports straight away or is shown to the user first.
 *
 * The sample lives in mapping/sample.ts, the labels in mapping/fields.ts, the `with*` helpers in
 * mapping/edit.ts, the checks in mapping/checks.ts and the preview in mapping/preview.ts.
 */
export {
  CONFIDENT_DETECTION,
  choiceProblemRefs,
  choiceProblems,
  describeChoice,
  describeChoiceRef,
  detectionDoubt,
  detectionDoubtRef,
  reviewReasons,
  settledChoice,
} from './mapping/checks.ts';
export {
  fieldOfColumn,
  freePromptFields,
  promptFieldProblemRefs,
  promptFieldProblems,
  promptFieldsOf,
  withField,
  withHuman,
  withHumanName,
  withKind,
  withPromptField,
  withPromptFields,
  type PromptField,
} from './mapping/edit.ts';
export {
  FIELD_LABELS,
  FIELD_LABEL_KEYS,
  KIND_FIELDS,
  KIND_LABEL_KEYS,
  taskNeeded,
  taskOptions,
  type MappingChoice,
  type TaskOption,
} from './mapping/fields.ts';
export { previewTable, type PreviewTable } from './mapping/preview.ts';
export {
  buildSample,
  PREVIEW_CHARS,
  PREVIEW_ROWS,
  previewRecord,
  profileColumns,
  type ColumnProfile,
  type DatasetSample,
  type PreviewRecord,
  type PreviewValue,
} from './mapping/sample.ts';
