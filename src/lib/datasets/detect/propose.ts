/**
 * Proposing a mapping: which kind of records the columns look like, and which column plays each
 * field (by the usual names), which are ratings, which feed a prompt template.
 */
import type {
  ColumnMapping,
  DatasetKind,
  HumanColumn,
  MappingTextField,
} from '../../rows/formats.ts';
import { REQUIRED_FIELDS } from '../../rows/formats.ts';
import { parseAnswers } from '../../metrics/lexical/answers.ts';
import { findPredictionColumn } from '../sft.ts';

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
export function guessKind(
  columns: readonly string[],
): { kind: DatasetKind; canonical: boolean } | null {
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
