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

/** A Blob whose stream hands out `chunk` bytes at a time and counts what was pulled. */
export function chunkedBlob(bytes: Uint8Array<ArrayBuffer>, chunk: number) {
  let offset = 0;
  const pulled = { bytes: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) {
        controller.close();
        return;
      }
      const piece = bytes.slice(offset, offset + chunk);
      offset += piece.byteLength;
      pulled.bytes = offset;
      controller.enqueue(piece);
    },
  });
  const blob = new Blob([bytes]);
  Object.defineProperty(blob, 'stream', { value: () => stream });
  return { blob, pulled };
}
