/** The Node disk cache of USE-lite vectors: survives a new process (a new instance), and a run killed mid-append loses only its last record. */
import { appendFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UseDiskCache } from '../../../src/lib/node/load-use.ts';
import { cachedEmbedding } from '../../../src/lib/metrics/semantic/vector-cache.ts';
import { USE_LITE_DIMENSIONS } from '../../../src/lib/metrics/semantic/use-lite.ts';

const RECORD = 32 + 1 + USE_LITE_DIMENSIONS * 4;

function vectorOf(x: number): Float32Array {
  const v = new Float32Array(USE_LITE_DIMENSIONS);
  v[0] = x;
  v[USE_LITE_DIMENSIONS - 1] = -x;
  return v;
}

describe('UseDiskCache', () => {
  it('serves vectors written by an earlier instance, and the encoder is not asked again', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sumlens-use-cache-')), 'v.bin');
    const asked: string[][] = [];
    const encoder = async (sentences: readonly string[]) => {
      asked.push([...sentences]);
      return {
        vectors: sentences.map((s) => vectorOf(s.length)),
        windowed: sentences.map((s) => s === 'long one'),
      };
    };
    await cachedEmbedding(new UseDiskCache(file), 'm', encoder)(['short', 'long one']);
    expect(statSync(file).size).toBe(2 * RECORD);

    const later = new UseDiskCache(file);
    expect(later.size).toBe(2);
    const again = await cachedEmbedding(later, 'm', encoder)(['long one', 'short', 'new']);
    expect(asked).toEqual([['short', 'long one'], ['new']]);
    expect(again.vectors.map((v) => [v[0], v[USE_LITE_DIMENSIONS - 1]])).toEqual([
      [8, -8],
      [5, -5],
      [3, -3],
    ]);
    expect(again.windowed).toEqual([true, false, false]);
  });

  it('drops a partial last record', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sumlens-use-cache-')), 'v.bin');
    new UseDiskCache(file).set('m', 'kept', { vector: vectorOf(1), windowed: false });
    appendFileSync(file, Buffer.alloc(100));
    const reopened = new UseDiskCache(file);
    expect(reopened.size).toBe(1);
    expect(reopened.get('m', 'kept')?.vector[0]).toBe(1);
    expect(statSync(file).size).toBe(RECORD);
  });
});
