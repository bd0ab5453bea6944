/// <reference lib="webworker" />
/**
 * USE-lite through the app's own worker loader (workers/use-lite.ts: files from this origin, ONNX
 * Runtime WebGPU or WASM, or TF.js WASM), in a fresh worker per request because both runtimes fix
 * their WASM thread count when they first start. Measures load and sentences/s per batch size (`npm run bench:models`), or returns
 * the vectors (the e2e parity test).
 */
import { englishRef } from '../../src/lib/i18n/message.ts';
import { loadUseLite } from '../../workers/use-lite.ts';
import type { CellResult, UseLiteRequest, UseLiteResponse, UseLiteResult } from './protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

async function run(request: UseLiteRequest): Promise<UseLiteResult> {
  const loadStart = performance.now();
  const loaded = await loadUseLite(request.device, () => {}, {
    threads: request.threads,
    precision: request.precision,
    ...(request.runtime ? { runtime: request.runtime } : {}),
  });
  const loadMs = performance.now() - loadStart;
  const { embedder, runtime, threads } = loaded;
  const notes = loaded.notes.map((n) => (typeof n === 'string' ? n : englishRef(n)));
  const base = { backend: embedder.backend, notes, loadMs, threads, runtime };
  if (request.vectors) {
    const vectors = await embedder.embed(request.sentences);
    return { ...base, cells: [], vectors: vectors.map((v) => Array.from(v)) };
  }
  const cells: CellResult[] = [];
  for (const batchSize of request.batchSizes) {
    const sized = embedder.withOptions({ batchSize });
    // One untimed call: kernels and shapes of this batch size compile here.
    await sized.embed(request.sentences.slice(0, batchSize));
    let done = 0;
    const start = performance.now();
    while (done < request.sentences.length) {
      const batch = request.sentences.slice(done, done + batchSize * 4);
      await sized.embed(batch);
      done += batch.length;
      if (performance.now() - start > request.budgetMs) break;
    }
    const ms = performance.now() - start;
    cells.push({ batchSize, sentences: done, ms, sentencesPerSecond: (done * 1000) / ms });
  }
  return { ...base, cells };
}

self.onmessage = async (event: MessageEvent<UseLiteRequest>) => {
  let response: UseLiteResponse;
  try {
    response = { type: 'use-lite', result: await run(event.data) };
  } catch (error) {
    response = {
      type: 'error',
      message: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error),
    };
  }
  self.postMessage(response);
};
