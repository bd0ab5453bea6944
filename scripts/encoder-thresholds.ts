/**
 * `npx tsx scripts/encoder-thresholds.ts [--articles N]`: derives, per built-in encoder, the
 * thresholds the support and redundancy metrics flag with, from SummEval dev, and stores them in
 * src/lib/metrics/semantic/encoder-thresholds.json.
 *
 * - support: the 10th percentile of the best source-match cosines of all system-summary
 *   sentences. A flagged sentence has a closer-to-nothing match than 90% of the sentences that
 *   sixteen summarisers wrote about these articles; that is a risk, never a verdict.
 * - redundancy: the 99th percentile of the cosines between two different sentences of one source
 *   article. Professional news writing rarely says a thing twice, so a summary pair above it is
 *   more alike than 99% of the sentence pairs of an article: likely the same thing said again.
 *
 * The thresholds only decide which sentences or pairs are flagged; the scores do not use them, so
 * deriving them on the data set the validity report uses does not touch its correlations.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { repoRoot } from '../src/lib/node/external-data.ts';
import { loadGloveEmbedder } from '../src/lib/node/load-glove.ts';
import { loadUseLiteEmbedder } from '../src/lib/node/load-use.ts';
import { readDevRows } from '../src/lib/node/validity/summeval.ts';
import { sharingEmbeddings, type SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import { cosine } from '../src/lib/metrics/semantic/coherence/coherence.ts';
import {
  bestSourceMatches,
  caseSentences,
  embedCase,
} from '../src/lib/metrics/semantic/sentence-alignment.ts';

const SUPPORT_PERCENTILE = 10;
const REDUNDANCY_PERCENTILE = 99;
const OUT = resolve(repoRoot, 'src/lib/metrics/semantic/encoder-thresholds.json');

/** Linear interpolation between closest ranks (numpy's default). */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** Both thresholds for one encoder (npm run int8:agreement runs it for fp32 and int8 USE-lite). */
export async function thresholdsOf(embedder: SentenceEmbedder, articles?: number) {
  const rows = readDevRows(articles);
  const best: number[] = [];
  const articlePairs: number[] = [];
  const seen = new Set<string>();
  // One shared cache for the whole run: the 16 summaries of an article share its source.
  const shared = sharingEmbeddings(embedder);
  for (const [i, row] of rows.entries()) {
    const sentences = caseSentences({ source: row.text, summary: row.decoded });
    const vectors = await embedCase(sentences, shared);
    if ('error' in vectors) throw new Error(`${row.id}: ${vectors.error}`);
    for (const m of bestSourceMatches(sentences, vectors)) if (m) best.push(m.similarity);
    if (!seen.has(row.id)) {
      seen.add(row.id);
      for (let a = 0; a < vectors.source.length; a++) {
        for (let b = a + 1; b < vectors.source.length; b++) {
          const c = cosine(vectors.source[a], vectors.source[b]);
          if (c !== null) articlePairs.push(c);
        }
      }
    }
    process.stderr.write(`${embedder.backend.slice(0, 20)}: ${i + 1}/${rows.length}\r`);
  }
  process.stderr.write('\n');
  return {
    support: {
      threshold: round4(percentile(best, SUPPORT_PERCENTILE)),
      percentile: SUPPORT_PERCENTILE,
      sentences: best.length,
    },
    redundancy: {
      threshold: round4(percentile(articlePairs, REDUNDANCY_PERCENTILE)),
      percentile: REDUNDANCY_PERCENTILE,
      pairs: articlePairs.length,
    },
    articles: seen.size,
    summaries: rows.length,
    backend: embedder.backend,
  };
}

async function main() {
  const { values } = parseArgs({ options: { articles: { type: 'string' } } });
  const articles = values.articles ? Number(values.articles) : undefined;
  const glove = await thresholdsOf(loadGloveEmbedder(), articles);
  const use = await thresholdsOf(await loadUseLiteEmbedder(), articles);
  const table = {
    derivation:
      'scripts/encoder-thresholds.ts on SummEval dev: support = 10th percentile of the best source-match cosine of every system-summary sentence; redundancy = 99th percentile of the cosine of two different sentences of one source article. Keys are backend-name prefixes.',
    // GloVe's name carries its SIF settings: other settings change the cosines and get no threshold.
    backends: { [glove.backend]: glove, 'use-lite': use },
  };
  writeFileSync(OUT, `${JSON.stringify(table, null, 2)}\n`);
  console.log(JSON.stringify(table, null, 2));
}

// Run as a command, not when int8-agreement imports thresholdsOf.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
