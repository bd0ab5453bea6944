/**
 * How long the LLM client waits: per-call timeouts and retry limits, the backoff between attempts,
 * and a sleep that the caller's cancellation ends at once.
 */
import { wordedError } from './errors.ts';
import type { LlmError } from './types.ts';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_ATTEMPTS = 5;
/** A network failure may be CORS or an edge error that never clears: retry it at most twice. */
export const MAX_NETWORK_RETRIES = 2;
/** A body cut off or garbled in transit is asked again once; twice means the server sends it so. */
export const MAX_BAD_BODY_RETRIES = 1;
/** Longest server-suggested wait we honour; longer ones fail the item instead of hanging. */
export const MAX_HINT_MS = 120_000;
export const BACKOFF_BASE_MS = 1_000;
/** Anthropic's 529 "overloaded" clears more slowly than a 429. */
export const OVERLOADED_BASE_MS = 3_000;
export const BACKOFF_CAP_MS = 30_000;

export const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function cancelledError(): LlmError {
  return wordedError('cancelled', 'llm.error.cancelled');
}

/** Full-jitter exponential backoff: `min(cap, base·2^(attempt-1)) · random()`. */
export function backoffDelay(
  attempt: number,
  random: () => number,
  baseMs = BACKOFF_BASE_MS,
): number {
  return Math.min(BACKOFF_CAP_MS, baseMs * 2 ** Math.max(0, attempt - 1)) * random();
}
