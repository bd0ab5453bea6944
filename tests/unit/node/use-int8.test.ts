/**
 * USE-lite's int8 model: the weights file the app builds from the shards is the converter's, the
 * committed graph and layout are what the converter makes, the vectors stay near the exact
 * model's, and a sentence's vector does not depend on the batch it was embedded in beyond float
 * rounding (activations are quantised per token, not per batch).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../src/lib/node/external-data.ts';
import { loadUseLiteEmbedder, readUseFiles } from '../../../src/lib/node/load-use.ts';
import {
  buildInt8Weights,
  readInt8Layout,
  USE_INT8_GRAPH_PATH,
  USE_INT8_LAYOUT_PATH,
} from '../../../src/lib/node/use-int8.ts';
import { devSourceSentences } from '../../../src/lib/node/summeval-sentences.ts';
import {
  checkInt8File,
  USE_LITE_INT8_BYTES,
  USE_LITE_INT8_FILES,
} from '../../../src/lib/metrics/semantic/use-lite-int8.ts';
import { cosine } from '../../../src/lib/metrics/semantic/coherence/coherence.ts';

describe('USE-lite int8 files', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'use-int8-'));
    execFileSync('/usr/bin/python3', [
      'scripts/models/convert_use_onnx.py',
      '--out',
      join(dir, 'model.onnx'),
      '--graph-out',
      join(dir, 'graph.onnx'),
      '--int8-graph-out',
      join(dir, 'int8-graph.onnx'),
      '--int8-layout-out',
      join(dir, 'int8-layout.json'),
    ]);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the weights built from the shards are the converter’s, byte for byte', () => {
    const built = buildInt8Weights(readInt8Layout(), new Uint8Array(readUseFiles().weights));
    const converter = readFileSync(join(dir, USE_LITE_INT8_FILES.weights));
    expect(built.byteLength).toBe(converter.byteLength);
    expect(Buffer.from(built).equals(converter)).toBe(true);
  });

  it('the committed int8 graph and layout are what the converter makes', () => {
    expect(
      readFileSync(join(dir, 'int8-graph.onnx')).equals(readFileSync(USE_INT8_GRAPH_PATH)),
    ).toBe(true);
    expect(readFileSync(join(dir, 'int8-layout.json'), 'utf8')).toBe(
      readFileSync(USE_INT8_LAYOUT_PATH, 'utf8'),
    );
  });

  it('the size the settings quote is what the app serves for it', () => {
    const served = resolve(repoRoot, 'public/models/use-lite');
    const files = [...Object.values(USE_LITE_INT8_FILES), 'vocab.json'];
    const total = files.reduce((sum, file) => sum + statSync(join(served, file)).size, 0);
    expect(total).toBe(USE_LITE_INT8_BYTES);
  });

  it('refuses a truncated or corrupt file, naming it', async () => {
    const served = resolve(repoRoot, 'public/models/use-lite');
    const manifest = JSON.parse(readFileSync(join(served, USE_LITE_INT8_FILES.manifest), 'utf8'));
    const graph = new Uint8Array(readFileSync(join(served, USE_LITE_INT8_FILES.graph)));
    await expect(checkInt8File(manifest, 'int8.onnx', graph)).resolves.toBeUndefined();
    await expect(checkInt8File(manifest, 'int8.onnx', graph.subarray(0, 1000))).rejects.toThrow(
      /int8\.onnx has 1000 bytes, 356260 expected/,
    );
    const flipped = graph.slice();
    flipped[5000] ^= 1;
    await expect(checkInt8File(manifest, 'int8.onnx', flipped)).rejects.toThrow(
      /int8\.onnx is corrupt/,
    );
  });
});

describe('USE-lite int8 vectors', () => {
  it('stay within cosine 0.99 of the exact model’s, and do not depend on the batch', async () => {
    const sentences = devSourceSentences(200);
    const exact = await loadUseLiteEmbedder({ precision: 'fp32', batchSize: 8 });
    const int8 = await loadUseLiteEmbedder({ precision: 'int8', batchSize: 8 });
    const alone = int8.withOptions({ batchSize: 1 });
    expect(int8.backend).toBe('use-lite int8 · WASM');
    const [a, b] = [await exact.embed(sentences), await int8.embed(sentences)];
    const cosines = a.map((vector, i) => cosine(vector, b[i]) ?? 0);
    expect(Math.min(...cosines)).toBeGreaterThan(0.99);
    // int8 is not the exact model: a route that ignored the precision would pass the line above
    expect(Math.min(...cosines)).toBeLessThan(0.99999);
    // Per-token quantisation: another batch changes only float rounding (the attention and layer
    // norms), never a quantisation step, which would move a vector by ~1e-3.
    const one = await alone.embed(sentences.slice(0, 24));
    let worst = 0;
    one.forEach((vector, i) =>
      vector.forEach((x, d) => (worst = Math.max(worst, Math.abs(x - b[i][d])))),
    );
    expect(worst).toBeLessThan(1e-6);
  }, 180_000);
});
