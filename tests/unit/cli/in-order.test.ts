/** Rows started ahead and finished in file order, never more than the limit in flight. */
import { describe, expect, it } from 'vitest';
import { InOrder } from '../../../src/cli/in-order.ts';

/** A row whose work ends when the test says so. */
function deferred() {
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  return { done, resolve };
}

describe('InOrder', () => {
  it('finishes in the order added, whatever order the work ends in, with at most `limit` open', async () => {
    const order = new InOrder(3);
    const work = Array.from({ length: 6 }, deferred);
    const started: number[] = [];
    const finished: number[] = [];
    let open = 0;
    let mostOpen = 0;
    const adding = (async () => {
      for (let i = 0; i < work.length; i++) {
        await order.add(
          async () => {
            started.push(i);
            mostOpen = Math.max(mostOpen, ++open);
            await work[i]!.done;
          },
          () => {
            open--;
            finished.push(i);
          },
        );
      }
    })();
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual([0, 1, 2]);
    // The third row's work ends first: it still waits for rows 0 and 1.
    work[2]!.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(finished).toEqual([]);
    expect(started).toEqual([0, 1, 2]);
    for (const i of [1, 0, 5, 4, 3]) work[i]!.resolve();
    await adding;
    await order.drain();
    expect(finished).toEqual([0, 1, 2, 3, 4, 5]);
    expect(mostOpen).toBe(3);
  });

  it('with limit 1, a row starts only after the one before has finished (the serial loop)', async () => {
    const order = new InOrder(1);
    const events: string[] = [];
    for (const i of [0, 1, 2]) {
      await order.add(
        async () => events.push(`start ${i}`),
        async () => {
          await new Promise((r) => setTimeout(r, 1));
          events.push(`finish ${i}`);
        },
      );
    }
    await order.drain();
    expect(events).toEqual(['start 0', 'finish 0', 'start 1', 'finish 1', 'start 2', 'finish 2']);
  });

  it('stops at the first failing finish: later rows are not finished, and the error comes out', async () => {
    const order = new InOrder(4);
    const finished: number[] = [];
    const failure = new Error('row 1 cannot be written');
    for (const i of [0, 1, 2]) {
      await order.add(
        async () => i,
        (value) => {
          if (value === 1) throw failure;
          finished.push(value);
        },
      );
    }
    await expect(order.drain()).rejects.toBe(failure);
    expect(finished).toEqual([0]);
    await expect(
      order.add(
        async () => 3,
        () => undefined,
      ),
    ).rejects.toBe(failure);
  });

  it('a row whose work fails fails in its turn, not before the rows ahead of it', async () => {
    const order = new InOrder(4);
    const finished: number[] = [];
    const slow = deferred();
    await order.add(
      () => slow.done,
      () => void finished.push(0),
    );
    await order.add(
      () => Promise.reject(new Error('worker stopped')),
      () => void finished.push(1),
    );
    slow.resolve();
    await expect(order.drain()).rejects.toThrow('worker stopped');
    expect(finished).toEqual([0]);
  });

  it('once stopped, drops the rows still queued without waiting for their work', async () => {
    const stop = new AbortController();
    const order = new InOrder(4, stop.signal);
    const finished: number[] = [];
    await order.add(
      async () => 0,
      (value) => void finished.push(value),
    );
    await order.drain();
    await order.add(
      () => new Promise<number>(() => undefined),
      (value) => void finished.push(value),
    );
    stop.abort();
    await order.drain();
    expect(finished).toEqual([0]);
  });
});
