/**
 * Recognises what a data set is from the keys (and a few values) of its first records, says so in
 * words, and proposes a ColumnMapping the user can override before the rows are built.
 *
 * Recognised, most specific first: SummEval records (`text` + `decoded`), TinyEval/LongBench
 * predictions (`pred` + `answers`), SFT rows (`instruction` + `output`), cases (a source column
 * and a summary column under any of the usual names), and TinyEval/LongBench data files
 * (`answers` with `context`/`input` but no prediction: predictions to generate first). Numeric columns that are not mapped text
 * columns (nor ids or lengths) are proposed as human ratings, and so are lists of rating objects
 * (SummEval's `expert_annotations`).
 */
import type {
  ColumnMapping,
  DatasetDescription,
  DatasetKind,
  FileFormat,
  HumanColumn,
  MappingTextField,
} from '../rows/formats.ts';
import { MAPPING_TEXT_FIELDS, REQUIRED_FIELDS } from '../rows/formats.ts';
import { parseAnswers } from '../metrics/lexical/answers.ts';
import { findPredictionColumn } from './sft.ts';
import { taskFromFileName, TINYEVAL_TASKS } from './tinyeval.ts';

type Rec = Record<string, unknown>;

/** Usual column names per field, most likely first (matched case-insensitively). */
export const COLUMN_ALIASES: Partial<Record<MappingTextField, readonly string[]>> = {
  source: [
    'source',
    'document',
    'article',
    'text',
    'context',
    'transcript',
    'conversation',
    'dialogue',
    'src',
    'doc',
    'input',
  ],
  summary: [
    'summary',
    'decoded',
    'candidate',
    'hypothesis',
    'system_summary',
    'machine_summary',
    'model_summary',
    'generated_summary',
    'generated',
    'prediction',
    'pred',
    'output',
  ],
  reference: [
    'reference',
    'references',
    'reference_summary',
    'ref',
    'target',
    'gold',
    'gold_summary',
    'highlights',
  ],
  instructions: ['instructions', 'summary_instructions', 'sections'],
  id: ['id', 'example_id', 'uid', 'key'],
  group: ['doc_id', 'document_id', 'source_id', 'article_id'],
  system: ['model_id', 'system', 'system_id', 'model'],
  prediction: ['pred', 'prediction', 'predictions', 'response', 'generated', 'model_output'],
  answers: ['answers', 'answer', 'ground_truth', 'ground_truths', 'gold', 'label', 'labels'],
  allClasses: ['all_classes', 'classes', 'labels_all'],
  length: ['length'],
};

/** Names never proposed as human ratings even when numeric. */
const NOT_RATINGS = /^(?:_?id|idx|index|row|line|length|len|n|seed|.*_id|.*_idx)$/iu;

/** How many records detection looks at. */
export const DETECT_SAMPLE = 50;

export interface DetectOptions {
  format: FileFormat;
  /** The file's name, for the TinyEval task (`trec.jsonl` → trec). */
  fileName?: string;
  /** The number of rows, when known (after the whole file was read). */
  rowCount?: number;
  /** Force a kind instead of guessing (the user's choice). */
  kind?: DatasetKind;
}

/** Every key of the records, in first-seen order. */
export function columnsOf(records: readonly Rec[]): string[] {
  const seen = new Set<string>();
  for (const r of records) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}

function findColumn(
  columns: readonly string[],
  names: readonly string[] | undefined,
  taken: ReadonlySet<string> = new Set(),
): string | undefined {
  if (!names) return undefined;
  const byLower = new Map<string, string>();
  for (const c of columns) if (!taken.has(c)) byLower.set(c.trim().toLowerCase(), c);
  for (const name of names) {
    const found = byLower.get(name);
    if (found !== undefined) return found;
  }
  return undefined;
}

function has(columns: readonly string[], name: string): boolean {
  return columns.some((c) => c.toLowerCase() === name);
}

/** The kind the columns look like and whether by its canonical column names. */
function guessKind(columns: readonly string[]): { kind: DatasetKind; canonical: boolean } | null {
  if (has(columns, 'text') && has(columns, 'decoded')) return { kind: 'summeval', canonical: true };
  if (has(columns, 'pred') && has(columns, 'answers'))
    return { kind: 'prediction', canonical: true };
  if (has(columns, 'instruction') && has(columns, 'output'))
    return { kind: 'sft', canonical: true };
  const prediction = findColumn(columns, COLUMN_ALIASES.prediction);
  const answers = findColumn(columns, COLUMN_ALIASES.answers);
  const source = findColumn(columns, COLUMN_ALIASES.source);
  if (prediction && answers && !source) return { kind: 'prediction', canonical: false };
  if (source) {
    const summary = findColumn(columns, COLUMN_ALIASES.summary, new Set([source]));
    if (summary) {
      const canonical = source.toLowerCase() === 'source' && summary.toLowerCase() === 'summary';
      return { kind: 'case', canonical };
    }
  }
  // A LongBench/TinyEval data file: answers and the prompt's fields, the prediction still to come.
  if (answers && !prediction && PROMPT_FIELDS.some((f) => has(columns, f))) {
    return { kind: 'prediction', canonical: has(columns, 'answers') };
  }
  return null;
}

