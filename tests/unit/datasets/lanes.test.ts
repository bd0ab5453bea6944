/**
 * The machinery both data-set runners stand on (lanes.ts): the moving-window rate on a fake
 * clock, one pull at a time from any iterable, waiting out a pause (and not a cancelled one),
 * cancel and halt of the work in flight, and the lanes that tie them together.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  exclusively,
  callListener,
  PauseController,
  RateMeter,
  RunAbort,
  runLanes,
  serialPuller,
  waitWhilePaused,
} from '../../../src/lib/datasets/lanes.ts';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Whether `promise` has settled by now. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await settle();
  return settled;
}

const rowsUpTo = (n: number) => Array.from({ length: n }, (_, i) => ({ row: i + 1 }));

describe('RateMeter', () => {
  it('has no rate before the first completion, then completions per second since the start', () => {
    let now = 1_000;
    const meter = new RateMeter(() => now, 10_000);
    expect(meter.rate()).toBeNull();
    expect(meter.eta(5)).toBeNull();
    now += 2_000;
    meter.complete();
    now += 2_000;
    meter.complete();
    // Two completions in the 4 s since the meter started.
    expect(meter.rate()).toBeCloseTo(0.5, 12);
    expect(meter.eta(3)).toBeCloseTo(6, 12);
  });

  it('counts only the completions inside the window', () => {
    let now = 0;
    const meter = new RateMeter(() => now, 5_000);
    for (const at of [1_000, 2_000, 3_000, 4_000, 5_000, 7_000, 9_000, 11_000]) {
      now = at;
      meter.complete();
    }
    // The window [6 s, 11 s] holds the completions at 7, 9 and 11 s.
    expect(meter.rate()).toBeCloseTo(3 / 5, 12);
    now = 30_000;
    expect(meter.rate()).toBeNull();
  });

  it('measures afresh after a restart, so that a pause does not read as a slow-down', () => {
    let now = 0;
    const meter = new RateMeter(() => now, 30_000);
    now = 1_000;
    meter.complete();
    now = 2_000;
    meter.complete();
    // Paused for a minute.
    now = 62_000;
    meter.restart();
    expect(meter.rate()).toBeNull();
    now = 63_000;
    meter.complete();
    now = 64_000;
    meter.complete();
    expect(meter.rate()).toBeCloseTo(1, 12);
    expect(meter.eta(10)).toBeCloseTo(10, 12);
  });

  it('says no time is left when nothing is left, whatever the rate', () => {
    const meter = new RateMeter(() => 0);
    expect(meter.rate()).toBeNull();
    expect(meter.eta(0)).toBe(0);
  });
});

describe('serialPuller', () => {
  /** An async iterator that, unlike a generator, breaks when asked twice at once. */
  function fragileSource(values: number[]) {
    let index = 0;
    let busy = false;
    let overlaps = 0;
    let returned = false;
    const iterator: AsyncIterator<number> = {
      async next() {
        if (busy) overlaps++;
        busy = true;
        await settle();
        busy = false;
        return index < values.length
          ? { done: false, value: values[index++] }
          : { done: true, value: undefined };
      },
      async return() {
        returned = true;
        return { done: true, value: undefined };
      },
    };
    return {
      iterable: { [Symbol.asyncIterator]: () => iterator },
      overlaps: () => overlaps,
      returned: () => returned,
    };
  }

  it('asks an async iterator one next() at a time, in order, however many ask', async () => {
    const source = fragileSource([10, 20, 30]);
    const puller = serialPuller(source.iterable);
    const results = await Promise.all([puller.next(), puller.next(), puller.next(), puller.next()]);
    expect(results.map((r) => (r.done ? 'done' : r.value))).toEqual([10, 20, 30, 'done']);
    expect(source.overlaps()).toBe(0);
  });

  it('reads sync iterables, and does not ask again once they are done', async () => {
    let asked = 0;
    const counting: Iterable<string> = {
      [Symbol.iterator]: () => ({
        next: () => {
          asked++;
          return asked === 1 ? { done: false, value: 'a' } : { done: true, value: undefined };
        },
      }),
    };
    const puller = serialPuller(counting);
    expect(await puller.next()).toEqual({ done: false, value: 'a' });
    expect((await puller.next()).done).toBe(true);
    expect((await puller.next()).done).toBe(true);
    expect(asked).toBe(2);
  });

  it('lets the next pull go after one fails', async () => {
    let calls = 0;
    const flaky: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          calls++;
          if (calls === 1) throw new Error('the cursor went away');
          return { done: false, value: calls };
        },
      }),
    };
    const puller = serialPuller(flaky);
    const [first, second] = await Promise.allSettled([puller.next(), puller.next()]);
    expect(first).toMatchObject({
      status: 'rejected',
      reason: { message: 'the cursor went away' },
    });
    expect(second).toMatchObject({ status: 'fulfilled', value: { done: false, value: 2 } });
  });

  it('closes an unfinished generator (its finally runs) but not a finished one', async () => {
    let closed = 0;
    async function* rows() {
      try {
        yield 1;
        yield 2;
      } finally {
        closed++;
      }
    }
    const unfinished = serialPuller(rows());
    await unfinished.next();
    await unfinished.close();
    expect(closed).toBe(1);
    expect((await unfinished.next()).done).toBe(true);

    const source = fragileSource([1]);
    const finished = serialPuller(source.iterable);
    while (!(await finished.next()).done);
    await finished.close();
    expect(source.returned()).toBe(false);
  });
});

