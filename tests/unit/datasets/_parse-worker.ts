/** The parse worker served in a fake worker scope, so that its protocol is tested without a Worker. */
import { serveDatasetParse, type ParseWorkerScope } from '../../../workers/dataset-parse.worker.ts';
import type { ParseReply } from '../../../src/lib/datasets/parse-protocol.ts';

/**
 * `send` hands the worker a message as the page would post it; `replies` collects what it posts
 * back; `until` waits for the first reply that matches and returns it.
 */
export function fakeParseScope() {
  let listener: ((event: MessageEvent<unknown>) => void) | undefined;
  const replies: ParseReply[] = [];
  const waiters: Array<() => void> = [];
  const scope: ParseWorkerScope = {
    addEventListener: (_type, l) => {
      listener = l;
    },
    postMessage: (m) => {
      replies.push(m);
      for (const w of waiters.splice(0)) w();
    },
  };
  serveDatasetParse(scope);
  const send = (data: unknown) => listener!({ data } as MessageEvent<unknown>);
  const until = async (pred: (r: ParseReply) => boolean) => {
    while (!replies.some(pred)) await new Promise<void>((resolve) => waiters.push(resolve));
    return replies.find(pred)!;
  };
  return { replies, send, until };
}