/** Columns a prediction file's prompt template may name (`{context}`, `{input}`). */
const PROMPT_FIELDS = ['context', 'input'] as const;

/**
 * Whether rows of this mapping can do without a prediction column: they carry what a prompt
 * template needs (prediction: template fields; sft: the instruction or input), so the missing
 * predictions can be generated.
 */
export function canGeneratePredictions(mapping: ColumnMapping): boolean {
  if (mapping.kind === 'prediction') return Object.keys(mapping.fields ?? {}).length > 0;
  if (mapping.kind === 'sft')
    return mapping.instruction !== undefined || mapping.input !== undefined;
  return false;
}

/** The fields this mapping cannot do without (`prediction` not, when it can be generated). */
export function requiredFieldsOf(mapping: ColumnMapping): MappingTextField[] {
  const required = REQUIRED_FIELDS[mapping.kind];
  if (mapping.prediction === undefined && canGeneratePredictions(mapping)) {
    return required.filter((f) => f !== 'prediction');
  }
  return required;
}

function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string' && value.trim() !== '') return Number.isFinite(Number(value));
  return false;
}

/** A list of objects whose values are all numbers (an annotation list). */
function isRatingList(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (v) =>
        v !== null &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        Object.values(v as Rec).length > 0 &&
        Object.values(v as Rec).every((x) => typeof x === 'number'),
    )
  );
}

/** Human-rating columns among those not mapped: numeric columns and annotation lists. */
export function proposeHumanColumns(
  records: readonly Rec[],
  columns: readonly string[],
  mapped: ReadonlySet<string>,
): HumanColumn[] {
  const out: HumanColumn[] = [];
  for (const column of columns) {
    if (mapped.has(column) || NOT_RATINGS.test(column.trim())) continue;
    const values = records
      .map((r) => r[column])
      .filter((v) => v !== undefined && v !== null && v !== '');
    if (values.length === 0) continue;
    if (values.every(isRatingList)) {
      out.push({ column, name: column.replace(/_annotations?$/u, '') });
    } else if (values.filter(isNumeric).length >= 0.8 * values.length) {
      out.push({ column, name: column });
    }
  }
  return out;
}

/** The mapping a kind implies for these columns (no human columns; see proposeMapping). */
function textMapping(kind: DatasetKind, columns: readonly string[]): ColumnMapping {
  const taken = new Set<string>();
  const pick = (field: MappingTextField, names?: readonly string[]) => {
    const c = findColumn(columns, names ?? COLUMN_ALIASES[field], taken);
    if (c !== undefined) taken.add(c);
    return c;
  };
  const m: ColumnMapping = { kind, human: [] };
  const set = (field: MappingTextField, names?: readonly string[]) => {
    const c = pick(field, names);
    if (c !== undefined) m[field] = c;
  };
  switch (kind) {
    case 'summeval':
      set('source', ['text']);
      set('summary', ['decoded']);
      set('reference', ['references', 'reference']);
      set('group', ['id']);
      set('system', ['model_id']);
      break;
    case 'prediction':
      set('prediction');
      set('answers');
      set('allClasses');
      set('length');
      set('id');
      break;
    case 'sft': {
      set('instruction', ['instruction']);
      set('input', ['input']);
      set('output', ['output']);
      const p = findPredictionColumn(columns.filter((c) => !taken.has(c)));
      if (p !== undefined) {
        m.prediction = p;
        taken.add(p);
      }
      set('id');
      break;
    }
    case 'case':
      set('source');
      set('summary');
      set('reference');
      set('instructions');
      set('group');
      set('system');
      set('id');
      break;
  }
  return m;
}

/** Columns the mapping reads (text fields and template fields). */
export function mappedColumns(mapping: ColumnMapping): Set<string> {
  const out = new Set<string>();
  for (const [key, value] of Object.entries(mapping)) {
    if (key === 'kind' || key === 'human' || key === 'fields') continue;
    if (typeof value === 'string') out.add(value);
  }
  for (const c of Object.values(mapping.fields ?? {})) out.add(c);
  return out;
}

