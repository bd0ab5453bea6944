/**
 * `npm run fit:quality`: fits the weights of the offline quality estimate (quality-offline) on
 * SummEval dev and prints, per dimension, the summary-level Spearman cross-validated over article
 * folds and in-sample (how: src/lib/node/quality-fit.ts). The stored weights are the fit on all
 * 600 summaries; the card quotes the cross-validated figure.
 *
 * Usage: npm run fit:quality              print the table
 *        npm run fit:quality -- --write   also store src/lib/metrics/lexical/quality-weights.json
 */
import { writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  QUALITY_DIMENSIONS,
  type QualityWeights,
} from '../src/lib/metrics/lexical/quality-model.ts';
import { repoRoot } from '../src/lib/node/external-data.ts';
import {
  devSamples,
  finalModel,
  INNER_FOLDS,
  LAMBDAS,
  OUTER_FOLDS,
} from '../src/lib/node/quality-fit.ts';
import { readDevRows } from '../src/lib/node/validity/summeval.ts';

const WEIGHTS_FILE = resolve(repoRoot, 'src/lib/metrics/lexical/quality-weights.json');

function main(): void {
  const { values } = parseArgs({ options: { write: { type: 'boolean', default: false } } });
  const samples = devSamples(readDevRows());
  const articles = new Set(samples.map((s) => s.group)).size;
  console.log(
    `SummEval dev: ${samples.length} summaries of ${articles} articles; summary-level Spearman`,
  );
  console.log(
    `${'dimension'.padEnd(12)}${`CV (${OUTER_FOLDS} article folds)`.padStart(24)}${'in-sample'.padStart(12)}${'λ'.padStart(8)}`,
  );
  const dimensions = {} as QualityWeights['dimensions'];
  for (const dimension of QUALITY_DIMENSIONS) {
    const model = finalModel(samples, dimension);
    dimensions[dimension] = model;
    console.log(
      `${dimension.padEnd(12)}${model.cvSummarySpearman.toFixed(3).padStart(24)}${model.inSampleSummarySpearman.toFixed(3).padStart(12)}${String(model.lambda).padStart(8)}`,
    );
    for (const [j, id] of model.features.entries()) {
      console.log(`${''.padEnd(14)}${id.padEnd(20)} weight ${model.weights[j].toFixed(3)}`);
    }
  }
  const weights: QualityWeights = {
    dataset: `SummEval dev (${samples.length} summaries, ${articles} articles, mean of 3 experts)`,
    cv: `${OUTER_FOLDS} folds of articles; ridge penalty chosen by an inner ${INNER_FOLDS}-fold article CV from ${LAMBDAS.join(', ')}`,
    dimensions,
  };
  if (values.write) {
    writeFileSync(WEIGHTS_FILE, `${JSON.stringify(weights, null, 2)}\n`);
    console.error(`wrote ${relative(repoRoot, WEIGHTS_FILE)}`);
  }
}

main();
