/**
 * USE-lite on onnxruntime-node, built from the committed graph and the TF.js shards in memory,
 * against the WASM route on the same bytes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  loadUseOnnxEmbedder,
  USE_INT8_MODEL_PATH,
  type UseOnnxEmbedder,
} from '../../../src/lib/node/load-use-onnx.ts';
import { loadUseLiteEmbedder, USE_LITE_NODE_BACKEND } from '../../../src/lib/node/load-use.ts';
import { devSourceSentences } from '../../../src/lib/node/summeval-sentences.ts';
import { maxAbsDifference } from '../../helpers/use-reference.ts';

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
    expect(native.backend).toBe('use-lite · onnxruntime-node (fp32)');
    expect(wasm.backend).toBe(USE_LITE_NODE_BACKEND);
  }, 240_000);

  it('gives the same bits on two threads as on one (the backend string leaves threads out)', async () => {
    const two = await loadUseOnnxEmbedder({ threads: 2 });
    expect(two.backend).toBe(native.backend);
    expect(maxAbsDifference(await two.embed(sentences), await native.embed(sentences))).toBe(0);
  }, 120_000);

  it('names the int8 model it lacks', async () => {
    await expect(
      loadUseOnnxEmbedder({ precision: 'int8', modelPath: '/nonexistent/int8.onnx' }),
    ).rejects.toThrow('USE-lite int8 model missing: /nonexistent/int8.onnx');
    expect(USE_INT8_MODEL_PATH).toMatch(/public\/models\/use-lite\/int8\.onnx$/u);
  });
});
