/**
 * One logprob shape for every provider (PROVIDERS.md §12.2) and the small helpers a G-Eval parser
 * needs to read it: tokenizers disagree on how a leading space looks (" 4", "▁4", "Ġ4"), and
 * OpenAI reports tokens outside the top 20 as -9999.
 */
import type { TokenLogprob, TopLogprob } from './types.ts';

/** OpenAI's "outside the top 20" marker; anything at or below it is probability 0. */
export const FLOOR_LOGPROB = -9999;

/** SentencePiece `▁` and byte-level BPE `Ġ` (and `Ċ` for newline) as the text they stand for, so
 * that joining tokens reproduces the reply and offsets line up. */
export function tokenText(token: string): string {
  return token
    .replace(/^[▁Ġ]+/, (m) => ' '.repeat(m.length))
    .replace(/^Ċ+/, (m) => '\n'.repeat(m.length));
}

/** The token without leading whitespace or word-start markers: "▁4", " 4", "Ġ4" → "4". */
export function bareToken(token: string): string {
  return token.replace(/^[\s▁ĠĊ]+/, '').replace(/\s+$/, '');
}

function cleanLogprob(value: unknown): number {
  if (typeof value !== 'number' || Number.isNaN(value)) return FLOOR_LOGPROB;
  return value < FLOOR_LOGPROB ? FLOOR_LOGPROB : Math.min(0, value);
}

export function probability(logprob: number): number {
  return logprob <= FLOOR_LOGPROB ? 0 : Math.exp(logprob);
}

export function topLogprob(token: unknown, logprob: unknown): TopLogprob {
  return {
    token: tokenText(typeof token === 'string' ? token : ''),
    logprob: cleanLogprob(logprob),
  };
}

export function tokenLogprob(token: unknown, logprob: unknown, top: TopLogprob[]): TokenLogprob {
  return { ...topLogprob(token, logprob), top };
}

/**
 * Probability of each allowed integer score at one token position, summing spellings that mean the
 * same score (" 4" and "4"), plus the covered mass: how much of the distribution the allowed
 * scores hold (PROVIDERS.md §12.2: flag a run when it is below 0.5).
 */
export function scoreDistribution(
  position: TokenLogprob,
  allowed: readonly number[],
): { probabilities: Map<number, number>; covered: number } {
  const entries = position.top.length
    ? position.top
    : [{ token: position.token, logprob: position.logprob }];
  const probabilities = new Map<number, number>(allowed.map((s) => [s, 0]));
  const seen = new Set<string>();
  for (const entry of entries) {
    // Providers occasionally list the same token twice (chosen + top); count it once.
    if (seen.has(entry.token)) continue;
    seen.add(entry.token);
    const bare = bareToken(entry.token);
    if (!/^\d+$/.test(bare)) continue;
    const score = Number(bare);
    if (probabilities.has(score)) {
      probabilities.set(score, probabilities.get(score)! + probability(entry.logprob));
    }
  }
  let covered = 0;
  for (const p of probabilities.values()) covered += p;
  return { probabilities, covered };
}
