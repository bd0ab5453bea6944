/**
 * Building rows: one record and a column mapping → a `DatasetRow`, or the reason the record cannot
 * be one. Shared by the streaming parser, the mapping preview (mapping/preview.ts) and tests.
 */
import { parseAnswers } from '../../metrics/lexical/answers.ts';
import type { CaseInput } from '../../metrics/types.ts';
import { parseInstructions } from '../../input/instructions.ts';
import {
  hashText,
  MAPPING_TEXT_FIELDS,
  type ColumnMapping,
  type DatasetRow,
  type PredictionInput,
  type RowProblem,
} from '../../rows/formats.ts';
import { describeValue, type Rec } from './items.ts';
import {
  english,
  ref,
  type MessageKey,
  type MessageRef,
  type MessageValues,
} from '../../i18n/message.ts';

const RAW_MAX_KEYS = 20;
const RAW_MAX_CHARS = 200;

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** A cell as the report quotes it: a text in quotes (its start, when long), else its type. */
function cellText(value: unknown): string {
  if (typeof value !== 'string') return describeValue(value);
  const text = value.trim();
  return `'${text.length > 40 ? `${text.slice(0, 40)}…` : text}'`;
}

/**
 * A rating column's values: a number, or the mean per key of a list of rating objects. Answers
 * why a cell that holds something gave no rating ("'high' is not a number"), for the report; an
 * empty cell is no rating and no problem.
 */
function addRatings(
  human: Record<string, number>,
  name: string,
  value: unknown,
): MessageRef | undefined {
  let v = value;
  if (typeof v === 'string' && v.trim().startsWith('[')) {
    try {
      v = JSON.parse(v);
    } catch {
      return ref('datasets.problem.notRatingList', { cell: cellText(value) });
    }
  }
  if (Array.isArray(v)) {
    const sums = new Map<string, { total: number; n: number }>();
    for (const item of v) {
      if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
      for (const [k, x] of Object.entries(item as Rec)) {
        const n = numberOf(x);
        if (n === undefined) continue;
        const s = sums.get(k) ?? { total: 0, n: 0 };
        s.total += n;
        s.n++;
        sums.set(k, s);
      }
    }
    for (const [k, s] of sums) human[`${name}_${k}`] = s.total / s.n;
    return undefined;
  }
  const n = numberOf(v);
  if (n !== undefined) human[name] = n;
  else if (!(v === undefined || v === null || (typeof v === 'string' && v.trim() === ''))) {
    return ref('datasets.problem.notNumber', { cell: cellText(v) });
  }
  return undefined;
}

/** A string, or a list of strings (a JSON/Python list in a CSV cell), as a list. */
function listOf(value: unknown): string[] {
  return parseAnswers(value).filter((s) => typeof s === 'string');
}

/**
 * What every built row holds after its kind and input: no ratings yet (toRow adds them) and, when
 * there is a text the row is about, a group named by that text's hash, so that rows on one source
 * are calibrated together unless the file maps a group column.
 */
function newRowFields(text: string | undefined): Pick<DatasetRow, 'human' | 'group'> {
  return {
    human: {},
    ...(text !== undefined && text !== '' ? { group: 'src:' + hashText(text) } : {}),
  };
}

interface Built {
  row?: DatasetRow;
  problem?: string;
  problemRef?: MessageRef;
  column?: string;
}

/** A row's problem in English with its message, for the page to word in the reader's language. */
function problemOf(key: MessageKey, values: MessageValues, column?: string): Built {
  return {
    problem: english(key, values),
    problemRef: ref(key, values),
    ...(column !== undefined ? { column } : {}),
  };
}

function buildCase(record: Rec, m: ColumnMapping, kind: 'case' | 'summeval'): Built {
  const source = m.source ? textOf(record[m.source]) : undefined;
  if (!source || source.trim() === '') {
    return problemOf('datasets.problem.noSource', { column: String(m.source) }, m.source);
  }
  const summary = m.summary ? textOf(record[m.summary]) : undefined;
  if (!summary || summary.trim() === '') {
    return problemOf('datasets.problem.noSummary', { column: String(m.summary) }, m.summary);
  }
  const input: CaseInput = { source, summary };
  let references: string[] | undefined;
  if (m.reference) {
    const value = record[m.reference];
    const list = Array.isArray(value) ? listOf(value) : undefined;
    const refs = (list ?? [textOf(value) ?? '']).filter((r) => r.trim() !== '');
    if (refs.length > 0) input.reference = refs[0];
    if (refs.length > 1) references = refs;
  }
  if (m.instructions) {
    const value = record[m.instructions];
    const text =
      typeof value === 'string'
        ? value
        : value === undefined || value === null
          ? ''
          : JSON.stringify(value);
    if (text.trim() !== '') {
      const parsed = parseInstructions(text);
      if (parsed.problems.length > 0) {
        return { problem: parsed.problems[0]!, column: m.instructions };
      }
      input.instructions = parsed.sections;
    }
  }
  return {
    row: { row: 0, kind, input, ...newRowFields(source), ...(references ? { references } : {}) },
  };
}

/**
 * A prediction or SFT row. A row without a prediction (no prediction column, or an empty cell:
 * undefined or null) still loads when it has a non-empty template field, marked `needsPrediction`
 * for the generate step; a prediction of another type (an object, a list) is a bad row.
 */
