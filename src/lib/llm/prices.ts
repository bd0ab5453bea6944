/**
 * A user-editable price table for judge calls (USD per 1M tokens, standard tier) and the cost
 * estimate the UI shows before and after a run. Prices change often: the table carries its as-of
 * date, the UI lets people edit it, and a model missing from it has an unknown cost (undefined),
 * never a cost of 0.
 *
 * The seed rows live in each provider's record (providers/registry.ts, with their sources).
 */
import { z } from 'zod';
import { providerRecords } from './providers/registry.ts';
import { PROVIDER_KINDS, type ProviderKind, type TokenUsage } from './types.ts';

export const priceEntrySchema = z.object({
  provider: z.enum(PROVIDER_KINDS),
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
  entries: providerRecords().flatMap(([provider, record]) =>
    record.prices.map((price) => ({ provider, ...price })),
  ),
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