describe('waitWhilePaused', () => {
  it('resolves at once when there is no pause or it is off', async () => {
    const signal = new AbortController().signal;
    expect(await isSettled(waitWhilePaused(undefined, signal))).toBe(true);
    expect(await isSettled(waitWhilePaused(new PauseController(), signal))).toBe(true);
  });

  it('waits until resumed', async () => {
    const pause = new PauseController();
    pause.pause();
    const waiting = waitWhilePaused(pause, new AbortController().signal);
    expect(await isSettled(waiting)).toBe(false);
    pause.resume();
    expect(await isSettled(waiting)).toBe(true);
  });

  it('ends on a cancel while paused, even one that came before the wait', async () => {
    const pause = new PauseController();
    pause.pause();
    const cancel = new AbortController();
    const waiting = waitWhilePaused(pause, cancel.signal);
    expect(await isSettled(waiting)).toBe(false);
    cancel.abort();
    expect(await isSettled(waiting)).toBe(true);
    // The abort event has fired already: a later wait must not hang until a resume.
    expect(await isSettled(waitWhilePaused(pause, cancel.signal))).toBe(true);
    expect(pause.paused).toBe(true);
  });
});

describe('RunAbort', () => {
  it("follows the caller's cancel with its reason, also one that came first", () => {
    const cancel = new AbortController();
    const abort = new RunAbort<string>(cancel.signal);
    expect(abort.signal.aborted).toBe(false);
    expect(abort.cancelled).toBe(false);
    const reason = new Error('user cancelled');
    cancel.abort(reason);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(reason);
    expect(abort.cancelled).toBe(true);
    expect(abort.stop).toBeUndefined();

    const late = new RunAbort<string>(cancel.signal);
    expect(late.signal.reason).toBe(reason);
  });

  it('keeps the first halt, also after a cancel, and aborts with its reason', () => {
    const cancel = new AbortController();
    const abort = new RunAbort<{ message: string }>(cancel.signal);
    const full = new Error('storage is full');
    abort.halt({ message: 'row 3 was not saved' }, full);
    abort.halt({ message: 'a later failure' }, new Error('later'));
    expect(abort.stop).toEqual({ message: 'row 3 was not saved' });
    expect(abort.signal.reason).toBe(full);
    expect(abort.cancelled).toBe(false);

    const cancelledFirst = new RunAbort<string>(cancel.signal);
    cancel.abort();
    cancelledFirst.halt('row 4 was not saved', new Error('storage is full'));
    expect(cancelledFirst.stop).toBe('row 4 was not saved');
  });

  it('works without a caller signal, and stops following one once released', () => {
    const alone = new RunAbort<string>(undefined);
    expect(alone.cancelled).toBe(false);
    alone.halt('bad key', new Error('bad key'));
    expect(alone.signal.aborted).toBe(true);

    const cancel = new AbortController();
    const released = new RunAbort<string>(cancel.signal);
    released.release();
    cancel.abort();
    expect(released.signal.aborted).toBe(false);
  });
});

describe('callListener', () => {
  it('calls the listener and swallows what it throws', () => {
    const seen: number[] = [];
    expect(() =>
      callListener(() => {
        seen.push(1);
        throw new Error('the progress bar broke');
      }),
    ).not.toThrow();
    expect(seen).toEqual([1]);
  });
});

