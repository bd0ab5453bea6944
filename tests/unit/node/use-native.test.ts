/**
 * USE-lite on onnxruntime-node, built from the committed graph and the TF.js shards in memory,
 * against the WASM route on the same bytes; and the CLI's encoder when the native module does not
 * load.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCliEncoder } from '../../../src/cli/encoder.ts';
import { loadUseOnnxEmbedder, type UseOnnxEmbedder } from '../../../src/lib/node/load-use-onnx.ts';
import { loadUseLiteEmbedder, USE_LITE_NODE_BACKEND } from '../../../src/lib/node/load-use.ts';
import { devSourceSentences } from '../../../src/lib/node/summeval-sentences.ts';
import { maxAbsDifference } from '../../helpers/use-reference.ts';
import { cosine } from '../../../src/lib/metrics/semantic/coherence/coherence.ts';

const FP32 = { runtime: 'auto', threads: 1, precision: 'fp32' } as const;

describe('USE-lite on onnxruntime-node', () => {
  let sentences: string[];
  let native: UseOnnxEmbedder;

  beforeAll(async () => {
    sentences = devSourceSentences(120);
    native = await loadUseOnnxEmbedder({ threads: 1 });
  }, 60_000);

  it('gives the WASM route’s vectors within 1e-4 (fp32) on SummEval sentences', async () => {
    const wasm = await loadUseLiteEmbedder();
    const [a, b] = [await native.embed(sentences), await wasm.embed(sentences)];
    expect(a).toHaveLength(sentences.length);
    expect(maxAbsDifference(a, b)).toBeLessThan(1e-4);
    // Not trivially equal: the vectors differ between sentences.
    expect(maxAbsDifference([a[0]!], [a[1]!])).toBeGreaterThan(0.05);
    expect(native.backend).toBe('use-lite · CPU (onnxruntime-node)');
    expect(wasm.backend).toBe(USE_LITE_NODE_BACKEND);
  }, 240_000);

  it('gives the same bits on two threads as on one (the backend string leaves threads out)', async () => {
    const two = await loadUseOnnxEmbedder({ threads: 2 });
    expect(two.backend).toBe(native.backend);
    expect(maxAbsDifference(await two.embed(sentences), await native.embed(sentences))).toBe(0);
  }, 120_000);

  it('names the int8 model file it lacks', async () => {
    await expect(
      loadUseOnnxEmbedder({ precision: 'int8', modelPath: '/nonexistent/int8.onnx' }),
    ).rejects.toThrow('USE-lite int8 model missing: /nonexistent/int8.onnx');
  });

  it('int8: the WASM route’s int8 vectors within the quantised tolerance', async () => {
    const int8 = await loadUseOnnxEmbedder({ precision: 'int8' });
    expect(int8.backend).toBe('use-lite int8 · CPU (onnxruntime-node)');
    const wasm = await loadUseLiteEmbedder({ precision: 'int8' });
    const [a, b] = [await int8.embed(sentences), await wasm.embed(sentences)];
    // Not 1e-4: the two runtimes' float parts (layer norms, softmax) differ by ~1e-7, and a value
    // that sits on a rounding boundary of the per-token quantisation then takes the other step,
    // which moves the vector by up to ~3e-3 (measured); int8 against fp32 moves up to 1.3e-2.
    expect(maxAbsDifference(a, b)).toBeLessThan(1e-2);
    expect(Math.min(...a.map((v, i) => cosine(v, b[i]) ?? 0))).toBeGreaterThan(0.999);
    // and not the fp32 vectors: int8 moves them by ~1e-2 at most, more than 1e-4 somewhere
    expect(maxAbsDifference(a, await native.embed(sentences))).toBeGreaterThan(1e-4);
  }, 120_000);
});

describe('the CLI’s encoder', () => {
  const brokenNative = () =>
    Promise.reject(
      new Error(
        'libonnxruntime.so.1: cannot open shared object file: No such file or directory\n    at Module._extensions..node',
      ),
    );

  it('runs natively when onnxruntime-node loads, and says nothing', async () => {
    const said: string[] = [];
    const encoder = await loadCliEncoder(FP32, false, { warn: (l) => said.push(l) });
    expect(encoder.backend).toBe('use-lite · CPU (onnxruntime-node)');
    expect(said).toEqual([]);
  }, 60_000);

  it('falls back to WASM when onnxruntime-node does not load, and says so in one line', async () => {
    const said: string[] = [];
    const encoder = await loadCliEncoder(FP32, false, {
      warn: (l) => said.push(l),
      loadNative: brokenNative,
    });
    expect(encoder.backend).toBe(USE_LITE_NODE_BACKEND);
    expect((await encoder.embed(['The council approved a new park.']))[0]).toHaveLength(512);
    expect(said).toHaveLength(1);
    expect(said[0]).not.toContain('\n');
    expect(said[0]).toMatch(/onnxruntime-node did not load \(libonnxruntime\.so\.1: .*\): .*WASM/u);
  }, 60_000);

  it('fails rather than falls back when native was asked for', async () => {
    const warn = () => {
      throw new Error('no fallback expected');
    };
    await expect(
      loadCliEncoder({ ...FP32, runtime: 'native' }, false, { warn, loadNative: brokenNative }),
    ).rejects.toThrow(/libonnxruntime/u);
  });

  it('int8 falls back to the WASM route’s int8 model, and says so', async () => {
    const said: string[] = [];
    const encoder = await loadCliEncoder({ ...FP32, precision: 'int8' }, false, {
      warn: (l) => said.push(l),
      loadNative: brokenNative,
    });
    expect(encoder.backend).toBe('use-lite int8 · WASM');
    expect(said[0]).toMatch(/USE-lite int8 runs on onnxruntime-web's WASM build/u);
  }, 60_000);
});
