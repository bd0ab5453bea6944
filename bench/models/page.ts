/**
 * The benchmark page: one fresh module worker per request, because ONNX Runtime fixes its WASM
 * thread count when it first initialises in a worker.
 */
import type {
  BenchPageApi,
  Probe,
  RowConfig,
  RowResult,
  UseLiteRequest,
  UseLiteResponse,
  UseLiteResult,
  WorkerRequest,
  WorkerResponse,
} from './protocol.ts';

declare global {
  interface Window {
    sumlensBench: BenchPageApi;
  }
}

function inWorker(request: WorkerRequest): Promise<WorkerResponse> {
  const worker = new Worker(new URL('./bench.worker.ts', import.meta.url), { type: 'module' });
  return new Promise<WorkerResponse>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerResponse>) => resolve(event.data);
    worker.onerror = (event) => reject(new Error(`worker failed: ${event.message}`));
    worker.postMessage(request);
  }).finally(() => worker.terminate());
}

async function useLite(request: UseLiteRequest): Promise<UseLiteResult> {
  const worker = new Worker(new URL('./use-lite.worker.ts', import.meta.url), { type: 'module' });
  const response = await new Promise<UseLiteResponse>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<UseLiteResponse>) => resolve(event.data);
    worker.onerror = (event) => reject(new Error(`worker failed: ${event.message}`));
    worker.postMessage(request);
  }).finally(() => worker.terminate());
  if (response.type === 'use-lite') return response.result;
  throw new Error(response.message);
}

window.sumlensBench = {
  useLite,
  async probe(): Promise<Probe> {
    const response = await inWorker({ type: 'probe' });
    if (response.type === 'probe') return response.probe;
    throw new Error(response.type === 'error' ? response.message : 'unexpected reply');
  },
  async runRow(config: RowConfig): Promise<RowResult> {
    const response = await inWorker({ type: 'run', config });
    if (response.type === 'result') return response.result;
    throw new Error(response.type === 'error' ? response.message : 'unexpected reply');
  },
};
document.body.dataset.ready = 'true';
