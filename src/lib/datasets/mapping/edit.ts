/**
 * Changing a mapping as the editor does (a field's column, a rating column, the kind) and the
 * prompt-template fields of prediction rows; each helper returns a new mapping.
 */
import type { ColumnMapping, DatasetKind, MappingTextField } from '../../rows/formats.ts';
import { englishRef, ref, type MessageRef } from '../../i18n/message.ts';
import { KIND_FIELDS } from './fields.ts';
import type { DatasetSample } from './sample.ts';

export function copyMapping(mapping: ColumnMapping): ColumnMapping {
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
  return promptFieldProblemRefs(fields, columns, sample).map(englishRef);
}

/** `promptFieldProblems` as messages, for the page to word in the reader's language. */
export function promptFieldProblemRefs(
  fields: readonly PromptField[],
  columns: readonly string[],
  sample: DatasetSample,
): MessageRef[] {
  const P = 'datasets.mapping.problem';
  const problems: MessageRef[] = [];
  const known = new Set(columns);
  const named = new Map<string, string[]>();
  for (const { column, name } of fields) {
    if (!known.has(column)) {
      problems.push(ref(`${P}.promptNotInFile`, { column }));
      continue;
    }
    const trimmed = name.trim();
    if (trimmed === '') {
      problems.push(ref(`${P}.promptNeedsName`, { column }));
    } else if (!PLACEHOLDER_NAME.test(trimmed)) {
      problems.push(ref(`${P}.promptBadName`, { name: trimmed, column }));
    } else {
      named.set(trimmed, [...(named.get(trimmed) ?? []), column]);
    }
    if (sample.profiles[column]?.filled === 0) {
      problems.push(ref(`${P}.promptEmpty`, { column, count: sample.records }));
    }
  }
  for (const [name, shared] of named) {
    if (shared.length < 2) continue;
    problems.push(ref(`${P}.promptDuplicate`, { columns: columnList(shared), name }));
  }
  return problems;
}

/** "'a' and 'b'", "'a', 'b' and 'c'": quoted column names, joined in the reader's language. */
function columnList(columns: readonly string[]): MessageRef {
  const [a, b, ...rest] = columns;
  if (rest.length === 0) return ref('datasets.mapping.problem.columnsAnd', { a: a!, b: b! });
  return ref('datasets.mapping.problem.columnsList', { a: a!, rest: columnList([b!, ...rest]) });
}
