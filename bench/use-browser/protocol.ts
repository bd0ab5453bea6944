/** Messages between the USE-lite browser bench driver (run.ts), its page and the worker. */

/** onnx: the fp32 graph; onnx-int8: the int8 model (the app's default). */
export type UseRoute = 'onnx' | 'onnx-int8' | 'tfjs';

export interface UseRowConfig {
  route: UseRoute;
  /** ONNX Runtime's WASM threads (TF.js runs one). */
  threads: number;
  batchSizes: number[];
  sentences: string[];
  /** Each timing is the fastest of this many runs. */
  repeats: number;
  /** One long source, already split into sentences; embedded at batch 8. */
  sourceSentences: string[];
  /** Another summary of that source, split: every sentence new to the encoder; batch 8. */
  summarySentences: string[];
}

export interface UseRowResult {
  loadMs: number;
  perSecond: number[];
  sourceMs: number;
  summaryMs: number;
  /** The vectors of `sentences` at batch 8, for the driver's parity check. */
  vectors: number[][];
  crossOriginIsolated: boolean;
}

export type UseWorkerResponse =
  { type: 'result'; result: UseRowResult } | { type: 'error'; message: string };

export interface UseBenchPageApi {
  runRow(config: UseRowConfig): Promise<UseRowResult>;
}
