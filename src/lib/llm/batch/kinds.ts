/** The providers with a batch API (kept apart from engine.ts so the CLI can check its options
 * without loading the LLM layer). */
export const BATCH_KINDS = ['openai', 'anthropic', 'gemini'] as const;
export type BatchKind = (typeof BATCH_KINDS)[number];

export function isBatchKind(kind: string): kind is BatchKind {
  return (BATCH_KINDS as readonly string[]).includes(kind);
}

/** OpenAI, Anthropic and Gemini all bill batch jobs at half their standard price. */
export const BATCH_PRICE_FACTOR = 0.5;
