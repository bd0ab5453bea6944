/**
 * What generating the rows will take before any call is made: how many rows, how many prompts
 * lose their middle, estimated tokens and cost, and the rows whose prompt cannot be built.
 */
import { messageOf } from '../../errors.ts';
import { estimateCost, type PriceTable } from '../../llm/prices.ts';
import type { ProviderKind } from '../../llm/types.ts';
import { needsPrediction, type DatasetRow } from '../../rows/formats.ts';
import { buildPrompt, type GenerationSettings } from './prompt.ts';

/** Chat framing the provider adds around a message (role markers), in estimated tokens. */
const MESSAGE_OVERHEAD_TOKENS = 4;

export interface GenerationPlan {
  /** Rows that need a prediction. */
  rows: number;
  /** Of those, rows whose prompt the template can build. */
  ready: number;
  /** Rows whose prompt will lose its middle. */
  cut: number;
  /** Input: the prompts as sent; output: `maxNewTokens` per row, an upper bound. */
  estimatedTokens: { input: number; output: number };
  /** USD; undefined when the price table has no price for the model (never 0 for unknown). */
  estimatedCost: number | undefined;
  /** Rows whose prompt cannot be built, with the reason (the first few). */
  problems: Array<{ row: number; reason: string }>;
  problemCount: number;
  notes: string[];
}

export interface Pricing {
  provider: ProviderKind;
  model: string;
  prices?: PriceTable;
}

const PLAN_PROBLEM_EXAMPLES = 5;

/** What generating these rows will take, before any call: rows, estimated tokens and cost. */
export async function planGeneration(
  rows: AsyncIterable<DatasetRow> | Iterable<DatasetRow>,
  settings: GenerationSettings,
  pricing: Pricing,
): Promise<GenerationPlan> {
  let count = 0;
  let ready = 0;
  let cut = 0;
  let input = 0;
  let problemCount = 0;
  const problems: GenerationPlan['problems'] = [];
  for await (const row of rows) {
    if (!needsPrediction(row)) continue;
    count++;
    try {
      const prompt = buildPrompt(row, settings.template, settings.promptTokens);
      ready++;
      if (prompt.cut) cut++;
      input += prompt.tokens + MESSAGE_OVERHEAD_TOKENS;
    } catch (error) {
      problemCount++;
      if (problems.length < PLAN_PROBLEM_EXAMPLES) {
        problems.push({ row: row.row, reason: messageOf(error) });
      }
    }
  }
  const output = ready * settings.maxNewTokens;
  const estimatedCost = estimateCost(
    { input, output },
    pricing.provider,
    pricing.model,
    pricing.prices,
  );
  const notes = [
    'Token counts are estimated without the model’s tokenizer (about 4 characters per token in English, 1 per CJK character); the provider’s count will differ.',
    `Output is counted at its most (${settings.maxNewTokens} new tokens per row); answers that stop earlier cost less, and answers already in the cache cost nothing.`,
  ];
  if (cut > 0) {
    notes.push(
      `${cut} prompt${cut === 1 ? ' is' : 's are'} longer than the prompt length (${settings.promptTokens} tokens) and will lose ${cut === 1 ? 'its' : 'their'} middle, as TinyEval does.`,
    );
  }
  if (estimatedCost === undefined) {
    notes.push(
      `No price for ${pricing.provider}/${pricing.model} in the price table: the cost is unknown.`,
    );
  }
  return {
    rows: count,
    ready,
    cut,
    estimatedTokens: { input, output },
    estimatedCost,
    problems,
    problemCount,
    notes,
  };
}
