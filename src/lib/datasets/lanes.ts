/**
 * What the data-set runners share (batch.ts `runBatch` scores rows, generate/runner.ts
 * `generatePredictions` writes their predictions): rows pulled one at a time by a few concurrent
 * lanes, a pause that stops starting rows, a cancel or a halt that aborts the rows in flight, and
 * a rate measured over a moving window. Framework-free, like the runners, which run in workers too.
 */

/** The moving window of the rate: the last 30 seconds of completions. */
export const RATE_WINDOW_MS = 30_000;

/** A runner's state: 'pausing'/'cancelling' while rows in flight finish; the last three are final. */
export type RunState =
  'running' | 'pausing' | 'paused' | 'cancelling' | 'done' | 'cancelled' | 'stopped';

// ---- Pause ----

/** The runner's view of a pause switch. */
export interface PauseSignal {
  readonly paused: boolean;
  /** Resolves once not paused (at once when not paused). */
  whenResumed(): Promise<void>;
  /** Called on every change; returns an unsubscribe function. */
  subscribe(listener: (paused: boolean) => void): () => void;
}

/** Pause and resume a run, like an AbortController for pausing; it is its own signal. */
export class PauseController implements PauseSignal {
  #paused = false;
  #waiters: Array<() => void> = [];
  #listeners = new Set<(paused: boolean) => void>();

  get signal(): PauseSignal {
    return this;
  }

  get paused(): boolean {
    return this.#paused;
  }

