/**
 * A sentence embedder with a disk cache, for the order-model scripts: USE-lite on TF.js WASM in
 * Node embeds about 15 sentences a second, so training and the shuffle test would otherwise spend
 * most of their time re-embedding the same article sentences. Vectors are keyed by the embedder's
 * backend string and a hash of the sentence, and stored as one binary file per backend under
 * `.cache/order-model/` (gitignored; the worktree's node_modules may be shared with other checkouts,
 * so the cache stays inside this one).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { repoRoot } from '../../src/lib/node/external-data.ts';
import type { SentenceEmbedder } from '../../src/lib/metrics/semantic/backends.ts';

const CACHE_DIR = resolve(repoRoot, '.cache/order-model');
const HASH_BYTES = 20;
/** Sentences embedded per call, and between saves, so an interrupted run keeps its work. */
const CHUNK = 64;

const hashOf = (sentence: string): string => createHash('sha1').update(sentence).digest('hex');

export class CachedEmbedder implements SentenceEmbedder {
  readonly backend: string;
  private readonly vectors = new Map<string, Float32Array>();
  private readonly file: string;
  private dims = 0;
  private unsaved = 0;

  constructor(private readonly inner: SentenceEmbedder) {
    this.backend = inner.backend;
    this.file = resolve(CACHE_DIR, `${hashOf(inner.backend).slice(0, 16)}.bin`);
    if (existsSync(this.file)) this.load();
  }

  /** Layout: u32 dims, then records of (20-byte sha1, dims × f32). */
  private load(): void {
    const buf = readFileSync(this.file);
    this.dims = buf.readUInt32LE(0);
    const record = HASH_BYTES + 4 * this.dims;
    for (let at = 4; at + record <= buf.length; at += record) {
      const key = buf.subarray(at, at + HASH_BYTES).toString('hex');
      const floats = new Float32Array(this.dims);
      for (let d = 0; d < this.dims; d++) floats[d] = buf.readFloatLE(at + HASH_BYTES + 4 * d);
      this.vectors.set(key, floats);
    }
  }

  save(): void {
    if (this.unsaved === 0) return;
    mkdirSync(CACHE_DIR, { recursive: true });
    const record = HASH_BYTES + 4 * this.dims;
    const buf = Buffer.alloc(4 + record * this.vectors.size);
    buf.writeUInt32LE(this.dims, 0);
    let at = 4;
    for (const [key, v] of this.vectors) {
      Buffer.from(key, 'hex').copy(buf, at);
      for (let d = 0; d < this.dims; d++) buf.writeFloatLE(v[d], at + HASH_BYTES + 4 * d);
      at += record;
    }
    writeFileSync(`${this.file}.tmp`, buf);
    renameSync(`${this.file}.tmp`, this.file);
    this.unsaved = 0;
  }

  get size(): number {
    return this.vectors.size;
  }

  async embed(sentences: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const keys = sentences.map(hashOf);
    const missing = [...new Set(sentences.filter((_, i) => !this.vectors.has(keys[i])))];
    for (let i = 0; i < missing.length; i += CHUNK) {
      const chunk = missing.slice(i, i + CHUNK);
      const got = await this.inner.embed(chunk, signal);
      got.forEach((v, j) => this.vectors.set(hashOf(chunk[j]), v));
      this.dims = got[0]?.length ?? this.dims;
      this.unsaved += chunk.length;
      if (this.unsaved >= CHUNK) this.save();
    }
    this.save();
    return keys.map((k) => this.vectors.get(k) as Float32Array);
  }
}
