/**
 * The editor's vocabulary: the kinds and fields in words, the fields each kind offers, and the
 * tasks that score prediction and SFT rows.
 */
import type { ColumnMapping, DatasetKind, MappingTextField } from '../../rows/formats.ts';
import { english, type MessageKey } from '../../i18n/message.ts';
import { CUSTOM_REFERENCE_METRICS, TINYEVAL_METRIC_LABELS, TINYEVAL_TASKS } from '../tinyeval.ts';

/** What the user settles on: the mapping, and the task that scores prediction and SFT rows. */
export interface MappingChoice {
  mapping: ColumnMapping;
  task?: string;
}

/** The kinds' names as messages, for the page to word in the reader's language. */
export const KIND_LABEL_KEYS: Record<DatasetKind, MessageKey> = {
  case: 'datasets.kind.case',
  summeval: 'datasets.kind.summeval',
  prediction: 'datasets.kind.prediction',
  sft: 'datasets.kind.sft',
};

export const FIELD_LABEL_KEYS: Record<MappingTextField, MessageKey> = {
  source: 'datasets.field.source',
  summary: 'datasets.field.summary',
  reference: 'datasets.field.reference',
  instructions: 'datasets.field.instructions',
  prediction: 'datasets.field.prediction',
  answers: 'datasets.field.answers',
  allClasses: 'datasets.field.allClasses',
  length: 'datasets.field.length',
  instruction: 'datasets.field.instruction',
  input: 'datasets.field.input',
  output: 'datasets.field.output',
  id: 'datasets.field.id',
  group: 'datasets.field.group',
  system: 'datasets.field.system',
};

export const FIELD_LABELS = Object.fromEntries(
  Object.entries(FIELD_LABEL_KEYS).map(([field, key]) => [field, english(key)]),
) as Record<MappingTextField, string>;

/** The fields the editor offers per kind, required ones first. */
export const KIND_FIELDS: Record<DatasetKind, readonly MappingTextField[]> = {
  case: ['source', 'summary', 'reference', 'instructions', 'id', 'group', 'system'],
  summeval: ['source', 'summary', 'reference', 'instructions', 'id', 'group', 'system'],
  prediction: ['prediction', 'answers', 'allClasses', 'length', 'id', 'group', 'system'],
  sft: ['instruction', 'input', 'output', 'prediction', 'id', 'group', 'system'],
};

/** Fields whose column must hold text, not numbers. */
export const TEXT_FIELDS: ReadonlySet<MappingTextField> = new Set([
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