function buildPrediction(record: Rec, m: ColumnMapping, kind: 'prediction' | 'sft'): Built {
  const predictionValue = m.prediction ? record[m.prediction] : undefined;
  const prediction = textOf(predictionValue);
  const absent = predictionValue === undefined || predictionValue === null;
  if (prediction === undefined && !absent) {
    return problemOf(
      'datasets.problem.badPrediction',
      { column: String(m.prediction), value: describeValue(predictionValue) },
      m.prediction,
    );
  }
  let answers: string[];
  const fields: Record<string, string> = {};
  if (kind === 'sft') {
    const output = m.output ? textOf(record[m.output]) : undefined;
    if (output === undefined || output.trim() === '') {
      return problemOf('datasets.problem.noOutput', { column: String(m.output) }, m.output);
    }
    answers = [output];
    const instruction = m.instruction ? textOf(record[m.instruction]) : undefined;
    const input = m.input ? textOf(record[m.input]) : undefined;
    if (instruction !== undefined) fields.instruction = instruction;
    if (input !== undefined) fields.input = input;
  } else {
    answers = m.answers ? listOf(record[m.answers]) : [];
    if (answers.length === 0) {
      return problemOf('datasets.problem.noAnswers', { column: String(m.answers) }, m.answers);
    }
  }
  for (const [name, column] of Object.entries(m.fields ?? {})) {
    const value = textOf(record[column]);
    if (value !== undefined) fields[name] = value;
  }
  if (prediction === undefined && !Object.values(fields).some((v) => v.trim() !== '')) {
    return m.prediction
      ? problemOf('datasets.problem.noPredictionNoInput', { column: m.prediction }, m.prediction)
      : problemOf('datasets.problem.noInput', {});
  }
  const input: PredictionInput = { prediction: prediction ?? '', answers };
  if (prediction === undefined) input.needsPrediction = true;
  if (m.allClasses) {
    const classes = listOf(record[m.allClasses]);
    if (classes.length > 0) input.allClasses = classes;
  }
  if (m.length) {
    const length = numberOf(record[m.length]);
    if (length !== undefined) input.length = length;
  }
  if (Object.keys(fields).length > 0) input.fields = fields;
  return { row: { row: 0, kind, input, ...newRowFields(fields.context ?? fields.input) } };
}

/**
 * One record → one row with the mapping, or the reason it cannot be one (without the "row N: "
 * prefix; `toRows` and the parser add it).
 */
export function toRow(
  record: Rec,
  row: number,
  mapping: ColumnMapping,
): { row: DatasetRow; cells?: RowProblem[] } | RowProblem {
  const m = mapping;
  const built =
    m.kind === 'case' || m.kind === 'summeval'
      ? buildCase(record, m, m.kind)
      : buildPrediction(record, m, m.kind);
  if (!built.row) {
    return {
      row,
      reason: built.problem ?? 'unreadable',
      ...(built.problemRef ? { reasonRef: built.problemRef } : {}),
      ...(built.column ? { column: built.column } : {}),
    };
  }
  const out = built.row;
  out.row = row;
  const cells: RowProblem[] = [];
  for (const h of m.human ?? []) {
    const problem = addRatings(out.human, h.name, record[h.column]);
    if (problem) {
      const values = { column: h.column, problem };
      cells.push({
        row,
        reason: english('datasets.problem.rating', values),
        reasonRef: ref('datasets.problem.rating', values),
        column: h.column,
        kept: true,
      });
    }
  }
  const group = m.group ? textOf(record[m.group]) : undefined;
  if (group !== undefined && group !== '') out.group = group;
  const system = m.system ? textOf(record[m.system]) : undefined;
  if (system !== undefined && system !== '') out.system = system;
  const id = m.id ? textOf(record[m.id]) : undefined;
  if (id !== undefined && id !== '') out.id = id;
  else if (m.kind === 'summeval' && group && system) out.id = `${group}/${system}`;
  const mapped = new Set<string>();
  for (const key of MAPPING_TEXT_FIELDS) {
    const c = m[key];
    if (c !== undefined) mapped.add(c);
  }
  for (const h of m.human ?? []) mapped.add(h.column);
  for (const c of Object.values(m.fields ?? {})) mapped.add(c);
  const raw: NonNullable<DatasetRow['raw']> = {};
  let kept = 0;
  for (const [k, v] of Object.entries(record)) {
    if (mapped.has(k) || kept >= RAW_MAX_KEYS) continue;
    if (typeof v === 'string')
      raw[k] = v.length > RAW_MAX_CHARS ? v.slice(0, RAW_MAX_CHARS) + '…' : v;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null) raw[k] = v;
    else continue;
    kept++;
  }
  if (kept > 0) out.raw = raw;
  return { row: out, ...(cells.length > 0 ? { cells } : {}) };
}

/** A problem of row N as the report lists it: "row 9: no summary text in column 'decoded'". */
export function numbered(problem: RowProblem): RowProblem {
  const values = { row: problem.row, reason: problem.reasonRef ?? problem.reason };
  return {
    ...problem,
    reason: english('datasets.problem.row', values),
    reasonRef: ref('datasets.problem.row', values),
  };
}

/** Records (numbered from `firstRow`) → rows and problems ("row 9: no summary text in column 'decoded'"). */
export function toRows(
  records: readonly Rec[],
  mapping: ColumnMapping,
  firstRow = 1,
): { rows: DatasetRow[]; problems: RowProblem[] } {
  const rows: DatasetRow[] = [];
  const problems: RowProblem[] = [];
  records.forEach((record, i) => {
    const result = toRow(record, firstRow + i, mapping);
    if ('reason' in result) problems.push(numbered(result));
    else {
      rows.push(result.row);
      for (const cell of result.cells ?? []) problems.push(numbered(cell));
    }
  });
  return { rows, problems };
}
