/**
 * A worker's RPC side and the page's client joined in one thread: every message is delivered as a
 * later task, as postMessage does, and structured-cloned unless `clone: false` (a test Blob whose
 * `stream` is replaced would lose it in a clone).
 */
import {
  WorkerClient,
  type Methods,
  type RpcScope,
  type WorkerApi,
  type WorkerLike,
} from '../../../src/lib/workers/rpc.ts';

type Listener = (event: MessageEvent<unknown>) => void;

export function connect<M extends Methods>(
  api: WorkerApi<M>,
  serveWorker: (scope: RpcScope) => void,
  options: { clone?: boolean; afterStop?: string } = {},
) {
  const workerListeners: Listener[] = [];
  const pageListeners: Listener[] = [];
  const errorListeners: Array<(event: ErrorEvent) => void> = [];
  /** What the page sent, and what the worker answered, in order. */
  const sent: unknown[] = [];
  const replies: unknown[] = [];
  const deliver = (listeners: Listener[], message: unknown) =>
    setTimeout(() => {
      const data = options.clone === false ? message : structuredClone(message);
      for (const l of listeners) l(new MessageEvent('message', { data }));
    }, 0);
  serveWorker({
    addEventListener: (_type, listener) => workerListeners.push(listener),
    postMessage: (message) => {
      replies.push(message);
      deliver(pageListeners, message);
    },
  });
  const worker: WorkerLike = {
    postMessage: (message) => {
      sent.push(message);
      deliver(workerListeners, message);
    },
    addEventListener: (type: string, listener: Listener & ((event: ErrorEvent) => void)) => {
      if (type === 'message') pageListeners.push(listener);
      else if (type === 'error') errorListeners.push(listener);
    },
    terminate: () => {},
  };
  const client = new WorkerClient(
    api,
    worker,
    options.afterStop ? { afterStop: options.afterStop } : {},
  );
  return {
    client,
    worker,
    sent,
    replies,
    /** Straight to the worker side, as a stale tab or another build might send it. */
    toWorker: (message: unknown) => deliver(workerListeners, message),
    /** A reply as a broken or foreign worker would send it. */
    toPage: (message: unknown) => deliver(pageListeners, message),
    crash: (message: string) => {
      // Node has no ErrorEvent: an Event carrying the two fields the client reads.
      const event = Object.assign(new Event('error', { cancelable: true }), { message });
      for (const l of errorListeners) l(event as ErrorEvent);
    },
  };
}

/** Waits until the worker has answered with a message that `match` accepts. */
export async function replyMatching(
  replies: unknown[],
  match: (reply: unknown) => boolean,
  withinMs = 15_000,
) {
  // A deadline in time, not in turns: on a loaded two-core machine a read of the fake IndexedDB
  // can outlast a thousand 1 ms timers.
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    const found = replies.find(match);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`no such reply within ${withinMs} ms; replies: ${JSON.stringify(replies)}`);
}
