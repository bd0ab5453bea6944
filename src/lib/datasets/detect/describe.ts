/**
 * Saying what a mapping reads in words: what stops it building rows (`mappingProblems`) and the
 * one-line description of the data set shown before and after import (`describeDataset`).
 */
import type { ColumnMapping, MappingTextField } from '../../rows/formats.ts';
import { TINYEVAL_TASKS } from '../tinyeval.ts';
import { COLUMN_ALIASES, requiredFieldsOf } from './propose.ts';

type Rec = Record<string, unknown>;

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

export function plural(n: number, word: string): string {
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
