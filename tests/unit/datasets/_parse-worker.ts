/** The parse worker served over the RPC layer in one thread, so that it is tested without a Worker. */
import { serveDatasetParse } from '../../../workers/dataset-parse.worker.ts';
import { parseApi } from '../../../src/lib/workers/parse-api.ts';
import type { ParamsOf, ProgressOf } from '../../../src/lib/workers/rpc.ts';
import { connect } from '../workers/_channel.ts';

type ParseMethods = typeof parseApi.methods;

/** A parse worker and its client (messages are not cloned: test Blobs replace their `stream`). */
export function parseWorker() {
  return connect(parseApi, serveDatasetParse, { clone: false });
}

/** `detect` on a fresh worker. */
export function detectSample(params: ParamsOf<ParseMethods, 'detect'>) {
  return parseWorker().client.call('detect', params);
}

/** `import` on a fresh worker, with every progress item it streamed. */
export async function importRows(params: ParamsOf<ParseMethods, 'import'>) {
  const progress: ProgressOf<ParseMethods, 'import'>[] = [];
  const summary = await parseWorker().client.call('import', params, {
    onProgress: (item) => progress.push(item),
  });
  return { summary, progress };
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

/** A Blob whose stream never ends unless cancelled, counting its pulls. */
export function endlessBlob(line: string) {
  const pulls = { count: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls.count++;
      controller.enqueue(new TextEncoder().encode(line.repeat(100)));
    },
  });
  const blob = new Blob(['']);
  Object.defineProperty(blob, 'stream', { value: () => stream });
  return { blob, pulls };
}
