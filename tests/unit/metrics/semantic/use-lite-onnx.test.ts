import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUseLiteEmbedder, USE_GRAPH_PATH } from '../../../../src/lib/node/load-use.ts';
import { loadUseOnnxEmbedder } from '../../../../src/lib/node/load-use-onnx.ts';
import { devSourceSentences } from '../../../../src/lib/node/summeval-sentences.ts';
import {
  useOnnxRunner,
  type OrtModuleLike,
  type OrtSessionLike,
  type OrtTensorLike,
} from '../../../../src/lib/metrics/semantic/use-lite-onnx.ts';

const CONVERTER = 'scripts/models/convert_use_onnx.py';

class FakeTensor implements OrtTensorLike {
  disposed = false;
  constructor(
    readonly type: string,
    readonly data: unknown,
    readonly dims: readonly number[],
  ) {}
  dispose() {
    this.disposed = true;
  }
}

function fakeSession(
  rows: number,
  names = { inputs: ['indices', 'values'], output: 'embeddings' },
) {
  const fed: Record<string, OrtTensorLike>[] = [];
  const session: OrtSessionLike = {
    inputNames: names.inputs,
    outputNames: [names.output],
    async run(feeds) {
      fed.push(feeds);
      // row r's vector is [r, r + 0.5]: the runner must cut the flat output by rows
      const data = new Float32Array(rows * 2).map((_, i) => Math.floor(i / 2) + (i % 2) / 2);
      return { [names.output]: new FakeTensor('float32', data, [rows, 2]) };
    },
  };
  return { session, fed };
}

const Tensor = FakeTensor as unknown as OrtModuleLike<unknown>['Tensor'];

describe('USE-lite ONNX runner', () => {
  it('feeds (row, position) pairs and SentencePiece ids, and cuts the output by rows', async () => {
    const { session, fed } = fakeSession(2);
    const run = useOnnxRunner(session, Tensor);
    const vectors = await run([[7, 8, 9], [4]]);
    expect(Array.from(fed[0].indices.data as Int32Array)).toEqual([0, 0, 0, 1, 0, 2, 1, 0]);
    expect(fed[0].indices.dims).toEqual([4, 2]);
    expect(Array.from(fed[0].values.data as Int32Array)).toEqual([7, 8, 9, 4]);
    expect(vectors.map((v) => Array.from(v))).toEqual([
      [0, 0.5],
      [1, 1.5],
    ]);
    expect((fed[0].indices as FakeTensor).disposed).toBe(true);
  });

  it('runs one batch at a time: a WASM session fails a run started while another is in flight', async () => {
    const { session } = fakeSession(1);
    let inFlight = 0;
    const plain = session.run.bind(session);
    session.run = async (feeds) => {
      // As onnxruntime-web does: a second run during the first fails.
      if (inFlight > 0) throw new TypeError("Cannot read properties of null (reading '3')");
      inFlight++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      try {
        return await plain(feeds);
      } finally {
        inFlight--;
      }
    };
    const run = useOnnxRunner(session, Tensor);
    const all = await Promise.all([run([[1]]), run([[2]]), run([[3]]), run([[4]])]);
    expect(all.map((vectors) => vectors.length)).toEqual([1, 1, 1, 1]);
  });

  it('refuses a model without the converted graph’s inputs and output, naming what is missing', () => {
    const { session } = fakeSession(1, { inputs: ['input_ids'], output: 'last_hidden_state' });
    expect(() => useOnnxRunner(session, Tensor)).toThrow(
      /not the converted USE-lite graph: it lacks indices, values, embeddings/,
    );
  });

  it('refuses an empty token list (its row would vanish and the vectors shift)', async () => {
    const { session } = fakeSession(1);
    await expect(useOnnxRunner(session, Tensor)([[5], []])).rejects.toThrow(/empty token list/);
  });

  it('says when the graph returns another number of rows than it was given', async () => {
    const { session } = fakeSession(1);
    await expect(useOnnxRunner(session, Tensor)([[5], [6]])).rejects.toThrow(
      /returned 1 vectors for 2 inputs/,
    );
  });
});

describe('USE-lite converted to ONNX', () => {
  let dir: string;
  let modelPath: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'use-onnx-'));
    modelPath = join(dir, 'a.onnx');
    execFileSync('/usr/bin/python3', [
      CONVERTER,
      '--out',
      modelPath,
      '--graph-out',
      join(dir, 'a-graph.onnx'),
    ]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('converts deterministically: a second run writes the same bytes', () => {
    const second = join(dir, 'b.onnx');
    execFileSync('/usr/bin/python3', [
      CONVERTER,
      '--out',
      second,
      '--graph-out',
      join(dir, 'b-graph.onnx'),
    ]);
    expect(readFileSync(second).equals(readFileSync(modelPath))).toBe(true);
    expect(
      readFileSync(join(dir, 'b-graph.onnx')).equals(readFileSync(join(dir, 'a-graph.onnx'))),
    ).toBe(true);
  });

  it('the committed graph is what the converter makes, and it points into the shards, not copies them', () => {
    expect(readFileSync(join(dir, 'a-graph.onnx')).equals(readFileSync(USE_GRAPH_PATH))).toBe(true);
    expect(statSync(USE_GRAPH_PATH).size).toBeLessThan(1_000_000);
  });

  it('gives the TF.js route’s vectors within 1e-4 per dimension on 240 SummEval source sentences', async () => {
    const sentences = devSourceSentences(240);
    const onnx = await loadUseOnnxEmbedder({ modelPath });
    const tfjs = await loadUseLiteEmbedder({ runtime: 'tfjs' });
    // The page's route: the committed graph on onnxruntime-web WASM, its weights the TF.js shards.
    const graph = await loadUseLiteEmbedder();
    const [a, b] = [await onnx.embed(sentences), await tfjs.embed(sentences)];
    const c = await graph.embed(sentences);
    let worst = 0;
    c.forEach((vector, i) =>
      vector.forEach((x, d) => (worst = Math.max(worst, Math.abs(x - b[i][d])))),
    );
    a.forEach((vector, i) =>
      vector.forEach((x, d) => (worst = Math.max(worst, Math.abs(x - b[i][d])))),
    );
    expect(a).toHaveLength(240);
    expect(worst).toBeLessThan(1e-4);
    // vectors are unit length: a graph that zeroed its output would pass the difference check
    // only if both routes did, so check one route is not degenerate
    expect(Math.hypot(...a[0])).toBeCloseTo(1, 4);
  }, 180_000);
});
