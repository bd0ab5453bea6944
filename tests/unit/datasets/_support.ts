/**
 * Test data built from the shared files: a CSV of SummEval rows (quotes, commas, newlines), an SFT
 * sample with predictions, and helpers to feed the parser in chunks.
 */
import Papa from 'papaparse';
import { readJsonl } from '../../helpers/shared.ts';
import { parseDatasetText } from '../../../src/lib/datasets/parse/dataset.ts';
import type { DatasetParserOptions } from '../../../src/lib/datasets/parse/types.ts';

export interface SummEvalRecord {
  id: string;
  model_id: string;
  text: string;
  decoded: string;
  references: string[];
  expert_annotations: Record<string, number>[];
  turker_annotations: Record<string, number>[];
}

export const summeval = readJsonl<SummEvalRecord>('data/summeval/dev.jsonl');

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The expert mean of one dimension of a record. */
export function expertMean(r: SummEvalRecord, dim: string): number {
  return mean(r.expert_annotations.map((a) => a[dim]!));
}

/**
 * `n` SummEval rows as a CSV of cases: the source (with a quoted line break and "quotes" added),
 * the summary, the first reference, and two numeric rating columns.
 */
export function summevalCsv(n: number, newline = '\n'): string {
  const rows = summeval.slice(0, n).map((r, i) => ({
    doc_id: r.id,
    source: i === 0 ? `"Quoted," she said.\nSecond line, after a break.\n${r.text}` : r.text,
    summary: r.decoded,
    reference: r.references[0],
    coherence: expertMean(r, 'coherence'),
    relevance: expertMean(r, 'relevance'),
  }));
  return Papa.unparse(rows, { newline });
}

/** An SFT file written by hand: instruction/input/output plus a prediction column. */
export const SFT_SAMPLE = [
  {
    instruction: 'Translate to French.',
    input: 'Good morning',
    output: 'Bonjour',
    pred: 'Bonjour',
  },
  {
    instruction: 'Summarise the text in one sentence.',
    input: 'The council approved a park. It opens in 2027.',
    output: 'The council approved a park that opens in 2027.',
    pred: 'A park was approved and opens in 2027.',
  },
  { instruction: 'Name the capital of Italy.', input: '', output: 'Rome', pred: 'Milan' },
]
  .map((r) => JSON.stringify(r))
  .join('\n');

/** Parse `text` pushed in chunks of `size` (characters, or bytes for a Uint8Array). */
export function parseInChunks(
  text: string | Uint8Array,
  size: number,
  options: DatasetParserOptions = {},
) {
  return parseDatasetText(text, options, size);
}
