import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PRICE_TABLE,
  estimateCost,
  findPrice,
  priceTableSchema,
} from '../../../src/lib/llm/prices.ts';

describe('price table', () => {
  it('is valid data with an as-of date', () => {
    expect(priceTableSchema.parse(DEFAULT_PRICE_TABLE)).toEqual(DEFAULT_PRICE_TABLE);
    expect(DEFAULT_PRICE_TABLE.asOf).toMatch(/^\d{4}-\d{2}/u);
  });

  it('prices 1M input + 1M output tokens of gpt-4o-mini at 0.15 + 0.60', () => {
    expect(
      estimateCost({ input: 1_000_000, output: 1_000_000 }, 'openai', 'gpt-4o-mini'),
    ).toBeCloseTo(0.75, 12);
  });

  it('matches dated snapshots and -latest, not other models', () => {
    expect(findPrice(DEFAULT_PRICE_TABLE, 'openai', 'gpt-4.1-mini-2025-04-14')?.model).toBe(
      'gpt-4.1-mini',
    );
    expect(findPrice(DEFAULT_PRICE_TABLE, 'anthropic', 'claude-haiku-4-5-20251001')?.model).toBe(
      'claude-haiku-4-5',
    );
    expect(findPrice(DEFAULT_PRICE_TABLE, 'openai-compatible', 'mistral-small-latest')?.model).toBe(
      'mistral-small',
    );
    expect(findPrice(DEFAULT_PRICE_TABLE, 'gemini', 'gemini-2.5-flash-lite')?.model).toBe(
      'gemini-2.5-flash-lite',
    );
    expect(findPrice(DEFAULT_PRICE_TABLE, 'openai', 'gpt-4.1-mini-high')).toBeUndefined();
  });

  it('unknown model or provider → undefined, never 0', () => {
    expect(
      estimateCost({ input: 10, output: 10 }, 'openai-compatible', 'llama3.1:8b'),
    ).toBeUndefined();
    expect(estimateCost({ input: 10, output: 10 }, 'anthropic', 'gpt-4o-mini')).toBeUndefined();
  });

  it('prices cached input at the cache price where the table has one', () => {
    // deepseek-chat: 0.28 miss, 0.028 hit, 0.42 out. 1M input of which 0.5M cached, 0 output.
    const cost = estimateCost(
      { input: 1_000_000, cachedInput: 500_000, output: 0 },
      'openai-compatible',
      'deepseek-chat',
    );
    expect(cost).toBeCloseTo(0.14 + 0.014, 12);
  });

  it('uses an edited table', () => {
    const table = {
      ...DEFAULT_PRICE_TABLE,
      entries: [
        {
          provider: 'openai-compatible' as const,
          model: 'llama3.1:8b',
          inputPerMTok: 0,
          outputPerMTok: 0,
        },
      ],
    };
    expect(estimateCost({ input: 5, output: 5 }, 'openai-compatible', 'llama3.1:8b', table)).toBe(
      0,
    );
  });
});
