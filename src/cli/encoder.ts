/**
 * The CLI's sentence encoder: USE-lite on onnxruntime-node's native kernels when that module loads,
 * else on onnxruntime-web's WASM build (one thread), the route the page and `npm run validity`
 * take; one stderr line says which and why. `--encoder-runtime native` fails instead of falling
 * back, `wasm` does not try the native module at all (the bench's "before").
 */
import { messageOf } from '../lib/errors.ts';
import type { LoadUseLiteOptions } from '../lib/node/load-use.ts';
import type { UsePrecision } from '../lib/node/load-use-onnx.ts';

export const ENCODER_RUNTIMES = ['auto', 'native', 'wasm'] as const;
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
  const wasm = () => loadUseLiteEmbedder({ diskCache });
  if (config.runtime === 'wasm') return wasm();
  try {
    return await loadUseLiteEmbedder({
      runtime: 'onnxruntime-node',
      threads: config.threads,
      precision: config.precision,
      ...(config.modelPath ? { modelPath: config.modelPath } : {}),
      ...(hooks.loadNative ? { loadNative: hooks.loadNative } : {}),
      diskCache,
    });
  } catch (error) {
    // The WASM route has fp32 weights only: an int8 run that cannot have int8 stops.
    if (config.runtime === 'native' || config.precision !== 'fp32') throw error;
    const reason = messageOf(error).split('\n')[0]!.trim();
    hooks.warn(
      `onnxruntime-node did not load (${reason}): USE-lite runs on onnxruntime-web's WASM build instead (one thread).`,
    );
    return wasm();
  }
}
