/**
 * A user-editable price table for judge calls (USD per 1M tokens, standard tier) and the cost
 * estimate the UI shows before and after a run. Prices change often: the table carries its as-of
 * date, the UI lets people edit it, and a model missing from it has an unknown cost (undefined),
 * never a cost of 0.
 *
 * Seed figures: shared PROVIDERS.md §14 (deepeval's model table of Aug 2026 and pricing summaries;
 * the Groq and Mistral rows are marked unverified there). Re-check against the official pages.
 */
import { z } from 'zod';
import type { ProviderKind, TokenUsage } from './types.ts';

export const priceEntrySchema = z.object({
  provider: z.enum(['openai', 'anthropic', 'gemini', 'openai-compatible']),
  /** The model id as the provider spells it; dated snapshots (`-2025-04-14`, `-20251001`) and
   * `-latest` of this id match it too. */
  model: z.string().min(1),
  inputPerMTok: z.number().min(0),
  outputPerMTok: z.number().min(0),
  /** Price of input tokens served from the provider's prompt cache, where it differs. */
  cachedInputPerMTok: z.number().min(0).optional(),
  note: z.string().optional(),
});

export const priceTableSchema = z.object({
  /** ISO date (YYYY-MM or YYYY-MM-DD) the prices were taken. */
  asOf: z.string().regex(/^\d{4}-\d{2}(-\d{2})?$/u, 'is not a date like 2026-08 or 2026-08-31'),
  currency: z.literal('USD'),
  entries: z.array(priceEntrySchema),
});

export type PriceEntry = z.infer<typeof priceEntrySchema>;
export type PriceTable = z.infer<typeof priceTableSchema>;

export const DEFAULT_PRICE_TABLE: PriceTable = {
  asOf: '2026-08',
  currency: 'USD',
  entries: [
    { provider: 'openai', model: 'gpt-4o-mini', inputPerMTok: 0.15, outputPerMTok: 0.6 },
    { provider: 'openai', model: 'gpt-4.1-mini', inputPerMTok: 0.4, outputPerMTok: 1.6 },
    { provider: 'openai', model: 'gpt-4.1-nano', inputPerMTok: 0.1, outputPerMTok: 0.4 },
    {
      provider: 'openai',
      model: 'gpt-5.4-mini',
      inputPerMTok: 0.75,
      outputPerMTok: 4.5,
      note: 'no logprobs: G-Eval samples',
    },
    { provider: 'anthropic', model: 'claude-haiku-4-5', inputPerMTok: 1, outputPerMTok: 5 },
    {
      provider: 'gemini',
      model: 'gemini-2.5-flash',
      inputPerMTok: 0.3,
      outputPerMTok: 2.5,
      note: 'thinking tokens are billed as output',
    },
    { provider: 'gemini', model: 'gemini-2.5-flash-lite', inputPerMTok: 0.1, outputPerMTok: 0.4 },
    { provider: 'gemini', model: 'gemini-3.1-flash-lite', inputPerMTok: 0.25, outputPerMTok: 1.5 },
    {
      provider: 'openai-compatible',
      model: 'deepseek-chat',
      inputPerMTok: 0.28,
      outputPerMTok: 0.42,
      cachedInputPerMTok: 0.028,
      note: 'unverified',
    },
    {
      provider: 'openai-compatible',
      model: 'llama-3.1-8b-instant',
      inputPerMTok: 0.05,
      outputPerMTok: 0.08,
      note: 'Groq; unverified',
    },
    {
      provider: 'openai-compatible',
      model: 'mistral-small',
      inputPerMTok: 0.1,
      outputPerMTok: 0.3,
      note: 'unverified',
    },
  ],
};

// What may follow a table id in a provider's model id: a dated snapshot or an alias.
const SNAPSHOT_SUFFIX = /^-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/u;

/** The table entry for this provider and model: an exact id first, else a dated snapshot of it. */
export function findPrice(
  table: PriceTable,
  provider: ProviderKind,
  model: string,
): PriceEntry | undefined {
  const id = model.trim();
  const candidates = table.entries.filter((e) => e.provider === provider);
  const exact = candidates.find((e) => e.model === id);
  if (exact) return exact;
  return candidates
    .filter((e) => id.startsWith(e.model) && SNAPSHOT_SUFFIX.test(id.slice(e.model.length)))
    .sort((a, b) => b.model.length - a.model.length)[0];
}

/** Tokens to price: `input` includes `cachedInput` where the provider reports cache hits. */
export type TokenCount = Pick<TokenUsage, 'input' | 'output' | 'cachedInput'>;

/**
 * Cost in USD of these tokens on this model, or undefined when the table has no price for it (a
 * local server, a new model): the UI then says "unknown", never "$0".
 */
export function estimateCost(
  tokens: TokenCount,
  provider: ProviderKind,
  model: string,
  table: PriceTable = DEFAULT_PRICE_TABLE,
): number | undefined {
  const price = findPrice(table, provider, model);
  if (!price) return undefined;
  const cached = Math.min(tokens.cachedInput ?? 0, tokens.input);
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok;
  return (
    ((tokens.input - cached) * price.inputPerMTok +
      cached * cachedPrice +
      tokens.output * price.outputPerMTok) /
    1_000_000
  );
}
