/**
 * The reference for USE-lite parity tests: Google's own `UniversalSentenceEncoder` from
 * @tensorflow-models/universal-sentence-encoder, its `load()` fetching the same model and
 * vocabulary files from a loopback server (as it would from its CDN), and its `embed()` doing its
 * own tokenising and sparse input. Loaded through `require`, so it runs on its own CommonJS copy of
 * TF.js (WASM backend), apart from the app's.
 */
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { splitSentences } from '../../src/lib/metrics/text/tokenize.ts';
import { externalPath } from '../../src/lib/node/external-data.ts';
import { USE_MODEL_DIR } from '../../src/lib/node/load-use.ts';

const require = createRequire(import.meta.url);

interface TensorLike {
  array(): Promise<number[][]>;
  dispose(): void;
}

interface ReferenceEncoder {
  load(config: { modelUrl: string; vocabUrl: string }): Promise<void>;
  embed(inputs: string[]): Promise<TensorLike>;
  tokenizer: { encode(text: string): number[] };
}

/** Distinct sentences of the SummEval dev sources, a few from each article, in file order. */
export function summevalSentences(count: number, perArticle = 8): string[] {
  const lines = readFileSync(externalPath('data/summeval/dev.jsonl'), 'utf8').trim().split('\n');
  const seen = new Set<string>();
  const out: string[] = [];
  for (const line of lines) {
    const { text } = JSON.parse(line) as { text: string };
    if (seen.has(text)) continue;
    seen.add(text);
    for (const s of splitSentences(text).slice(0, perArticle)) {
      if (out.length < count && !out.includes(s.text)) out.push(s.text);
    }
    if (out.length >= count) break;
  }
  return out;
}

export async function referenceEncoder(): Promise<{
  embed(sentences: string[], batch?: number): Promise<Float32Array[]>;
  tokenCount(sentence: string): number;
  close(): Promise<void>;
}> {
  const tf = require('@tensorflow/tfjs-core') as typeof import('@tensorflow/tfjs-core');
  const wasm =
    require('@tensorflow/tfjs-backend-wasm') as typeof import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(
    dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm')) + '/',
  );
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('reference TF.js WASM did not start');
  const server = createServer((req, res) => {
    const file = join(USE_MODEL_DIR, new URL(req.url ?? '/', 'http://x').pathname.slice(1));
    try {
      res.writeHead(200, { 'Content-Length': statSync(file).size });
      createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { UniversalSentenceEncoder } = require('@tensorflow-models/universal-sentence-encoder') as {
    UniversalSentenceEncoder: new () => ReferenceEncoder;
  };
  const use = new UniversalSentenceEncoder();
  await use.load({ modelUrl: `${base}/model.json`, vocabUrl: `${base}/vocab.json` });
  return {
    async embed(sentences, batch = 16) {
      const out: Float32Array[] = [];
      for (let i = 0; i < sentences.length; i += batch) {
        const tensor = await use.embed(sentences.slice(i, i + batch));
        for (const row of await tensor.array()) out.push(Float32Array.from(row));
        tensor.dispose();
      }
      return out;
    },
    tokenCount: (sentence) => use.tokenizer.encode(sentence).length,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

export function maxAbsDifference(a: readonly Float32Array[], b: readonly Float32Array[]): number {
  if (a.length !== b.length) throw new Error(`${a.length} vectors against ${b.length}`);
  let max = 0;
  a.forEach((v, i) => {
    if (v.length !== b[i].length)
      throw new Error(`vector ${i}: ${v.length} against ${b[i].length}`);
    for (let d = 0; d < v.length; d++) max = Math.max(max, Math.abs(v[d] - b[i][d]));
  });
  return max;
}
