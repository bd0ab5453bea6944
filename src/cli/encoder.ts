/**
 * The CLI's sentence encoder: USE-lite on onnxruntime-node's native kernels when that module loads,
 * else on onnxruntime-web's WASM build (one thread), the route the page and `npm run validity`
 * take; one stderr line says which and why. `--encoder-runtime native` fails instead of falling
 * back, `wasm` does not try the native module at all (the bench's "before").
 */
import { messageOf } from '../lib/errors.ts';
import type { LoadUseLiteOptions } from '../lib/node/load-use.ts';
import type { UsePrecision } from '../lib/metrics/semantic/use-lite-int8.ts';

export const ENCODER_RUNTIMES = ['auto', 'native', 'wasm'] as const;
export const PRECISIONS = ['int8', 'fp32'] as const;

/**
 * One sentence per run of the graph: a batch's make-up changes a vector's last bits (the
 * attention and layer norms), so a sentence embedded beside others would get another vector in a
 * shard, in a worker or after a cache hit than in the whole run, and the merged output would not
 * be the whole run's byte for byte. Alone, a sentence always gets the same bits, at about 10% of
 * the native throughput (int8, 2026-12-04: 584 against 659 sentences/s at batch 8).
 */
const ONE_SENTENCE_PER_RUN = 1;
export type EncoderRuntime = (typeof ENCODER_RUNTIMES)[number];

export interface EncoderConfig {
  runtime: EncoderRuntime;
  /** onnxruntime-node's intra-op threads. */
  threads: number;
  precision: UsePrecision;
  /** Another model file for onnxruntime-node (a quantised one); see load-use-onnx.ts. */
  modelPath?: string;
}

export interface EncoderHooks {
  /** One line to stderr: the fallback, said once per process. */
  warn: (line: string) => void;
  loadNative?: LoadUseLiteOptions['loadNative'];
}

/**
 * `diskCache`: the vector cache's folder (true: the default one); false in a worker thread, whose
 * cache is the main thread's.
 */
export async function loadCliEncoder(
  config: EncoderConfig,
  diskCache: string | boolean,
  hooks: EncoderHooks,
) {
  // Imported here: score.ts reads this module's options, and a ROUGE-only run loads no encoder.
  const { loadUseLiteEmbedder } = await import('../lib/node/load-use.ts');
  const wasm = () =>
    loadUseLiteEmbedder({
      diskCache,
      precision: config.precision,
      batchSize: ONE_SENTENCE_PER_RUN,
    });
  if (config.runtime === 'wasm') return wasm();
  try {
    return await loadUseLiteEmbedder({
      runtime: 'onnxruntime-node',
      threads: config.threads,
      precision: config.precision,
      batchSize: ONE_SENTENCE_PER_RUN,
      ...(config.modelPath ? { modelPath: config.modelPath } : {}),
      ...(hooks.loadNative ? { loadNative: hooks.loadNative } : {}),
      diskCache,
    });
  } catch (error) {
    if (config.runtime === 'native') throw error;
    const reason = messageOf(error).split('\n')[0]!.trim();
    hooks.warn(
      `onnxruntime-node did not load (${reason}): USE-lite ${config.precision} runs on onnxruntime-web's WASM build instead (one thread).`,
    );
    return wasm();
  }
}
