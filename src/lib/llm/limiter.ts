/**
 * Client-side rate limiting is the main defence against 429s, because browsers cannot read the
 * providers' rate-limit headers (PROVIDERS.md §1.2, §13). One limiter per provider + host is
 * shared by every judge in the page, so two metrics running at once still respect one budget.
 */
import { wordedError } from './errors.ts';
import { LlmError } from './types.ts';

/** Consecutive successes needed, per unit of the current limit, before the limit grows by one. */
const RECOVERY_FACTOR = 4;

export class ConcurrencyLimiter {
  private active = 0;
  private current: number;
  private successes = 0;
  private readonly waiting: Array<() => void> = [];
  /** Most calls seen in flight at once (tests and diagnostics). */
  peak = 0;

  constructor(private max: number) {
    this.current = max;
  }

  get limit(): number {
    return this.current;
  }

  get inFlight(): number {
    return this.active;
  }

  /** A judge created with another `concurrency` for the same host sets the new ceiling. */
  setMax(max: number): void {
    if (max === this.max) return;
    this.max = max;
    this.current = Math.min(this.current, max);
    if (this.current < 1) this.current = 1;
    this.pump();
  }

  /** Resolves with a release function once a slot is free; rejects 'cancelled' on abort. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(cancelled());
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        this.peak = Math.max(this.peak, this.active);
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.active--;
          this.pump();
        });
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(cancelled());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
      this.pump();
    });
  }

  /** After a 429: halve, so the queue drains more gently. */
  onRateLimit(): void {
    this.current = Math.max(1, Math.floor(this.current / 2));
    this.successes = 0;
  }

  /** Recover one slot at a time after a run of successes. */
  onSuccess(): void {
    if (this.current >= this.max) return;
    this.successes++;
    if (this.successes >= this.current * RECOVERY_FACTOR) {
      this.current++;
      this.successes = 0;
      this.pump();
    }
  }

  private pump(): void {
    while (this.active < this.current && this.waiting.length > 0) this.waiting.shift()!();
  }
}

function cancelled(): LlmError {
  return wordedError('cancelled', 'llm.error.cancelled');
}

export const DEFAULT_CONCURRENCY = 4;

const limiters = new Map<string, ConcurrencyLimiter>();

/** The shared limiter for `key` (provider kind + base host). */
export function limiterFor(key: string, max = DEFAULT_CONCURRENCY): ConcurrencyLimiter {
  let limiter = limiters.get(key);
  if (!limiter) {
    limiter = new ConcurrencyLimiter(Math.max(1, Math.floor(max)));
    limiters.set(key, limiter);
  } else limiter.setMax(Math.max(1, Math.floor(max)));
  return limiter;
}

/** Tests start each case with fresh limits. */
export function resetLimiters(): void {
  limiters.clear();
}
