/** Messages between the benchmark driver (run.ts, Node), the page and its module worker. */

export type BenchDevice = 'wasm' | 'webgpu';
export type BenchDtype = 'fp32' | 'fp16' | 'q8';

export interface RowConfig {
  /** "WASM", "WebGPU", "WebGPU (software fallback adapter, tiny model)" */
  where: string;
  /** Served under /models/: "sumlens-bench/minilm-shape" or "sumlens-test/tiny-embedding". */
  modelId: string;
  /**
   * Loaded (untimed as load, reported as start-up) before the measured model, so that load time
   * is the model's own and not ONNX Runtime's WASM and WebGPU start-up in a fresh worker.
   */
  primerModelId: string;
  /** For the table: "MiniLM-L6 shape (random)" */
  modelLabel: string;
  device: BenchDevice;
  dtype: BenchDtype;
  threads: number;
  batchSizes: number[];
  sentences: string[];
  /** Per batch size: stop early (and say so) once a cell has run this long. */
  budgetMs: number;
}

export interface CellResult {
  batchSize: number;
  sentences: number;
  ms: number;
  sentencesPerSecond: number;
}

export interface RowResult {
  config: Omit<RowConfig, 'sentences'>;
  /** ONNX Runtime start-up in the fresh worker, plus the small primer model's session. */
  startupMs: number;
  loadMs: number;
  cells: CellResult[];
  crossOriginIsolated: boolean;
  /** What ONNX Runtime was told (it falls back to 1 without cross-origin isolation). */
  numThreads: number;
  meanTokens: number;
  /** Sentence 0's pooled vector, to compare devices and dtypes of the same model. */
  sample: number[];
}

export interface AdapterFacts {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter: boolean;
  shaderF16: boolean;
}

export interface Probe {
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  userAgent: string;
  /** null: no WebGPU adapter in a worker here. */
  adapter: AdapterFacts | null;
  adapterError?: string;
}

export type WorkerRequest = { type: 'probe' } | { type: 'run'; config: RowConfig };

export type WorkerResponse =
  | { type: 'probe'; probe: Probe }
  | { type: 'result'; result: RowResult }
  | { type: 'error'; message: string };

export interface BenchPageApi {
  probe(): Promise<Probe>;
  runRow(config: RowConfig): Promise<RowResult>;
  useLite(request: UseLiteRequest): Promise<UseLiteResult>;
}

/** USE-lite through the app's worker loader (use-lite.worker.ts). */
export interface UseLiteRequest {
  device: 'auto' | 'wasm' | 'webgpu';
  threads: number;
  /** The TF.js graph instead of ONNX Runtime (route (a); the parity test compares them). */
  runtime?: 'tfjs';
  /** The app's default is int8; fp32 is the exact model the parity checks hold to 1e-4. */
  precision: 'int8' | 'fp32';
  sentences: string[];
  batchSizes: number[];
  budgetMs: number;
  /** Return the vectors (default batching) instead of timing batch sizes. */
  vectors?: boolean;
}

export interface UseLiteResult {
  /** "use-lite · WASM" */
  backend: string;
  notes: string[];
  loadMs: number;
  /** WASM threads in use; 0 on WebGPU. */
  threads: number;
  runtime: 'onnxruntime-web' | 'tfjs';
  cells: CellResult[];
  vectors?: number[][];
}

export type UseLiteResponse =
  { type: 'use-lite'; result: UseLiteResult } | { type: 'error'; message: string };
