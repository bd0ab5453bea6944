/**
 * What the CLI's offline metrics run on, in the main thread or in a worker thread alike: the
 * sentence encoder (USE-lite or GloVe), compromise's recogniser and jieba, each loaded when a row
 * first needs it.
 */
import { lazy } from '../lib/lazy.ts';
import { loadJiebaNode } from '../lib/metrics/lexical/jieba.ts';
import type { OfflineBackends } from '../lib/metrics/offline.ts';
import type { SentenceEmbedder } from '../lib/metrics/semantic/backends.ts';

export const EMBEDDINGS = ['use-lite', 'glove'] as const;
export type EmbeddingChoice = (typeof EMBEDDINGS)[number];

export function offlineBackends(embedder: () => Promise<SentenceEmbedder>): OfflineBackends {
  return {
    embedder: lazy(embedder),
    // The fact check's compromise: both read the row's summary, which is then parsed once.
    recognizer: lazy(async () =>
      (await import('../lib/metrics/lexical/fact-check/record.ts')).loadCompromise(),
    ),
    wordSegmenter: lazy(async () => loadJiebaNode()),
  };
}

/**
 * The GloVe vectors (--embedding glove) are built from an npm package on first use, by the main
 * thread before any worker loads them. This used to be a `prescore` hook, whose npm banners and
 * build lines went to stdout, before the JSON lines.
 */
export async function buildGlove(): Promise<void> {
  const { buildEmbeddingAsset } = await import('../lib/node/embedding-asset.ts');
  const built = buildEmbeddingAsset();
  if (!built.skipped) {
    console.error(
      `Built the GloVe vectors once: ${built.output} (${(built.ms.total / 1000).toFixed(1)} s).`,
    );
  }
}

export async function loadGlove(): Promise<SentenceEmbedder> {
  return (await import('../lib/node/load-glove.ts')).loadGloveEmbedder();
}
