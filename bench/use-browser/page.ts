/**
 * The USE-lite browser bench page: one fresh module worker per row, because ONNX Runtime fixes its
 * WASM thread count when it first starts in a worker.
 */
import type { UseBenchPageApi, UseRowConfig, UseRowResult, UseWorkerResponse } from './protocol.ts';

declare global {
  interface Window {
    sumlensUseBench: UseBenchPageApi;
  }
}

window.sumlensUseBench = {
  runRow(config: UseRowConfig): Promise<UseRowResult> {
    const worker = new Worker(new URL('./use.worker.ts', import.meta.url), { type: 'module' });
    return new Promise<UseRowResult>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<UseWorkerResponse>) =>
        event.data.type === 'result'
          ? resolve(event.data.result)
          : reject(new Error(event.data.message));
      worker.onerror = (event) => reject(new Error(`worker failed: ${event.message}`));
      worker.postMessage(config);
    }).finally(() => worker.terminate());
  },
};
document.body.dataset.ready = 'true';
