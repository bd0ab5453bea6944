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
 */
import { messageOf } from '../errors.ts';
import { describeDataset, proposeMapping, requiredFieldsOf } from './detect.ts';
import {
  DATASET_KINDS,
  isCaseRow,
  type ColumnMapping,
  type DatasetDescription,
  type DatasetKind,
  type DatasetRow,
  type MappingTextField,
  type RowProblem,
} from '../rows/formats.ts';
import { toRow } from './parse/rows.ts';
import {
  CUSTOM_REFERENCE_METRICS,
  resolveTask,
  TINYEVAL_METRIC_LABELS,
  TINYEVAL_TASKS,
} from './tinyeval.ts';

/** Rows shown in the preview. */
export const PREVIEW_ROWS = 3;
/** A preview string longer than this is cut (with '…'): a 50 KB article need not cross to the page. */
export const PREVIEW_CHARS = 300;
/** Items kept of a list in the preview (trec's 50 class labels fit). */
const PREVIEW_ITEMS = 100;
/** Nesting kept in the preview; deeper values become their cut JSON text. */
const PREVIEW_DEPTH = 3;
/** Characters of a preview cell as the page shows it. */
const CELL_CHARS = 160;
/** Bad rows met while sampling that the sample keeps (the first few say enough). */
const SAMPLE_PROBLEMS = 20;

/**
 * Below this detection confidence the file is shown to the user before it is imported: a file
 * found only through alias column names (×0.8, e.g. `article`/`highlights`) or with required
 * columns missing from some sampled records.
 */
export const CONFIDENT_DETECTION = 0.9;

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
  /** detect.ts's proposal for each kind, for the kind selector. */
  proposals: Record<DatasetKind, ColumnMapping>;
  /** Bad rows met while sampling, each naming its row (the first `SAMPLE_PROBLEMS`). */
  problems: RowProblem[];
}

/** What the user settles on: the mapping, and the task that scores prediction and SFT rows. */
export interface MappingChoice {
  mapping: ColumnMapping;
  task?: string;
}

export const KIND_LABELS: Record<DatasetKind, string> = {
  case: 'Cases {source, summary, reference?, ratings}',
  summeval: 'SummEval records',
  prediction: 'TinyEval/LongBench predictions',
  sft: 'SFT rows {instruction, input, output} + a prediction',
};

export const FIELD_LABELS: Record<MappingTextField, string> = {
  source: 'Source text',
  summary: 'Summary',
  reference: 'Reference summary',
  instructions: 'Summary instructions',
  prediction: "Model's prediction",
  answers: 'Answers',
  allClasses: 'Class labels',
  length: 'Length',
  instruction: 'Instruction',
  input: 'Input',
  output: 'Expected output',
  id: 'Row id',
  group: 'Source document id',
  system: 'System',
};

/** The fields the editor offers per kind, required ones first. */
export const KIND_FIELDS: Record<DatasetKind, readonly MappingTextField[]> = {
  case: ['source', 'summary', 'reference', 'instructions', 'id', 'group', 'system'],
  summeval: ['source', 'summary', 'reference', 'instructions', 'id', 'group', 'system'],
  prediction: ['prediction', 'answers', 'allClasses', 'length', 'id', 'group', 'system'],
  sft: ['instruction', 'input', 'output', 'prediction', 'id', 'group', 'system'],
};

/** Fields whose column must hold text, not numbers. */
const TEXT_FIELDS: ReadonlySet<MappingTextField> = new Set([
  'source',
  'summary',
  'instruction',
  'prediction',
]);

/** Whether rows of this kind are scored by a TinyEval/LongBench task (which the user must name). */
export function taskNeeded(kind: DatasetKind): boolean {
  return kind === 'prediction' || kind === 'sft';
}

export interface TaskOption {
  id: string;
  label: string;
  origin: 'TinyEval' | 'LongBench' | 'custom';
}

