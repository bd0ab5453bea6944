/**
 * Confirming or changing how a file's columns are read, before its rows are built (issue 5 item 1).
 *
 * The parse worker reads only the first records of a dropped file (`DETECT_SAMPLE`) and sends a
 * `DatasetSample`: a short preview of the first rows, a profile of every column over the sample
 * and a proposed mapping for each kind, small enough to cross to the page. The page's
 * MappingEditor changes the mapping with the `with*` helpers, lists what stops it importing
 * (`choiceProblems`, checked against the sample so that "this column is empty" is said before the
 * whole file is read) and shows the preview rows as the mapping reads them (`previewTable`,
 * through the same `toRow` as the import). `reviewReasons` decides whether a file imports straight
 * away or is shown to the user first.
 *
 * The sample lives here, the labels in fields.ts, the `with*` helpers in edit.ts, the checks in
 * checks.ts and the preview in preview.ts.
 */
import { proposeMapping } from '../detect/propose.ts';
import {
  DATASET_KINDS,
  type ColumnMapping,
  type DatasetKind,
  type RowProblem,
} from '../../rows/formats.ts';

/** Rows shown in the preview. */
export const PREVIEW_ROWS = 3;
/** A preview string longer than this is cut (with '…'): a 50 KB article need not cross to the page. */
export const PREVIEW_CHARS = 300;
/** Items kept of a list in the preview (trec's 50 class labels fit). */
const PREVIEW_ITEMS = 100;
/** Nesting kept in the preview; deeper values become their cut JSON text. */
const PREVIEW_DEPTH = 3;
/** Bad rows met while sampling that the sample keeps (the first few say enough). */
const SAMPLE_PROBLEMS = 20;

/** A JSON value as the preview keeps it. */
export type PreviewValue =
  string | number | boolean | null | PreviewValue[] | { [key: string]: PreviewValue };
export type PreviewRecord = Record<string, PreviewValue>;

/** What the sampled records hold in one column. */
export interface ColumnProfile {
  /** Records with a value here (not missing, null or blank). */
  filled: number;
  /** Of those, numbers or numeric strings. */
  numeric: number;
  /** Of those, lists or objects (annotation lists, reference lists). */
  structured: number;
}

/** What the first records of a file showed: enough for the page to confirm or change the mapping. */
export interface DatasetSample {
  /** The first records with their row numbers, strings cut to `PREVIEW_CHARS`. */
  preview: { row: number; record: PreviewRecord }[];
  /** Records the profiles and proposals are based on (at most `DETECT_SAMPLE`). */
  records: number;
  /** Every record of the file, when it was small enough to be read whole while sampling. */
  fileRecords?: number;
  /** Per column (every column of `DatasetDescription.columns`), over the sampled records. */
  profiles: Record<string, ColumnProfile>;
  /** detect/propose.ts's proposal for each kind, for the kind selector. */
  proposals: Record<DatasetKind, ColumnMapping>;
  /** Bad rows met while sampling, each naming its row (the first `SAMPLE_PROBLEMS`). */
  problems: RowProblem[];
}

export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  // Do not leave half of a surrogate pair at the end.
  if (/[\uD800-\uDBFF]$/u.test(cut)) cut = cut.slice(0, -1);
  return cut + '…';
}

function previewValue(value: unknown, depth: number): PreviewValue | undefined {
  if (typeof value === 'string') return cutText(value, PREVIEW_CHARS);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean' || value === null) return value;
  if (typeof value !== 'object' || value === undefined) return undefined;
  if (depth >= PREVIEW_DEPTH) return cutText(JSON.stringify(value), PREVIEW_CHARS);
  if (Array.isArray(value)) {
    return value.slice(0, PREVIEW_ITEMS).map((v) => previewValue(v, depth + 1) ?? null);
  }
  const out: Record<string, PreviewValue> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>).slice(0, PREVIEW_ITEMS)) {
    const p = previewValue(v, depth + 1);
    if (p !== undefined) out[k] = p;
  }
  return out;
}

/** A record as the preview keeps it: strings cut to `PREVIEW_CHARS`, lists to 100 items. */
export function previewRecord(record: Readonly<Record<string, unknown>>): PreviewRecord {
  const out: PreviewRecord = {};
  for (const [k, v] of Object.entries(record)) {
    const p = previewValue(v, 0);
    if (p !== undefined) out[k] = p;
  }
  return out;
}

function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value));
}

/** What each column holds over the records. */
export function profileColumns(
  records: readonly Readonly<Record<string, unknown>>[],
  columns: readonly string[],
): Record<string, ColumnProfile> {
  const profiles: Record<string, ColumnProfile> = {};
  for (const column of columns) {
    const profile: ColumnProfile = { filled: 0, numeric: 0, structured: 0 };
    for (const record of records) {
      const value = record[column];
      if (value === undefined || value === null) continue;
      if (typeof value === 'string' && value.trim() === '') continue;
      profile.filled++;
      if (isNumeric(value)) profile.numeric++;
      else if (typeof value === 'object') profile.structured++;
    }
    profiles[column] = profile;
  }
  return profiles;
}

/** The sample the parse worker sends for the records it read. */
export function buildSample(
  items: readonly { row: number; record: Readonly<Record<string, unknown>> }[],
  columns: readonly string[],
  options: { fileRecords?: number; problems: readonly RowProblem[] },
): DatasetSample {
  const records = items.map((i) => i.record);
  const proposals = {} as Record<DatasetKind, ColumnMapping>;
  for (const kind of DATASET_KINDS) proposals[kind] = proposeMapping(kind, records, columns);
  return {
    preview: items
      .slice(0, PREVIEW_ROWS)
      .map((i) => ({ row: i.row, record: previewRecord(i.record) })),
    records: items.length,
    ...(options.fileRecords !== undefined ? { fileRecords: options.fileRecords } : {}),
    profiles: profileColumns(records, columns),
    proposals,
    problems: options.problems.slice(0, SAMPLE_PROBLEMS),
  };
}
