/**
 * Saying what a mapping reads in words: what stops it building rows (`mappingProblems`) and the
 * one-line description of the data set shown before and after import (`describeDataset`).
 */
import { englishRef, ref, type MessageRef } from '../../i18n/message.ts';
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

/**
 * The data set described as a message, for the page to word in the reader's language: one message per
 * kind, the rows, the task and the rating columns as nested messages (column and task names are
 * the file's own words and stay as they are).
 */
export function describeDatasetRef(
  mapping: ColumnMapping,
  records: readonly Rec[],
  rows: { count: number; final: boolean },
  task?: string,
): MessageRef {
  const rowsRef = ref(rows.final ? 'datasets.describe.rows' : 'datasets.describe.firstRows', {
    count: rows.count,
  });
  const ratingParts: MessageRef[] = [];
  const plainRatings: string[] = [];
  for (const h of mapping.human ?? []) {
    const keys = ratingKeys(records, h.column);
    if (keys.length > 0) {
      ratingParts.push(ref('datasets.describe.dimensions', { count: keys.length, name: h.name }));
    } else plainRatings.push(h.name);
  }
  if (plainRatings.length > 0) {
    ratingParts.push(
      ref('datasets.describe.ratingColumns', {
        count: plainRatings.length,
        names: plainRatings.join(', '),
      }),
    );
  }
  const described = ((): MessageRef => {
    switch (mapping.kind) {
      case 'summeval':
        return ref('datasets.describe.summeval', { rows: rowsRef });
      case 'prediction': {
        const values = {
          rows: rowsRef,
          task: task
            ? ref('datasets.describe.task', {
                task,
                label: TINYEVAL_TASKS[task]?.label ?? ref('datasets.describe.customTask'),
              })
            : ref('datasets.describe.noTask'),
          classes: mapping.allClasses ? 'yes' : 'no',
        };
        return mapping.prediction === undefined
          ? ref('datasets.describe.promptsOnly', values)
          : ref('datasets.describe.predictions', values);
      }
      case 'sft':
        return mapping.prediction
          ? ref('datasets.describe.sft', { rows: rowsRef, column: mapping.prediction })
          : ref('datasets.describe.sftNoPredictions', { rows: rowsRef });
      case 'case': {
        const cols = [mapping.source, mapping.summary, mapping.reference]
          .filter((c) => c !== undefined)
          .join(', ');
        return ref('datasets.describe.cases', { columns: cols, rows: rowsRef });
      }
    }
  })();
  // Each rating part is added with the language's own list separator.
  return ratingParts.reduce(
    (description, part) => ref('datasets.describe.withRatings', { description, ratings: part }),
    described,
  );
}

/** `{ description, descriptionRef }` of a DatasetDescription: the English text and the message. */
export function described(message: MessageRef): {
  description: string;
  descriptionRef: MessageRef;
} {
  return { description: englishRef(message), descriptionRef: message };
}

/** The description of records that are none of the known kinds. */
export function unrecognisedRef(columns: readonly string[]): MessageRef {
  const shown = columns.slice(0, 8).join(', ');
  return shown === ''
    ? ref('datasets.describe.unrecognisedNoColumns')
    : ref('datasets.describe.unrecognised', { columns: shown });
}