/** A full proposal: the kind's text columns, template fields, then the rating columns. */
export function proposeMapping(
  kind: DatasetKind,
  records: readonly Rec[],
  columns: readonly string[] = columnsOf(records),
): ColumnMapping {
  const m = textMapping(kind, columns);
  // LongBench writes `all_classes: null` for tasks without labels: map it only when it holds some.
  if (m.allClasses !== undefined) {
    const col = m.allClasses;
    if (!records.some((r) => parseAnswers(r[col]).length > 0)) {
      delete m.allClasses;
    }
  }
  if (kind === 'prediction') {
    const fields: Record<string, string> = {};
    for (const name of PROMPT_FIELDS) {
      const c = findColumn(columns, [name]);
      if (c !== undefined) fields[name] = c;
    }
    if (Object.keys(fields).length > 0) m.fields = fields;
  }
  m.human = proposeHumanColumns(records, columns, mappedColumns(m));
  return m;
}

const FIELD_HELP: Record<MappingTextField, string> = {
  id: 'an id',
  group: 'the source document id',
  system: 'the system',
  source: 'the source text',
  summary: 'the summary',
  reference: 'the reference summary',
  instructions: 'the summary instructions',
  prediction: "the model's prediction",
  answers: 'the answers',
  allClasses: 'the class labels',
  length: 'the length',
  instruction: 'the instruction',
  input: 'the input',
  output: 'the expected output',
};

