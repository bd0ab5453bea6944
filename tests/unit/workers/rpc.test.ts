/**
 * The RPC layer itself (src/lib/workers/rpc.ts) with a small test API: requests and replies are
 * validated at both ends, progress streams, cancel reaches the handler, a worker's error and a
 * crash fail the calls they concern, and a reply nobody waits for is ignored.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerApi, isCancelled, serve } from '../../../src/lib/workers/rpc.ts';
import { connect, replyMatching } from './_channel.ts';

const testApi = defineWorkerApi('test', {
  count: {
    request: z.object({ upTo: z.number().int().min(1) }),
    progress: z.object({ at: z.number() }),
    result: z.object({ total: z.number() }),
  },
  wait: { request: z.object({}), progress: z.never(), result: z.null() },
  fail: { request: z.object({}), progress: z.never(), result: z.null() },
});

function served() {
  return connect(testApi, (scope) =>
    serve(
      testApi,
      {
        count({ upTo }, { progress }) {
          for (let at = 1; at <= upTo; at++) progress({ at });
          return { total: upTo };
        },
        wait(_params, { signal }) {
          return new Promise((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(new Error('stopped'))),
          );
        },
        fail() {
          throw new Error('out of memory');
        },
      },
      scope,
    ),
  );
}

describe('the worker RPC layer', () => {
  it('streams progress and resolves with the result', async () => {
    const { client } = served();
    const seen: number[] = [];
    const result = await client.call('count', { upTo: 3 }, { onProgress: (p) => seen.push(p.at) });
    expect(result).toEqual({ total: 3 });
    expect(seen).toEqual([1, 2, 3]);
    expect(client.pending).toBe(0);
  });

  it('answers a malformed request or an unknown method with an error naming it', async () => {
    const { client, toWorker, replies } = served();
    await expect(client.call('count', { upTo: 0 })).rejects.toThrow(
      /^Malformed request to the test worker \(count\): upTo: /u,
    );
    toWorker({ kind: 'call', id: 'x1', method: 'explode', params: {} });
    expect(await replyMatching(replies, (r) => JSON.stringify(r).includes('x1'))).toEqual({
      kind: 'error',
      id: 'x1',
      message: 'The test worker has no method "explode".',
    });
    toWorker({ type: 'score', id: 'old' });
    expect(await replyMatching(replies, (r) => JSON.stringify(r).includes('old'))).toMatchObject({
      kind: 'error',
      id: 'old',
      message: expect.stringMatching(/^Malformed message to the test worker/u),
    });
  });

  it('cancels a call by id: the handler sees the abort and the call ends as cancelled', async () => {
    const { client, sent } = served();
    const controller = new AbortController();
    const call = client.call('wait', {}, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error: unknown = await call.catch((e: unknown) => e);
    expect(isCancelled(error)).toBe(true);
    const [first, cancel] = sent as { kind: string; id: string }[];
    expect(cancel).toEqual({ kind: 'cancel', id: first?.id });
    // Already aborted: nothing is sent.
    await expect(client.call('wait', {}, { signal: controller.signal })).rejects.toSatisfy(
      isCancelled,
    );
    expect(sent).toHaveLength(2);
  });

  it('passes on the worker’s own error, as its message', async () => {
    const { client } = served();
    await expect(client.call('fail', {})).rejects.toThrow('out of memory');
  });

  it('fails a call whose reply cannot be read, and ignores replies to no call', async () => {
    const { client, sent, toPage } = connect(testApi, () => {});
    const call = client.call('count', { upTo: 2 });
    const id = (sent[0] as { id: string }).id;
    toPage({ kind: 'result', id: 'nobody', value: { total: 1 } });
    toPage({ kind: 'progress', id, item: { at: 'one' } });
    await expect(call).rejects.toThrow(
      /^The test worker sent a reply that could not be read \(at: /u,
    );
    // The worker is told to stop working on it.
    expect(sent.at(-1)).toEqual({ kind: 'cancel', id });
    const second = client.call('count', { upTo: 2 });
    toPage({ kind: 'result', id: (sent.at(-1) as { id: string }).id, value: { total: 'two' } });
    await expect(second).rejects.toThrow(/could not be read/u);
    expect(client.pending).toBe(0);
  });

  it('fails every waiting call when the worker stops, saying what survives', async () => {
    const { client, crash } = connect(testApi, () => {}, { afterStop: 'Try again.' });
    const calls = [client.call('wait', {}), client.call('wait', {})];
    crash('Uncaught SyntaxError');
    for (const call of calls) {
      await expect(call).rejects.toThrow(
        'The test worker stopped: Uncaught SyntaxError. Try again.',
      );
    }
    expect(client.pending).toBe(0);
  });
});
