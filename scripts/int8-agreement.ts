/**
 * `npm run int8:agreement`: does USE-lite's int8 model (the page's default encoder) behave as the
 * fp32 one on everything the encoder feeds? Each figure comes from the code that made the shipped
 * one, run on both models: the shuffle test of measure-coherence.ts, the encoder metrics' validity
 * rows of src/lib/node/validity/compute.ts (what `npm run validity` runs), the support and
 * redundancy thresholds of encoder-thresholds.ts; and the cosine between the two models' vectors
 * of every sentence those read. The comparison and the verdicts are src/lib/node/int8-agreement.ts.
 *
 * Prints the report and writes bench/results/int8-agreement.json. Vectors come from (and are added
 * to) the disk cache of each model, so a second run embeds nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { messageOf } from '../src/lib/errors.ts';
import { cosine } from '../src/lib/metrics/semantic/coherence/coherence.ts';
import { CompromiseRecognizer } from '../src/lib/metrics/semantic/compromise-ner.ts';
import {
  ENCODER_THRESHOLDS,
  thresholdsFor,
} from '../src/lib/metrics/semantic/sentence-alignment.ts';
import { repoRoot } from '../src/lib/node/external-data.ts';
import {
  agreementSentences,
  cosineSummary,
  figureDelta,
  formatAgreement,
  validityDeltas,
  withChecks,
} from '../src/lib/node/int8-agreement.ts';
import { loadUseLiteEmbedder, type NodeUseLiteEmbedder } from '../src/lib/node/load-use.ts';
import { encoderVariant, metricRows } from '../src/lib/node/validity/compute.ts';
import { readRatedSets } from '../src/lib/node/validity/rated-sets.ts';
import { readDevRows } from '../src/lib/node/validity/summeval.ts';
import { thresholdsOf } from './encoder-thresholds.ts';
import { SCORES, SHUFFLES, shuffleTest } from './measure-coherence.ts';

const OUT = resolve(repoRoot, 'bench/results/int8-agreement.json');
/** Sentences per call: progress on stderr, and the disk cache written as it goes. */
const CHUNK = 256;

async function embedAll(embedder: NodeUseLiteEmbedder, sentences: string[]) {
  const vectors: Float32Array[] = [];
  for (let i = 0; i < sentences.length; i += CHUNK) {
    vectors.push(...(await embedder.embed(sentences.slice(i, i + CHUNK))));
    process.stderr.write(`${embedder.backend}: ${vectors.length}/${sentences.length}\r`);
  }
  process.stderr.write('\n');
  return vectors;
}

async function main(): Promise<void> {
  const fp32 = await loadUseLiteEmbedder({ diskCache: true });
  const int8 = await loadUseLiteEmbedder({ precision: 'int8', diskCache: true });
  const dev = readDevRows();

  const qags = readRatedSets({ families: ['qags'] });
  const sentences = agreementSentences(
    dev,
    qags.map((r) => r.summary),
  );
  const [exact, quantised] = [await embedAll(fp32, sentences), await embedAll(int8, sentences)];
  const cosines = sentences.map((sentence, i) => ({
    sentence,
    cosine: cosine(exact[i], quantised[i]) ?? Number.NaN,
  }));
  if (cosines.some((c) => Number.isNaN(c.cosine))) throw new Error('a zero sentence vector');

  const [shuffleFp32, shuffleInt8] = [
    await shuffleTest('use-lite', fp32, SHUFFLES),
    await shuffleTest('use-lite', int8, SHUFFLES),
  ];

  const compromise = new CompromiseRecognizer();
  const rows = await metricRows(
    dev,
    [
      encoderVariant('use-lite', fp32, compromise),
      encoderVariant('use-lite-int8', int8, compromise),
    ],
    (done, total) => {
      if (done % 100 === 0 || done === total) process.stderr.write(`validity ${done}/${total}\r`);
    },
  );
  process.stderr.write('\n');

  const [thresholdsFp32, thresholdsInt8] = [await thresholdsOf(fp32), await thresholdsOf(int8)];
  const shipped = thresholdsFor(int8.backend);
  const shippedKey = Object.keys(ENCODER_THRESHOLDS).find((k) => ENCODER_THRESHOLDS[k] === shipped);

  const report = withChecks({
    backends: { fp32: fp32.backend, int8: int8.backend },
    sentences: {
      from: `every sentence the encoder metrics embed for SummEval dev (${new Set(dev.map((r) => r.id)).size} sources, ${dev.length} system summaries) and of the ${qags.length} QAGS CNN/DM and XSum summaries, each once`,
      cosine: cosineSummary(cosines.map((c) => c.cosine)),
      lowest: cosines.sort((a, b) => a.cosine - b.cosine).slice(0, 5),
    },
    shuffle: {
      pairs: shuffleFp32.pairs,
      articles: shuffleFp32.articles,
      figures: SCORES.map((s) =>
        figureDelta(s.label, 'share', shuffleFp32.row.share[s.name], shuffleInt8.row.share[s.name]),
      ),
    },
    validity: {
      dataset: `SummEval dev, ${dev.length} summaries`,
      figures: validityDeltas(
        rows.filter((r) => r.backend === fp32.backend),
        rows.filter((r) => r.backend === int8.backend),
      ),
    },
    thresholds: {
      figures: (['support', 'redundancy'] as const).map((which) =>
        figureDelta(
          `${which} (${thresholdsFp32[which].percentile}th percentile)`,
          'threshold',
          thresholdsFp32[which].threshold,
          thresholdsInt8[which].threshold,
        ),
      ),
      shipped:
        shipped && shippedKey !== undefined
          ? {
              key: shippedKey,
              support: shipped.support.threshold,
              redundancy: shipped.redundancy.threshold,
            }
          : null,
    },
  });

  console.log(formatAgreement(report));
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);
  console.error(`wrote ${relative(repoRoot, OUT)}`);
}

main().catch((error: unknown) => {
  console.error(messageOf(error));
  process.exit(1);
});
