/**
 * Ctrl-C (SIGINT) and SIGTERM for the CLI. The first one stops the run without losing what it
 * paid for: no new request leaves (the judge's and the batch engine's fetch refuse it), the ones
 * already sent are waited for so their answers land in the cache, and the caller then writes what
 * it has and exits with 128 + the signal's number. A second one exits at once.
 *
 * Kept free of the LLM layer, which a run without judge metrics never loads.
 */
import { constants } from 'node:os';

/** What the refused fetch throws: the request was never sent. */
export class StoppedError extends Error {
  constructor() {
    super('The run is stopping: the request was not sent.');
  }
}

/**
 * The same Ctrl-C can arrive twice within milliseconds: from the terminal and again from a parent
 * that forwards it (npm, tsx). Only a press after this long counts as the second.
 */
const SAME_PRESS_MS = 500;

export class RunStop {
  /** The signal that stopped the run, once one has. */
  signal: NodeJS.Signals | undefined;
  private readonly controller = new AbortController();
  private sent = 0;
  private at = 0;

  /** Aborted by the first signal: sleeps between polls and retries end at once. */
  get aborted(): AbortSignal {
    return this.controller.signal;
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.sent;
  }

  get exitCode(): number {
    return this.signal ? 128 + constants.signals[this.signal] : 0;
  }

  /** A fetch that sends nothing once the run is stopping, and lets requests already sent finish. */
  readonly fetch: typeof fetch = async (input, init) => {
    if (this.signal) throw new StoppedError();
    this.sent++;
    try {
      return await globalThis.fetch(input, init);
    } finally {
      this.sent--;
    }
  };

  /**
   * Listens for SIGINT and SIGTERM: `first` hears the first one (the run winds down by itself),
   * `again` a second one, which must end the process.
   */
  install(first: (signal: NodeJS.Signals) => void, again: (signal: NodeJS.Signals) => void): void {
    const on = (signal: NodeJS.Signals) => {
      const now = Date.now();
      if (!this.signal) {
        this.signal = signal;
        this.at = now;
        this.controller.abort();
        first(signal);
      } else if (now - this.at > SAME_PRESS_MS) {
        again(this.signal);
      }
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  }
}
