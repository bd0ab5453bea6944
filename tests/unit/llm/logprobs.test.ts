/**
 * Logprob normalisation (PROVIDERS.md §12.2): tokenizer space markers, OpenAI's -9999 floor, and
 * the score distribution a G-Eval parser builds from one token position.
 */
import { describe, expect, it } from 'vitest';
import {
  bareToken,
  FLOOR_LOGPROB,
  probability,
  scoreDistribution,
  tokenLogprob,
  tokenText,
  topLogprob,
} from '../../../src/lib/llm/logprobs.ts';

describe('logprob normalisation', () => {
  it('turns ▁ and Ġ word-start markers into the space they stand for', () => {
    expect(tokenText('▁4')).toBe(' 4');
    expect(tokenText('Ġ4')).toBe(' 4');
    expect(tokenText(' 4')).toBe(' 4');
    expect(tokenText('Ċ')).toBe('\n');
    expect(tokenText('4▁')).toBe('4▁');
  });

  it('strips leading spaces and markers for score matching', () => {
    for (const t of ['4', ' 4', '▁4', 'Ġ4', '\t4', '  4 ']) expect(bareToken(t)).toBe('4');
  });

  it('treats -9999 (outside the top 20) and missing values as probability 0', () => {
    expect(probability(-9999)).toBe(0);
    expect(probability(-12_000)).toBe(0);
    expect(probability(0)).toBe(1);
    expect(topLogprob('x', null)).toEqual({ token: 'x', logprob: FLOOR_LOGPROB });
    expect(topLogprob('x', -20_000).logprob).toBe(FLOOR_LOGPROB);
    expect(topLogprob(undefined, -1)).toEqual({ token: '', logprob: -1 });
    // Rounding sometimes gives a hair above 0.
    expect(topLogprob('x', 1e-9).logprob).toBe(0);
  });

  it('sums spellings of one score and reports the covered mass', () => {
    const position = tokenLogprob('4', Math.log(0.5), [
      topLogprob('4', Math.log(0.5)),
      topLogprob(' 4', Math.log(0.1)),
      topLogprob('▁3', Math.log(0.2)),
      topLogprob('**', Math.log(0.15)),
      topLogprob('9', Math.log(0.04)),
      topLogprob('2', -9999),
    ]);
    const { probabilities, covered } = scoreDistribution(position, [1, 2, 3, 4, 5]);
    expect(probabilities.get(4)).toBeCloseTo(0.6);
    expect(probabilities.get(3)).toBeCloseTo(0.2);
    expect(probabilities.get(2)).toBe(0);
    expect(probabilities.get(1)).toBe(0);
    expect(covered).toBeCloseTo(0.8);
  });

  it('falls back to the chosen token when no alternatives came back', () => {
    const { probabilities } = scoreDistribution(tokenLogprob('Ġ5', -0.1, []), [1, 2, 3, 4, 5]);
    expect(probabilities.get(5)).toBeCloseTo(Math.exp(-0.1));
  });
});
