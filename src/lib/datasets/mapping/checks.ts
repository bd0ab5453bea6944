/**
 * What stops a choice importing, checked against the sample so that "this column is empty" is said
 * before the whole file is read, and whether a file is shown to the user before import.
 */
import { messageOf } from '../../errors.ts';
import { englishRef, ref, type MessageRef } from '../../i18n/message.ts';
import { describeDatasetRef } from '../detect/describe.ts';
import { requiredFieldsOf } from '../detect/propose.ts';
import type { DatasetDescription, MappingTextField } from '../../rows/formats.ts';
import { resolveTask } from '../tinyeval.ts';
import { copyMapping } from './edit.ts';
import { KIND_FIELDS, taskNeeded, TEXT_FIELDS, type MappingChoice } from './fields.ts';
import type { DatasetSample } from './sample.ts';

/**
 * Below this detection confidence the file is shown to the user before it is imported: a file
 * found only through alias column names (×0.8, e.g. `article`/`highlights`) or with required
 * columns missing from some sampled records.
 */
export const CONFIDENT_DETECTION = 0.9;

/** A field as a sentence names it ("the source text"), in the reader's language. */
function fieldName(field: MappingTextField): MessageRef {
  return ref('datasets.mapping.problem.fieldName', { field });
}

/** "a, b and c" of refs: the list message nests, so each language joins it its own way. */
function fieldList(fields: readonly MappingTextField[]): { fields: MessageRef; last: MessageRef } {
  const names = fields.map(fieldName);
  const last = names.pop()!;
  const head = names.reduce((list, next) =>
    ref('datasets.mapping.problem.list', { head: list, next }),
  );
  return { fields: head, last };
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
  return choiceProblemRefs(choice, columns, sample).map(englishRef);
}

/** `choiceProblems` as messages, for the page to word in the reader's language. */
export function choiceProblemRefs(
  choice: MappingChoice,
  columns: readonly string[],
  sample: DatasetSample,
): MessageRef[] {
  const { mapping } = choice;
  const problems: MessageRef[] = [];
  const known = new Set(columns);
  const count = sample.records;
  const fields = KIND_FIELDS[mapping.kind];
  const required = new Set<MappingTextField>(requiredFieldsOf(mapping));
  const P = 'datasets.mapping.problem';

  for (const field of fields) {
    const column = mapping[field];
    const named = fieldName(field);
    if (column === undefined) {
      if (required.has(field)) {
        problems.push(
          ref(
            field === 'prediction' && mapping.kind === 'prediction'
              ? `${P}.chooseColumnOrPrompt`
              : `${P}.chooseColumn`,
            { field: named },
          ),
        );
      }
      continue;
    }
    if (!known.has(column)) {
      problems.push(ref(`${P}.notInFile`, { column, field: named }));
      continue;
    }
    const profile = sample.profiles[column];
    if (!profile || !required.has(field)) continue;
    if (profile.filled === 0) {
      problems.push(ref(`${P}.empty`, { column, field: named, count }));
    } else if (TEXT_FIELDS.has(field) && profile.numeric === profile.filled) {
      problems.push(ref(`${P}.onlyNumbers`, { column, field: named }));
    }
  }

  const byColumn = new Map<string, MappingTextField[]>();
  for (const field of fields) {
    const column = mapping[field];
    if (column !== undefined) byColumn.set(column, [...(byColumn.get(column) ?? []), field]);
  }
  for (const [column, shared] of byColumn) {
    if (shared.length < 2) continue;
    problems.push(ref(`${P}.readAsBoth`, { column, ...fieldList(shared) }));
  }

  const names = new Set<string>();
  for (const h of mapping.human ?? []) {
    const column = h.column;
    if (!known.has(column)) {
      problems.push(ref(`${P}.ratingNotInFile`, { column }));
      continue;
    }
    const name = h.name.trim();
    if (name === '') problems.push(ref(`${P}.ratingNeedsName`, { column }));
    else if (names.has(name)) problems.push(ref(`${P}.ratingDuplicate`, { name }));
    names.add(name);
    const profile = sample.profiles[column];
    if (!profile) continue;
    if (profile.filled === 0) {
      problems.push(ref(`${P}.ratingEmpty`, { column, count }));
    } else if (profile.numeric === 0 && profile.structured === 0) {
      problems.push(ref(`${P}.ratingNoNumbers`, { column }));
    }
  }

  if (taskNeeded(mapping.kind)) {
    if (!choice.task) {
      problems.push(ref(`${P}.chooseTask`, { what: mapping.kind }));
    } else {
      try {
        resolveTask(choice.task);
      } catch (error) {
        // The task registry's own words (it names the task and the ones it knows).
        problems.push(ref('common.literal', { text: messageOf(error) }));
      }
    }
  }
  return problems;
}

/** Why detection is not sure of the file, in words; undefined when it is. */
export function detectionDoubt(detected: DatasetDescription): string | undefined {
  const doubt = detectionDoubtRef(detected);
  return doubt && englishRef(doubt);
}

/** `detectionDoubt` as a message, for the page to word in the reader's language. */
export function detectionDoubtRef(detected: DatasetDescription): MessageRef | undefined {
  if (detected.confidence >= CONFIDENT_DETECTION) return undefined;
  return detected.confidence === 0
    ? ref('datasets.mapping.doubtUnknownKind')
    : ref('datasets.mapping.doubtConfidence', { confidence: detected.confidence });
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
  return englishRef(describeChoiceRef(choice, sample));
}

/** `describeChoice` as a message, for the page to word in the reader's language. */
export function describeChoiceRef(choice: MappingChoice, sample: DatasetSample): MessageRef {
  return describeDatasetRef(
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
