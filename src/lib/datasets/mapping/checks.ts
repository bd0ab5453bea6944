/**
 * What stops a choice importing, checked against the sample so that "this column is empty" is said
 * before the whole file is read, and whether a file is shown to the user before import.
 */
import { messageOf } from '../../errors.ts';
import { englishRef, ref, type MessageRef } from '../../i18n/message.ts';
import { describeDatasetRef, requiredFieldsOf } from '../detect.ts';
import { plural } from '../detect/describe.ts';
import type { DatasetDescription, MappingTextField } from '../../rows/formats.ts';
import { resolveTask } from '../tinyeval.ts';
import { copyMapping } from './edit.ts';
import {
  FIELD_LABELS,
  KIND_FIELDS,
  taskNeeded,
  TEXT_FIELDS,
  type MappingChoice,
} from './fields.ts';
import type { DatasetSample } from './sample.ts';

/**
 * Below this detection confidence the file is shown to the user before it is imported: a file
 * found only through alias column names (×0.8, e.g. `article`/`highlights`) or with required
 * columns missing from some sampled records.
 */
export const CONFIDENT_DETECTION = 0.9;

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