/** TinyEval's and LongBench's tasks, then `custom:<metric>` for each of the app's reference metrics. */
export function taskOptions(): TaskOption[] {
  const known = Object.values(TINYEVAL_TASKS).map((t) => ({
    id: t.id,
    label: `${t.id}: ${t.label}`,
    origin: t.origin,
  }));
  const custom = CUSTOM_REFERENCE_METRICS.map((m) => ({
    id: `custom:${m}`,
    label: `custom:${m}: ${TINYEVAL_METRIC_LABELS[m]}`,
    origin: 'custom' as const,
  }));
  return [...known, ...custom];
}

// ---------------------------------------------------------------- the sample (parse worker)

function cutText(text: string, max: number): string {
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

// ---------------------------------------------------------------- changing a mapping

function copyMapping(mapping: ColumnMapping): ColumnMapping {
  const m: ColumnMapping = { ...mapping, human: [...(mapping.human ?? [])] };
  if (mapping.fields) m.fields = { ...mapping.fields };
  return m;
}

/** The mapping with `field` read from `column` (none when undefined); the column stops being a rating. */
export function withField(
  mapping: ColumnMapping,
  field: MappingTextField,
  column: string | undefined,
): ColumnMapping {
  const m = copyMapping(mapping);
  if (column === undefined) {
    delete m[field];
  } else {
    m[field] = column;
    m.human = (m.human ?? []).filter((h) => h.column !== column);
  }
  return m;
}

/** The mapping with `column` read as people's ratings (named `name`), or not. */
export function withHuman(
  mapping: ColumnMapping,
  column: string,
  rating: boolean,
  name: string = column,
): ColumnMapping {
  const m = copyMapping(mapping);
  const human = (m.human ?? []).filter((h) => h.column !== column);
  if (rating) {
    // Keep the column's place among the ratings when it had one.
    const at = (m.human ?? []).findIndex((h) => h.column === column);
    human.splice(at < 0 ? human.length : at, 0, { column, name });
  }
  m.human = human;
  return m;
}

/** The mapping with a rating column renamed (the name its ratings are stored and charted under). */
export function withHumanName(mapping: ColumnMapping, column: string, name: string): ColumnMapping {
  const m = copyMapping(mapping);
  m.human = (m.human ?? []).map((h) => (h.column === column ? { column, name } : h));
  return m;
}

/** The proposal for another kind (a fresh start: fields differ between kinds). */
export function withKind(sample: DatasetSample, kind: DatasetKind): ColumnMapping {
  return copyMapping(sample.proposals[kind]);
}

/** The text field a column is read as, if any (for the rating list). */
export function fieldOfColumn(
  mapping: ColumnMapping,
  column: string,
): MappingTextField | undefined {
  return KIND_FIELDS[mapping.kind].find((f) => mapping[f] === column);
}

// ---------------------------------------------------------------- prompt fields

/**
 * A column read as a prompt-template field (`{name}`) of prediction rows. The editor holds these
 * as a list, not as `ColumnMapping.fields` (keyed by name), so that a name being typed may clash
 * with another or be invalid for a moment and be reported, without one field overwriting another.
 */
export interface PromptField {
  column: string;
  name: string;
}

/** What a `{name}` placeholder may be called (as `fillPromptTemplate` reads it: `\w+`). */
const PLACEHOLDER_NAME = /^\w+$/u;

/** The mapping's prompt fields, in the file's column order. */
export function promptFieldsOf(mapping: ColumnMapping, columns: readonly string[]): PromptField[] {
  const at = (column: string) => {
    const i = columns.indexOf(column);
    return i < 0 ? columns.length : i;
  };
  return Object.entries(mapping.fields ?? {})
    .map(([name, column]) => ({ column, name }))
    .sort((a, b) => at(a.column) - at(b.column));
}

/**
 * The prompt fields with `column` read as the field `name` (ticked, or renamed in place), or not
 * read as one when `name` is undefined.
 */
export function withPromptField(
  fields: readonly PromptField[],
  column: string,
  name: string | undefined,
): PromptField[] {
  if (name === undefined) return fields.filter((f) => f.column !== column);
  if (!fields.some((f) => f.column === column)) return [...fields, { column, name }];
  return fields.map((f) => (f.column === column ? { column, name } : f));
}

/** The prompt fields less the columns the mapping reads otherwise (as a field of its kind or a rating). */
export function freePromptFields(
  fields: readonly PromptField[],
  mapping: ColumnMapping,
): PromptField[] {
  const used = new Set<string>((mapping.human ?? []).map((h) => h.column));
  for (const field of KIND_FIELDS[mapping.kind]) {
    const column = mapping[field];
    if (column !== undefined) used.add(column);
  }
  return fields.filter((f) => !used.has(f.column));
}

/** The mapping with these prompt fields (names trimmed); other kinds than prediction keep theirs. */
export function withPromptFields(
  mapping: ColumnMapping,
  fields: readonly PromptField[],
): ColumnMapping {
  const m = copyMapping(mapping);
  if (mapping.kind !== 'prediction') return m;
  delete m.fields;
  if (fields.length > 0) {
    m.fields = Object.fromEntries(fields.map((f) => [f.name.trim(), f.column]));
  }
  return m;
}

/**
 * Why these prompt fields cannot be imported, each naming the column at fault: a column not in
 * the file or empty in every sampled row, a missing or invalid name, two fields of one name.
 */
export function promptFieldProblems(
  fields: readonly PromptField[],
  columns: readonly string[],
  sample: DatasetSample,
): string[] {
  const problems: string[] = [];
  const known = new Set(columns);
  const named = new Map<string, string[]>();
  for (const { column, name } of fields) {
    if (!known.has(column)) {
      problems.push(`Prompt field column '${column}' is not in the file.`);
      continue;
    }
    const trimmed = name.trim();
    if (trimmed === '') {
      problems.push(`Prompt field from column '${column}' needs a name.`);
    } else if (!PLACEHOLDER_NAME.test(trimmed)) {
      problems.push(
        `Prompt field name '${trimmed}' (column '${column}') may hold only letters, digits and _: the template names it as {${trimmed}}.`,
      );
    } else {
      named.set(trimmed, [...(named.get(trimmed) ?? []), column]);
    }
    if (sample.profiles[column]?.filled === 0) {
      problems.push(
        `Prompt field column '${column}' is empty in all ${plural(sample.records, 'sampled row')}.`,
      );
    }
  }
  for (const [name, shared] of named) {
    if (shared.length < 2) continue;
    problems.push(
      `Columns ${shared.map((c) => `'${c}'`).join(' and ')} are both named prompt field '${name}': rename one.`,
    );
  }
  return problems;
}

// ---------------------------------------------------------------- checks

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function lower(label: string): string {
  return label === 'Row id'
    ? 'the row id'
    : `the ${label.charAt(0).toLowerCase()}${label.slice(1)}`;
}

/**
 * Why this choice cannot import yet, each message naming the column or field at fault; empty when
 * it can. Checked on the sample: a required column missing or not in the file, one column read as
 * two fields, a required column empty in every sampled row, numbers where text belongs, rating
 * columns without numbers or without a name, and the task of prediction and SFT rows.
 */
export function choiceProblems(
  choice: MappingChoice,
  columns: readonly string[],
  sample: DatasetSample,
): string[] {
  const { mapping } = choice;
  const problems: string[] = [];
  const known = new Set(columns);
  const sampled = sample.records;
  const rows = `all ${plural(sampled, 'sampled row')}`;
  const fields = KIND_FIELDS[mapping.kind];
  const required = new Set<MappingTextField>(requiredFieldsOf(mapping));

  for (const field of fields) {
    const column = mapping[field];
    const label = lower(FIELD_LABELS[field]);
    if (column === undefined) {
      if (required.has(field)) {
        problems.push(
          field === 'prediction' && mapping.kind === 'prediction'
            ? `Choose the column that holds ${label} (required), or tick the prompt fields to generate predictions from.`
            : `Choose the column that holds ${label} (required).`,
        );
      }
      continue;
    }
    if (!known.has(column)) {
      problems.push(`Column '${column}' (${label}) is not in the file.`);
      continue;
    }
    const profile = sample.profiles[column];
    if (!profile || !required.has(field)) continue;
    if (profile.filled === 0) {
      problems.push(`Column '${column}' (${label}) is empty in ${rows}.`);
    } else if (TEXT_FIELDS.has(field) && profile.numeric === profile.filled) {
      problems.push(
        `Column '${column}' holds only numbers in the sampled rows: it cannot be ${label}, which is text.`,
      );
    }
  }

  const byColumn = new Map<string, MappingTextField[]>();
  for (const field of fields) {
    const column = mapping[field];
    if (column !== undefined) byColumn.set(column, [...(byColumn.get(column) ?? []), field]);
  }
  for (const [column, shared] of byColumn) {
    if (shared.length < 2) continue;
    const labels = shared.map((f) => lower(FIELD_LABELS[f]));
    problems.push(
      `Column '${column}' is read as both ${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}: choose another column for one of them.`,
    );
  }

  const names = new Set<string>();
  for (const h of mapping.human ?? []) {
    if (!known.has(h.column)) {
      problems.push(`Rating column '${h.column}' is not in the file.`);
      continue;
    }
    const name = h.name.trim();
    if (name === '') problems.push(`Rating column '${h.column}' needs a name.`);
    else if (names.has(name)) problems.push(`Two rating columns are named '${name}': rename one.`);
    names.add(name);
    const profile = sample.profiles[h.column];
    if (!profile) continue;
    if (profile.filled === 0) {
      problems.push(`Rating column '${h.column}' is empty in ${rows}.`);
    } else if (profile.numeric === 0 && profile.structured === 0) {
      problems.push(
        `Rating column '${h.column}' holds no numbers in the sampled rows: ratings must be numbers.`,
      );
    }
  }

  if (taskNeeded(mapping.kind)) {
    const what = mapping.kind === 'sft' ? 'SFT rows' : 'predictions';
    if (!choice.task) {
      problems.push(
        `Choose the task that scores these ${what} (trec, multi_news, custom:rouge-l, …): without one they cannot be scored.`,
      );
    } else {
      try {
        resolveTask(choice.task);
      } catch (error) {
        problems.push(messageOf(error));
      }
    }
  }
  return problems;
}

/** Why detection is not sure of the file, in words; undefined when it is. */
export function detectionDoubt(detected: DatasetDescription): string | undefined {
  if (detected.confidence >= CONFIDENT_DETECTION) return undefined;
  return detected.confidence === 0
    ? 'The columns do not match a known kind of file: say which column is which.'
    : `Not sure what this file is (confidence ${Math.round(detected.confidence * 100)}%): check the columns.`;
}

/**
 * Why a file should be shown to the user before it is imported; empty when detection is sure and
 * the proposed mapping (with the task from the file name) can import as it is.
 */
export function reviewReasons(
  detected: DatasetDescription,
  sample: DatasetSample,
  choice: MappingChoice,
): string[] {
  const doubt = detectionDoubt(detected);
  return [...(doubt ? [doubt] : []), ...choiceProblems(choice, detected.columns, sample)];
}

/** The choice in words ("Cases (article_body, model_output): 6 rows, 1 human rating column (quality)"). */
export function describeChoice(choice: MappingChoice, sample: DatasetSample): string {
  return describeDataset(
    choice.mapping,
    sample.preview.map((p) => p.record),
    sample.fileRecords === undefined
      ? { count: sample.records, final: false }
      : { count: sample.fileRecords, final: true },
    choice.task,
  );
}

/** The choice as it will be stored: the task only for the kinds a task scores. */
export function settledChoice(choice: MappingChoice): MappingChoice {
  const mapping = copyMapping(choice.mapping);
  mapping.human = (mapping.human ?? []).map((h) => ({ column: h.column, name: h.name.trim() }));
  return taskNeeded(mapping.kind) && choice.task ? { mapping, task: choice.task } : { mapping };
}

// ---------------------------------------------------------------- the preview

export interface PreviewTable {
  /**
   * Column headings: the mapped fields of the kind, the prompt fields of prediction rows
   * (`{context}`), then "Ratings" when there are any.
   */
  headings: string[];
  rows: Array<{ row: number; cells: string[] } | { row: number; problem: string }>;
}

function cell(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return '—';
  return cutText(text.replace(/\s+/gu, ' ').trim(), CELL_CHARS);
}

/** What a built row holds for one field, in words. */
function fieldText(r: DatasetRow, field: MappingTextField): string | undefined {
  if (field === 'id') return r.id;
  if (field === 'group') return r.group;
  if (field === 'system') return r.system;
  if (isCaseRow(r)) {
    const input = r.input;
    switch (field) {
      case 'source':
        return input.source;
      case 'summary':
        return input.summary;
      case 'reference':
        if (input.reference === undefined) return undefined;
        return r.references && r.references.length > 1
          ? `${input.reference} (+${plural(r.references.length - 1, 'more reference')})`
          : input.reference;
      case 'instructions':
        return input.instructions?.map((s) => s.name).join(', ');
      default:
        return undefined;
    }
  }
  const input = r.input;
  switch (field) {
    case 'prediction':
      return input.prediction;
    case 'answers':
    case 'output':
      return input.answers.join(' | ');
    case 'allClasses':
      return input.allClasses ? plural(input.allClasses.length, 'label') : undefined;
    case 'length':
      return input.length === undefined ? undefined : String(input.length);
    case 'instruction':
      return input.fields?.instruction;
    case 'input':
      return input.fields?.input;
    default:
      return undefined;
  }
}

const RATINGS = 'Ratings';

/** A preview value as it reads in a cell (lists and objects as JSON). */
function rawText(value: PreviewValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A rating as it reads in a cell ("quality 3.50"). */
function ratingText(name: string, value: number): string {
  return `${name} ${Number.isInteger(value) ? value : value.toFixed(2)}`;
}

/**
 * The preview rows as `mapping` reads them: what each field gets, or why a row would be rejected.
 * While a required field has no column, rows cannot be built: the cells show the mapped columns'
 * values as they are, and the missing field says so, so the user sees what each column holds.
 */
export function previewTable(sample: DatasetSample, mapping: ColumnMapping): PreviewTable {
  const required = new Set<MappingTextField>(requiredFieldsOf(mapping));
  const fields = KIND_FIELDS[mapping.kind].filter(
    (f) => mapping[f] !== undefined || required.has(f),
  );
  const unmapped = fields.some((f) => mapping[f] === undefined);
  // SFT rows show their template fields as the instruction and input already.
  const prompt = mapping.kind === 'prediction' ? Object.entries(mapping.fields ?? {}) : [];
  const human = mapping.human ?? [];
  const withRatings = human.length > 0;
  const headings = [
    ...fields.map((f) => FIELD_LABELS[f]),
    ...prompt.map(([name]) => `{${name}}`),
    ...(withRatings ? [RATINGS] : []),
  ];
  const rows = sample.preview.map(({ row, record }) => {
    if (unmapped) {
      const cells = fields.map((f) => {
        const column = mapping[f];
        return column === undefined ? '(choose a column)' : cell(rawText(record[column]));
      });
      const promptCells = prompt.map(([, column]) => cell(rawText(record[column])));
      const ratings = human.map((h) => `${h.name} ${rawText(record[h.column]) ?? '—'}`).join(' · ');
      return { row, cells: [...cells, ...promptCells, ...(withRatings ? [cell(ratings)] : [])] };
    }
    const built = toRow(record, row, mapping);
    if ('reason' in built) return { row, problem: `row ${row}: ${built.reason}` };
    const r = built.row;
    const ratings = Object.entries(r.human)
      .map(([name, v]) => ratingText(name, v))
      .join(' · ');
    const promptFields: Record<string, string> = isCaseRow(r) ? {} : (r.input.fields ?? {});
    return {
      row,
      cells: [
        ...fields.map((f) => cell(fieldText(r, f))),
        ...prompt.map(([name]) => cell(promptFields[name])),
        ...(withRatings ? [cell(ratings)] : []),
      ],
    };
  });
  return { headings, rows };
}
