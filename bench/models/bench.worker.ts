/// <reference lib="webworker" />
/**
 * Runs one benchmark row in this fresh worker: starts ONNX Runtime by loading a small primer model
 * on the row's device (timed as start-up), builds the measured feature-extraction pipeline (timed
 * as load: file fetches and session creation), then per batch size one untimed warm-up call and
 * timed calls over the sentences, with mean pooling and normalisation as the app's embedding metric
 * uses them.
 */
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import type {
  AdapterFacts,
  Probe,
  RowConfig,
  RowResult,
  WorkerRequest,
  WorkerResponse,
} from './protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

// Before the first pipeline: by default ONNX Runtime's files come from a CDN.
env.backends.onnx.wasm!.wasmPaths = {
  mjs: '/vendor/ort/ort-wasm-simd-threaded.asyncify.mjs',
  wasm: '/vendor/ort/ort-wasm-simd-threaded.asyncify.wasm',
};
env.allowRemoteModels = false;
env.allowLocalModels = true;
// A path, not a URL: transformers.js 4.3 skips the tokenizer when given a full URL.
env.localModelPath = '/models/';
// The generator may rewrite a model at the same URL; Cache Storage would serve the old one.
env.useBrowserCache = false;

interface GpuAdapterInfoLike {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}

interface GpuAdapterLike {
  info?: GpuAdapterInfoLike;
  isFallbackAdapter?: boolean;
  features: { has(name: string): boolean };
}

async function probeAdapter(): Promise<{ adapter: AdapterFacts | null; error?: string }> {
  // Through `unknown`: @webgpu/types (brought by TF.js's WebGPU backend) types navigator.gpu
  // without `adapter.info`, which this probe reads where the browser has it.
  const gpu = (
    navigator as unknown as {
      gpu?: { requestAdapter(o?: object): Promise<GpuAdapterLike | null> };
    }
  ).gpu;
  if (!gpu) return { adapter: null, error: 'navigator.gpu is missing' };
  try {
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return { adapter: null, error: 'requestAdapter() returned null' };
    const info = adapter.info ?? {};
    return {
      adapter: {
        vendor: info.vendor ?? '',
        architecture: info.architecture ?? '',
        device: info.device ?? '',
        description: info.description ?? '',
        isFallbackAdapter: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
        shaderF16: adapter.features.has('shader-f16'),
      },
    };
  } catch (error) {
    return { adapter: null, error: String(error) };
  }
}

async function probe(): Promise<Probe> {
  const { adapter, error } = await probeAdapter();
  return {
    crossOriginIsolated: self.crossOriginIsolated,
    hardwareConcurrency: navigator.hardwareConcurrency,
    userAgent: navigator.userAgent,
    adapter,
    ...(error ? { adapterError: error } : {}),
  };
}

async function run(config: RowConfig): Promise<RowResult> {
  env.backends.onnx.wasm!.numThreads = config.threads;
  const { sentences } = config;
  const options = { pooling: 'mean', normalize: true } as const;

  const startupStart = performance.now();
  const primer = await pipeline('feature-extraction', config.primerModelId, {
    device: config.device,
    dtype: 'fp32',
  });
  await primer.dispose();
  const startupMs = performance.now() - startupStart;

  const loadStart = performance.now();
  const extractor = (await pipeline('feature-extraction', config.modelId, {
    device: config.device,
    dtype: config.dtype,
  })) as FeatureExtractionPipeline;
  const loadMs = performance.now() - loadStart;

  try {
    let tokens = 0;
    for (const s of sentences) tokens += extractor.tokenizer(s).input_ids.dims[1];

    const cells: RowResult['cells'] = [];
    let sample: number[] = [];
    for (const batchSize of config.batchSizes) {
      const warm = await extractor(sentences.slice(0, batchSize), options);
      if (sample.length === 0) sample = (warm.tolist() as number[][])[0];
      let done = 0;
      const start = performance.now();
      while (done < sentences.length) {
        const batch = sentences.slice(done, done + batchSize);
        await extractor(batch, options);
        done += batch.length;
        if (performance.now() - start > config.budgetMs) break;
      }
      const ms = performance.now() - start;
      cells.push({ batchSize, sentences: done, ms, sentencesPerSecond: (done * 1000) / ms });
    }
    const { sentences: _omit, ...rest } = config;
    return {
      config: rest,
      startupMs,
      loadMs,
      cells,
      crossOriginIsolated: self.crossOriginIsolated,
      numThreads: env.backends.onnx.wasm!.numThreads ?? config.threads,
      meanTokens: tokens / sentences.length,
      sample,
    };
  } finally {
    await extractor.dispose();
  }
}

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  let response: WorkerResponse;
  try {
    response =
      request.type === 'probe'
        ? { type: 'probe', probe: await probe() }
        : { type: 'result', result: await run(request.config) };
  } catch (error) {
    response = {
      type: 'error',
      message: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error),
    };
  }
  self.postMessage(response);
};
