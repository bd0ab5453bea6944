/**
 * Rows started ahead, finished in file order: `add` starts a row's work at once (worker threads
 * score several rows at a time) and queues its finishing step (judge, checks, the output line)
 * behind the previous row's. It waits while `limit` rows are started but not finished, so that a
 * slow row, a slow judge or a slow reader of stdout holds at most `limit` rows' results in memory,
 * never the whole file's. With `limit` 1 it is the plain loop: one row after the other.
 *
 * The first finishing step that throws stops the line: later steps do not run, and `add` and
 * `drain` throw that error, as the loop that awaited each row did. Once `stop` is aborted (Ctrl-C),
 * the rows still queued are dropped without waiting for their work.
 */
const DROPPED = Symbol('dropped');

export class InOrder {
  #limit: number;
  #open = 0;
  #tail: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;
  readonly #waiting: Array<() => void> = [];
  readonly #stop: AbortSignal | undefined;
  readonly #stopped: Promise<void>;

  constructor(limit: number, stop?: AbortSignal) {
    this.#limit = Math.max(1, limit);
    this.#stop = stop;
    this.#stopped = new Promise((resolve) =>
      stop?.addEventListener('abort', () => resolve(), { once: true }),
    );
  }

  /** More rows in flight from now on (once the worker threads are there). */
  widen(limit: number): void {
    this.#limit = Math.max(this.#limit, limit);
    while (this.#waiting.length > 0 && this.#open < this.#limit) this.#waiting.shift()!();
  }

  async add<T>(start: () => Promise<T>, finish: (value: T) => Promise<void> | void): Promise<void> {
    while (this.#open >= this.#limit && !this.#failure) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#throwIfFailed();
    this.#open++;
    const started = start();
    // Read by the finishing step, in turn; until then a rejection is not "unhandled".
    started.catch(() => undefined);
    this.#tail = this.#tail.then(async () => {
      try {
        if (this.#failure || this.#stop?.aborted) return;
        const value = await Promise.race([started, this.#stopped.then(() => DROPPED)]);
        if (value !== DROPPED) await finish(value as T);
      } catch (error) {
        this.#failure ??= { error };
      } finally {
        this.#open--;
        this.#waiting.shift()?.();
      }
    });
  }

  /** Waits for every row added; throws the first failure. */
  async drain(): Promise<void> {
    await this.#tail;
    this.#throwIfFailed();
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }
}
