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
 *
 * The proposal lives in propose.ts, the words and problems in describe.ts, the CLI's `--map`
 * overrides in overrides.ts; this module joins them into `detectDataset`.
 */
import type { DatasetDescription, DatasetKind, FileFormat } from '../../rows/formats.ts';
import { taskFromFileName } from '../tinyeval.ts';
import { described, describeDatasetRef, mappingProblems, unrecognisedRef } from './describe.ts';
import { columnsOf, guessKind, proposeMapping, requiredFieldsOf } from './propose.ts';

type Rec = Record<string, unknown>;

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
  const descriptionRef = unrecognised
    ? unrecognisedRef(columns)
    : describeDatasetRef(
        mapping,
        sample,
        { count: options.rowCount ?? sample.length, final: options.rowCount !== undefined },
        task,
      );
  return {
    format: options.format,
    kind: mapping.kind,
    confidence: Math.round(confidence * 100) / 100,
    ...described(descriptionRef),
    columns,
    mapping,
    ...(task ? { task } : {}),
    mappingProblems: problems,
  };
}
