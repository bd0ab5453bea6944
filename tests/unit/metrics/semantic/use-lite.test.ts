/**
 * The USE-lite core with a fake tokenizer and graph: windows for long sentences (averaged, and
 * reported), the zero vector for a sentence without tokens, results in input order whatever the
 * batching, and cancellation between batches. Also the model-file check that names a broken file.
 */
import { englishRef } from '../../../../src/lib/i18n/message.ts';
import { describe, expect, it } from 'vitest';
import {
  USE_LITE_DIMENSIONS,
  UseLiteEmbedder,
  windowedNote,
  type UseGraphRunner,
} from '../../../../src/lib/metrics/semantic/use-lite.ts';
import { checkUseModelFiles } from '../../../../src/lib/metrics/semantic/use-lite-tfjs.ts';

/** One id per word: the word's length. */
const tokenizer = {
  encode: (text: string) =>
    text
      .split(/\s+/u)
      .filter(Boolean)
      .map((w) => w.length),
};

/** Vector of a token list: [sum of ids, count of ids, first id, 0…]; records each batch. */
function fakeGraph() {
  const batches: number[][][] = [];
  const run: UseGraphRunner = async (ids) => {
    batches.push(ids.map((list) => [...list]));
    return ids.map((list) => {
      const v = new Float32Array(USE_LITE_DIMENSIONS);
      v[0] = list.reduce((a, b) => a + b, 0);
      v[1] = list.length;
      v[2] = list[0];
      return v;
    });
  };
  return { run, batches };
}

describe('UseLiteEmbedder', () => {
  it('averages the windows of a sentence longer than the window and says so', async () => {
    const { run, batches } = fakeGraph();
    const embedder = new UseLiteEmbedder('fake', tokenizer, run, { window: 2, batchSize: 8 });
    // "a bb ccc dddd e": ids 1 2 3 4 1 → windows [1,2] [3,4] [1].
    const { vectors, windowed } = await embedder.embedCounting(['a bb ccc dddd e', 'xy z']);
    expect(windowed).toEqual([true, false]);
    // Float32 sums divided in float32: compare with the float32 of each hand-computed mean.
    expect(Array.from(vectors[0].slice(0, 3))).toEqual([11 / 3, 5 / 3, 5 / 3].map(Math.fround));
    expect(Array.from(vectors[1].slice(0, 3))).toEqual([3, 2, 2]);
    expect(batches.flat()).toHaveLength(4);
    expect(englishRef(windowedNote(windowed, 2)!)).toBe(
      "1 sentence is longer than the encoder's window of 2 pieces: its vector is the mean of its windows.",
    );
    expect(windowedNote([false, false])).toBeUndefined();
  });

  it('gives the zero vector to a sentence without tokens, without asking the graph', async () => {
    const { run, batches } = fakeGraph();
    const embedder = new UseLiteEmbedder('fake', tokenizer, run);
    const vectors = await embedder.embed(['', '   ', 'ab']);
    expect(vectors.map((v) => v[0])).toEqual([0, 0, 2]);
    expect(vectors[0].every((x) => x === 0)).toBe(true);
    expect(batches).toEqual([[[2]]]);
  });

  it('keeps the input order although batches are sorted by length', async () => {
    const { run, batches } = fakeGraph();
    const embedder = new UseLiteEmbedder('fake', tokenizer, run, { batchSize: 2 });
    const sentences = ['one two three four', 'a', 'bb cc dd', 'e f'];
    const vectors = await embedder.embed(sentences);
    expect(vectors.map((v) => v[1])).toEqual([4, 1, 3, 2]);
    expect(vectors.map((v) => v[0])).toEqual([15, 1, 6, 2]);
    // Shortest first, two per call.
    expect(batches.map((b) => b.map((ids) => ids.length))).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('stops between batches when cancelled', async () => {
    const controller = new AbortController();
    let calls = 0;
    const run: UseGraphRunner = async (ids) => {
      calls++;
      controller.abort();
      return ids.map(() => new Float32Array(USE_LITE_DIMENSIONS));
    };
    const embedder = new UseLiteEmbedder('fake', tokenizer, run, { batchSize: 1 });
    await expect(embedder.embed(['a', 'b', 'c'], controller.signal)).rejects.toThrow(/cancelled/u);
    expect(calls).toBe(1);
  });

  it('refuses a graph that returns the wrong number of vectors', async () => {
    const run: UseGraphRunner = async () => [];
    const embedder = new UseLiteEmbedder('fake', tokenizer, run);
    await expect(embedder.embed(['a b'])).rejects.toThrow(
      'The encoder returned 0 vectors for 1 inputs.',
    );
  });
});

describe('checkUseModelFiles', () => {
  const modelJson = {
    modelTopology: {},
    // 10 + 6 floats = 64 bytes, in shards of 24 bytes: 24 + 24 + 16.
    weightsManifest: [
      {
        paths: ['s1', 's2', 's3'],
        weights: [
          { name: 'a', shape: [2, 5], dtype: 'float32' },
          { name: 'b', shape: [6], dtype: 'int32' },
        ],
      },
    ],
  };

  it('accepts shards that add up to the weights', () => {
    expect(() =>
      checkUseModelFiles(modelJson, [
        { path: 's1', bytes: 24 },
        { path: 's2', bytes: 24 },
        { path: 's3', bytes: 16 },
      ]),
    ).not.toThrow();
  });

  it('names the truncated shard', () => {
    expect(() =>
      checkUseModelFiles(modelJson, [
        { path: 's1', bytes: 24 },
        { path: 's2', bytes: 10 },
        { path: 's3', bytes: 16 },
      ]),
    ).toThrow('s2 has 10 bytes: the weights add up to 50 bytes, model.json describes 64');
    expect(() =>
      checkUseModelFiles(modelJson, [
        { path: 's1', bytes: 24 },
        { path: 's2', bytes: 24 },
        { path: 's3', bytes: 3 },
      ]),
    ).toThrow(/^s3 has 3 bytes/u);
  });

  it('names model.json when it is not a graph model', () => {
    expect(() => checkUseModelFiles({ format: 'layers-model' }, [])).toThrow(
      'model.json is not a TF.js graph model',
    );
  });
});
