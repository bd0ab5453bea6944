/**
 * Node-only: read the GloVe asset from disk (CLI, benchmarks, tests). The browser fetches the same
 * file from `/embeddings/glove-100d.bin` and calls `parseGloveAsset` itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { repoRoot } from './external-data.ts';
import {
  GloveSifEmbedder,
  parseGloveAsset,
  type GloveAsset,
  type GloveSifOptions,
} from '../metrics/semantic/glove-sif.ts';

export const DEFAULT_GLOVE_PATH = resolve(repoRoot, 'public/embeddings/glove-100d.bin');

export function loadGloveAsset(path = DEFAULT_GLOVE_PATH): GloveAsset {
  if (!existsSync(path)) {
    throw new Error(`GloVe asset missing: ${path}. Build it with \`npm run assets\`.`);
  }
  return parseGloveAsset(readFileSync(path));
}

export function loadGloveEmbedder(
  options: GloveSifOptions = {},
  path = DEFAULT_GLOVE_PATH,
): GloveSifEmbedder {
  return new GloveSifEmbedder(loadGloveAsset(path), options);
}