describe('runLanes', () => {
  it('handles every row with at most `concurrency` at once, each row number once', async () => {
    const handled: number[] = [];
    let running = 0;
    let most = 0;
    await runLanes({
      rows: [...rowsUpTo(6), { row: 2 }, { row: 7 }],
      concurrency: 3,
      signal: new AbortController().signal,
      onReadError: (error) => {
        throw error;
      },
      work: async ({ row }) => {
        running++;
        most = Math.max(most, running);
        await settle();
        handled.push(row);
        running--;
      },
    });
    expect(handled.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('starts no row while paused and goes on when resumed', async () => {
    const pause = new PauseController();
    const started: number[] = [];
    let pauseWaits = 0;
    const gate = deferred();
    const run = runLanes({
      rows: rowsUpTo(4),
      concurrency: 2,
      signal: new AbortController().signal,
      pause,
      onPauseWait: () => pauseWaits++,
      onReadError: (error) => {
        throw error;
      },
      work: async ({ row }) => {
        started.push(row);
        if (row === 1) pause.pause();
        await gate.promise;
      },
    });
    await settle();
    expect(started).toEqual([1, 2]);
    // Rows in flight finish; the lanes then wait rather than pull.
    gate.resolve();
    await settle();
    expect(started).toEqual([1, 2]);
    expect(pauseWaits).toBe(2);
    expect(await isSettled(run)).toBe(false);
    pause.resume();
    await run;
    expect(started).toEqual([1, 2, 3, 4]);
  });

  it('ends on a cancel while paused, rows in flight included, without a resume', async () => {
    const pause = new PauseController();
    const cancel = new AbortController();
    const started: number[] = [];
    const paused = deferred();
    const run = runLanes({
      rows: rowsUpTo(5),
      concurrency: 2,
      signal: cancel.signal,
      pause,
      onReadError: (error) => {
        throw error;
      },
      work: async ({ row }) => {
        started.push(row);
        if (row === 1) {
          // This lane then waits out the pause…
          await paused.promise;
          return;
        }
        // …and this one is still working when the cancel comes.
        pause.pause();
        paused.resolve();
        await settle();
        cancel.abort();
      },
    });
    // The cancel comes after the working lane's own macrotask.
    await settle();
    expect(await isSettled(run)).toBe(true);
    expect(started).toEqual([1, 2]);
    expect(pause.paused).toBe(true);
  });

  it('stops pulling once the signal aborts and closes the rows it did not read', async () => {
    const cancel = new AbortController();
    const pulled: number[] = [];
    let closed = false;
    async function* rows() {
      try {
        for (const r of rowsUpTo(100)) {
          pulled.push(r.row);
          yield r;
        }
      } finally {
        closed = true;
      }
    }
    await runLanes({
      rows: rows(),
      concurrency: 1,
      signal: cancel.signal,
      onReadError: (error) => {
        throw error;
      },
      work: async ({ row }) => {
        if (row === 3) cancel.abort();
      },
    });
    expect(pulled).toEqual([1, 2, 3]);
    expect(closed).toBe(true);
  });

  it('hands a read failure to the runner and ends the lanes', async () => {
    async function* broken() {
      yield { row: 1 };
      throw new Error('IndexedDB went away');
    }
    const handled: number[] = [];
    const readErrors: unknown[] = [];
    await runLanes({
      rows: broken(),
      concurrency: 2,
      signal: new AbortController().signal,
      onReadError: (error) => readErrors.push(error),
      work: async ({ row }) => {
        handled.push(row);
      },
    });
    expect(handled).toEqual([1]);
    expect(readErrors).toEqual([new Error('IndexedDB went away')]);
  });
});

describe('exclusively', () => {
  afterEach(() => vi.unstubAllGlobals());

  /** A Web Locks manager holding the names given, as another tab would. */
  function locksHeld(...held: string[]) {
    return {
      request: (
        name: string,
        _options: { ifAvailable: boolean },
        callback: (lock: { name: string } | null) => Promise<unknown>,
      ) => callback(held.includes(name) ? null : { name }),
    };
  }

  it('runs the work while the lock is free, and refuses with the message when it is held', async () => {
    vi.stubGlobal('navigator', { locks: locksHeld('sumlens-run:b') });
    await expect(exclusively('sumlens-run:a', 'busy', async () => 7)).resolves.toBe(7);
    let ran = false;
    await expect(
      exclusively('sumlens-run:b', 'This run is already running elsewhere.', async () => {
        ran = true;
      }),
    ).rejects.toThrow('This run is already running elsewhere.');
    expect(ran).toBe(false);
  });

  it('simply runs where there is no Web Locks API (Node: the command line)', async () => {
    vi.stubGlobal('navigator', {});
    await expect(exclusively('any', 'busy', async () => 'done')).resolves.toBe('done');
  });
});
