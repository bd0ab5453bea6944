/**
 * SFT rows (`{instruction, input, output}`, the Alpaca / TinyEval custom_zh shape) plus a column
 * holding a model's prediction: scored like TinyEval predictions, with `output` as the one answer.
 */

/** Column names taken for the model's prediction in an SFT file, most likely first. */
export const SFT_PREDICTION_COLUMNS = [
  'pred',
  'prediction',
  'predict',
  'response',
  'model_output',
  'generated',
  'generation',
  'answer',
] as const;

/** The first of `SFT_PREDICTION_COLUMNS` present in `columns` (case-insensitive), if any. */
export function findPredictionColumn(columns: readonly string[]): string | undefined {
  const byLower = new Map(columns.map((c) => [c.toLowerCase(), c]));
  for (const name of SFT_PREDICTION_COLUMNS) {
    const found = byLower.get(name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The prompt an SFT row stands for, as TinyEval's `custom_zh`/`custom_en` build it when there is
 * no template: the instruction, then the input on its own line when there is one.
 */
export function sftPrompt(instruction: string, input: string | undefined): string {
  const parts = [instruction.trim(), (input ?? '').trim()].filter((p) => p !== '');
  return parts.join('\n');
}