  whenResumed(): Promise<void> {
    if (!this.#paused) return Promise.resolve();
    return new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  subscribe(listener: (paused: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    for (const l of this.#listeners) l(true);
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
    for (const l of this.#listeners) l(false);
  }
}

/**
 * Resolves once `pause` is off, or once `signal` aborts: a run cancelled while paused must end
 * without being resumed first. At once when not paused or already aborted (an abort event that
 * has fired never fires again).
 */
export function waitWhilePaused(
  pause: PauseSignal | undefined,
  signal: AbortSignal,
): Promise<void> {
  if (!pause?.paused || signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const finish = () => {
      signal.removeEventListener('abort', finish);
      resolve();
    };
    signal.addEventListener('abort', finish, { once: true });
    void pause.whenResumed().then(finish);
  });
}

// ---- Rate ----

/**
 * Completions per second over a moving window, and the time left at that rate. Only the
 * completions since the last `restart()` count, so that a pause does not read as a slow-down.
 */
export class RateMeter {
  readonly #clock: () => number;
  readonly #windowMs: number;
  readonly #completions: number[] = [];
  #activeSince: number;

  /** `clock` in milliseconds (performance.now; tests pass a fake). */
  constructor(clock: () => number, windowMs: number = RATE_WINDOW_MS) {
    this.#clock = clock;
    this.#windowMs = windowMs;
    this.#activeSince = clock();
  }

  complete(): void {
    this.#completions.push(this.#clock());
  }

  restart(): void {
    this.#activeSince = this.#clock();
    this.#completions.length = 0;
  }

  /** Per second; null until something completed in a window of some length. */
  rate(): number | null {
    const now = this.#clock();
    const from = Math.max(this.#activeSince, now - this.#windowMs);
    while (this.#completions.length > 0 && this.#completions[0] < from) this.#completions.shift();
    const seconds = (now - from) / 1000;
    if (this.#completions.length === 0 || seconds <= 0) return null;
    return this.#completions.length / seconds;
  }

  /** Seconds to complete `left` more: 0 when nothing is left, null while the rate is unknown. */
  eta(left: number): number | null {
    if (left <= 0) return 0;
    const rate = this.rate();
    return rate ? left / rate : null;
  }
}

// ---- Cancel and halt ----

/**
 * The signal of a run's work in flight. It follows the caller's cancel, and the run can also
 * halt itself (a storage failure, an error every row would hit): the first halt's `stop` is
 * kept, even after a cancel, since it says what was not saved.
 */
export class RunAbort<Stop> {
  readonly #inner = new AbortController();
  readonly #outer: AbortSignal | undefined;
  readonly #onCancel: () => void;
  #stop: Stop | undefined;

  constructor(outer: AbortSignal | undefined) {
    this.#outer = outer;
    this.#onCancel = () =>
      this.#inner.abort(outer?.reason ?? new DOMException('The run was cancelled.', 'AbortError'));
    if (outer?.aborted) this.#onCancel();
    else outer?.addEventListener('abort', this.#onCancel, { once: true });
  }

  /** Aborted on cancel or halt. */
  get signal(): AbortSignal {
    return this.#inner.signal;
  }

  get cancelled(): boolean {
    return this.#outer?.aborted ?? false;
  }

  get stop(): Stop | undefined {
    return this.#stop;
  }

  halt(stop: Stop, reason: unknown): void {
    if (this.#stop !== undefined) return;
    this.#stop = stop;
    this.#inner.abort(reason);
  }

  /** Stops following the caller's signal, which may outlive the run. */
  release(): void {
    this.#outer?.removeEventListener('abort', this.#onCancel);
  }
}

/** Calls a listener of the caller's; one that throws (a broken progress bar) must not stop the run. */
export function callListener(call: () => void): void {
  try {
    call();
  } catch {
    // The run goes on; what the listener would have shown is not the run's data.
  }
}

// ---- Rows and lanes ----

export interface SerialPuller<T> {
  next(): Promise<IteratorResult<T>>;
  /** Lets an unfinished async generator close its reads (an IndexedDB cursor). */
  close(): Promise<void>;
}

/**
 * Pulls from a sync or async iterable one `next()` at a time, whoever asks: an async generator
 * queues overlapping calls, but other async iterators need not, and lanes ask concurrently.
 */
export function serialPuller<T>(items: AsyncIterable<T> | Iterable<T>): SerialPuller<T> {
  const iterator =
    Symbol.asyncIterator in items
      ? (items as AsyncIterable<T>)[Symbol.asyncIterator]()
      : (items as Iterable<T>)[Symbol.iterator]();
  let pulling: Promise<unknown> = Promise.resolve();
  let exhausted = false;
  return {
    next() {
      const next = pulling.then((): IteratorResult<T> | Promise<IteratorResult<T>> =>
        exhausted ? { done: true, value: undefined } : iterator.next(),
      );
      // A failed pull still lets the next one go.
      pulling = next.catch(() => undefined);
      return next.then((r) => {
        if (r.done) exhausted = true;
        return r;
      });
    },
    async close() {
      if (exhausted) return;
      exhausted = true;
      await Promise.resolve(iterator.return?.()).catch(() => undefined);
    },
  };
}

export interface LaneOptions<T extends { readonly row: number }> {
  rows: AsyncIterable<T> | Iterable<T>;
  /** Rows handled at the same time; at least 1. */
  concurrency: number;
  /** Lanes stop pulling once it aborts (cancel or halt). */
  signal: AbortSignal;
  pause?: PauseSignal | undefined;
  /** Before a lane waits out a pause: the runner shows 'paused'. */
  onPauseWait?(): void;
  /** Reading the rows failed: the lane ends; the runner says why. */
  onReadError(error: unknown): void;
  /** Handles one row; must not reject. The lane pulls its next row once it settles. */
  work(row: T): Promise<void>;
}

/**
 * Handles `rows` in `concurrency` lanes until the rows run out or `signal` aborts. A row number
 * is handled once even if the source yields it again: it would be scored, or paid for, twice.
 */
export async function runLanes<T extends { readonly row: number }>(
  options: LaneOptions<T>,
): Promise<void> {
  const { signal, pause } = options;
  const rows = serialPuller(options.rows);
  const seen = new Set<number>();
  const lane = async (): Promise<void> => {
    for (;;) {
      if (pause?.paused && !signal.aborted) {
        options.onPauseWait?.();
        await waitWhilePaused(pause, signal);
      }
      if (signal.aborted) return;
      let next: IteratorResult<T>;
      try {
        next = await rows.next();
      } catch (error) {
        options.onReadError(error);
        return;
      }
      if (next.done || signal.aborted) return;
      const row = next.value;
      if (seen.has(row.row)) continue;
      seen.add(row.row);
      await options.work(row);
    }
  };
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  await Promise.all(Array.from({ length: concurrency }, () => lane()));
  await rows.close();
}

// ---- One place at a time ----

/** The Web Locks API where there is one (pages and workers; not Node). */
function lockManager(): LockManager | undefined {
  return (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
}

/**
 * Runs `work` while holding the Web Lock `name`, or refuses with `busy` when another tab, window
 * or worker holds it, so that two of them never process (or pay for) the same rows. Without the
 * API (Node: the command line, tests) `work` simply runs.
 */
export async function exclusively<T>(
  name: string,
  busy: string,
  work: () => Promise<T>,
): Promise<T> {
  const locks = lockManager();
  if (!locks) return work();
  return locks.request(name, { ifAvailable: true }, async (lock) => {
    if (!lock) throw new Error(busy);
    return work();
  });
}

/**
 * The names of the Web Locks held right now by any tab, window or worker of the origin; undefined
 * without the API. A stored "running" run whose locks nobody holds has lost the tab that ran it.
 */
export async function heldLockNames(): Promise<Set<string> | undefined> {
  const locks = lockManager();
  if (!locks) return undefined;
  const snapshot = await locks.query();
  return new Set((snapshot.held ?? []).map((lock) => lock.name ?? ''));
}
