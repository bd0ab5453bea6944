/**
 * The editor's vocabulary: the kinds and fields in words, the fields each kind offers, and the
 * tasks that score prediction and SFT rows.
 */
import type { ColumnMapping, DatasetKind, MappingTextField } from '../../rows/formats.ts';
import { CUSTOM_REFERENCE_METRICS, TINYEVAL_METRIC_LABELS, TINYEVAL_TASKS } from '../tinyeval.ts';

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