/** Why a mapping cannot build rows of its kind from these columns; empty when it can. */
export function mappingProblems(mapping: ColumnMapping, columns: readonly string[]): string[] {
  const problems: string[] = [];
  const known = new Set(columns);
  for (const field of requiredFieldsOf(mapping)) {
    const column = mapping[field];
    if (column === undefined) {
      const tried = (
        field === 'prediction' && mapping.kind === 'sft'
          ? ['pred', 'prediction', 'response', '…']
          : (COLUMN_ALIASES[field] ?? [field]).slice(0, 4)
      ).join(', ');
      problems.push(
        `No column for ${FIELD_HELP[field]} (looked for ${tried}): map one (${field}=COLUMN).`,
      );
    } else if (columns.length > 0 && !known.has(column)) {
      problems.push(`Column '${column}' (${FIELD_HELP[field]}) is not in the file.`);
    }
  }
  for (const h of mapping.human ?? []) {
    if (columns.length > 0 && !known.has(h.column)) {
      problems.push(`Rating column '${h.column}' is not in the file.`);
    }
  }
  return problems;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Rating dimensions under one annotation-list column (keys of its objects). */
function ratingKeys(records: readonly Rec[], column: string): string[] {
  const keys = new Set<string>();
  for (const r of records) {
    const v = r[column];
    if (Array.isArray(v))
      for (const o of v)
        if (o && typeof o === 'object') for (const k of Object.keys(o as Rec)) keys.add(k);
  }
  return [...keys];
}

/** "SummEval records: 600 rows, 4 expert dimensions" and the like. */
export function describeDataset(
  mapping: ColumnMapping,
  records: readonly Rec[],
  rows: { count: number; final: boolean },
  task?: string,
): string {
  const rowsText = rows.final ? plural(rows.count, 'row') : `first ${plural(rows.count, 'row')}`;
  const human = mapping.human ?? [];
  const ratingParts: string[] = [];
  const plainRatings: string[] = [];
  for (const h of human) {
    const keys = ratingKeys(records, h.column);
    if (keys.length > 0) ratingParts.push(`${plural(keys.length, `${h.name} dimension`)}`);
    else plainRatings.push(h.name);
  }
  if (plainRatings.length > 0) {
    ratingParts.push(
      `${plural(plainRatings.length, 'human rating column')} (${plainRatings.join(', ')})`,
    );
  }
  const ratings = ratingParts.length > 0 ? `, ${ratingParts.join(', ')}` : '';
  switch (mapping.kind) {
    case 'summeval':
      return `SummEval records: ${rowsText}${ratings}`;
    case 'prediction': {
      const taskText = task
        ? `, task ${task} (${TINYEVAL_TASKS[task]?.label ?? 'custom'})`
        : ', no task named yet';
      const classes = mapping.allClasses ? ', with class labels' : '';
      if (mapping.prediction === undefined) {
        return `TinyEval/LongBench data without predictions (generate them with a model first): ${rowsText}${taskText}${classes}${ratings}`;
      }
      return `TinyEval/LongBench predictions: ${rowsText}${taskText}${classes}${ratings}`;
    }
    case 'sft':
      return (
        `SFT rows {instruction, input, output}: ${rowsText}, ` +
        (mapping.prediction
          ? `predictions in column '${mapping.prediction}'`
          : 'no prediction column (generate the predictions with a model first)') +
        ratings
      );
    case 'case': {
      const cols = [mapping.source, mapping.summary, mapping.reference]
        .filter((c) => c !== undefined)
        .join(', ');
      return `Cases (${cols}): ${rowsText}${ratings}`;
    }
  }
}

/**
 * What these records are, with a confidence and a proposed mapping. `confidence` is the share of
 * sampled records that have the kind's required columns, × 0.8 when found by an alias rather than
 * the kind's own names; 0 when nothing fits (the mapping then lists what is missing).
 */
export function detectDataset(
  records: readonly object[],
  options: DetectOptions,
): DatasetDescription {
  const sample = records.slice(0, DETECT_SAMPLE) as Rec[];
  const columns = columnsOf(sample);
  const guessed = options.kind
    ? { kind: options.kind, canonical: true }
    : (guessKind(columns) ?? { kind: 'case' as const, canonical: false });
  const unrecognised = !options.kind && guessKind(columns) === null;
  const mapping = proposeMapping(guessed.kind, sample, columns);
  const problems = mappingProblems(mapping, columns);
  let confidence = 0;
  if (problems.length === 0 && sample.length > 0) {
    const required = requiredFieldsOf(mapping).map((f) => mapping[f]!);
    const complete = sample.filter((r) => required.every((c) => r[c] !== undefined)).length;
    confidence = (complete / sample.length) * (guessed.canonical ? 1 : 0.8);
  }
  if (unrecognised) confidence = 0;
  const task =
    mapping.kind === 'prediction' && options.fileName
      ? taskFromFileName(options.fileName)
      : undefined;
  return {
    format: options.format,
    kind: mapping.kind,
    confidence: Math.round(confidence * 100) / 100,
    description: unrecognised
      ? `Unrecognised records (columns ${columns.slice(0, 8).join(', ') || 'none'}): not cases, SummEval records, predictions or SFT rows`
      : describeDataset(
          mapping,
          sample,
          { count: options.rowCount ?? sample.length, final: options.rowCount !== undefined },
          task,
        ),
    columns,
    mapping,
    ...(task ? { task } : {}),
    mappingProblems: problems,
  };
}

/**
 * One change to a proposed mapping, as the CLI's `--map COLUMN=FIELD` writes it: FIELD is a
 * mapping field (`summary`), `human` or `human:NAME` (a rating column), `fields.NAME` (a prompt
 * template field) or `ignore` (the column plays no part).
 */
export interface MappingOverride {
  column: string;
  field: string;
}

const TEXT_FIELDS = new Set<string>(MAPPING_TEXT_FIELDS);

/** Parses `COLUMN=FIELD`; throws with the accepted fields when FIELD is unknown. */
export function parseMappingOverride(spec: string): MappingOverride {
  const eq = spec.lastIndexOf('=');
  const column = eq > 0 ? spec.slice(0, eq).trim() : '';
  const field = eq > 0 ? spec.slice(eq + 1).trim() : '';
  if (!column || !field) throw new Error(`--map wants COLUMN=FIELD, not '${spec}'.`);
  if (
    !TEXT_FIELDS.has(field) &&
    field !== 'ignore' &&
    !/^human(?::.+)?$/u.test(field) &&
    !/^fields\.\w+$/u.test(field)
  ) {
    throw new Error(
      `--map ${spec}: unknown field '${field}'. Fields: ${MAPPING_TEXT_FIELDS.join(', ')}, human, human:NAME, fields.NAME, ignore.`,
    );
  }
  return { column, field };
}

/** The mapping with the overrides applied in order (a column leaves any role it had). */
export function applyMappingOverrides(
  mapping: ColumnMapping,
  overrides: readonly MappingOverride[],
): ColumnMapping {
  const m: ColumnMapping = { ...mapping, human: [...(mapping.human ?? [])] };
  if (mapping.fields) m.fields = { ...mapping.fields };
  for (const { column, field } of overrides) {
    for (const key of MAPPING_TEXT_FIELDS) if (m[key] === column) delete m[key];
    m.human = (m.human ?? []).filter((h) => h.column !== column);
    if (m.fields) {
      for (const [name, c] of Object.entries(m.fields)) if (c === column) delete m.fields[name];
    }
    if (field === 'ignore') continue;
    if (field.startsWith('human')) {
      m.human.push({ column, name: field.includes(':') ? field.slice(6) : column });
    } else if (field.startsWith('fields.')) {
      m.fields = { ...m.fields, [field.slice(7)]: column };
    } else {
      m[field as MappingTextField] = column;
    }
  }
  return m;
}
