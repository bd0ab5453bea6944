/**
 * `npm run fit:quality`: fits the offline quality estimate (quality-offline) across the vendored
 * human-rated data sets and prints what it reaches on data it was not fit on (how:
 * src/lib/node/quality-fit.ts):
 * - faithfulness, left out one data-set family at a time (ingredients, penalty chosen without it);
 * - every dimension on SummEval dev by 10 article folds (faithfulness also trained on the other
 *   families), the score's summary-level Spearman with expert coherence and consistency, its
 *   system-level Kendall τ with expert coherence over the 12 systems, and the comparison of the
 *   abstractive systems M23, M22, M17 with M12, M13 (paired bootstrap over articles, as the
 *   comparison view computes it);
 * - the degenerate cases (a word, the source's opening, a cut-off text, a repeated sentence).
 * The stored weights are the fit on everything (faithfulness: every family; coverage and coherence:
 * all of SummEval dev), with the held-out figures the card quotes.
 *
 * Usage: npm run fit:quality              print
 *        npm run fit:quality -- --write   also store src/lib/metrics/lexical/quality-offline/quality-weights.json
 */
import { writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  QUALITY_DIMENSIONS,
  type DimensionModel,
  type HeldOutFigure,
  type QualityDimension,
  type QualityWeights,
} from '../src/lib/metrics/lexical/quality-offline/quality-model.ts';
import { repoRoot } from '../src/lib/node/external-data.ts';
import { ARTICLE_FOLDS, RATED_BY } from '../src/lib/node/quality-fit.ts';
import { fitSelected, select } from '../src/lib/node/quality-select.ts';
import { setFigures, storedModel, type SetFigures } from '../src/lib/node/quality-figures.ts';
import { qualitySamples, type QualitySample } from '../src/lib/node/quality-samples.ts';
import { heldOutPredictions } from '../src/lib/node/quality-validation.ts';
import { kendallTauB, summaryLevel } from '../src/lib/stats/correlation.ts';
import { pairedBootstrap } from '../src/lib/stats/paired-bootstrap.ts';

const WEIGHTS_FILE = resolve(
  repoRoot,
  'src/lib/metrics/lexical/quality-offline/quality-weights.json',
);
const f3 = (x: number | null) => (x === null ? '—' : x.toFixed(3));

function printFigures(title: string, rows: SetFigures[]): void {
  console.log(`\n${title}`);
  console.log(
    `${'data set'.padEnd(22)}${'summaries'.padStart(10)}${'sources'.padStart(9)}${'Spearman'.padStart(10)}${'Kendall'.padStart(9)}${'pooled ρ'.padStart(10)}${'AUC'.padStart(8)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.dataset.padEnd(22)}${String(r.summaries).padStart(10)}${String(r.sources).padStart(9)}${f3(r.summarySpearman).padStart(10)}${f3(r.summaryKendall).padStart(9)}${f3(r.pooledSpearman).padStart(10)}${f3(r.auc).padStart(8)}`,
    );
  }
}

interface DevPredictions {
  byDimension: Record<QualityDimension, number[]>;
  score: number[];
}

function devReport(
  samples: readonly QualitySample[],
  predictions: DevPredictions,
): HeldOutFigure[] {
  const dev = samples.filter((s) => s.dataset === 'summeval-dev');
  const figure = (values: readonly number[], against: 'coherence' | 'faithfulness' | 'coverage') =>
    summaryLevel(
      'spearman',
      dev.map((s, i) => ({ group: s.group, metric: values[i], human: s.human[against]! })),
    ).value;
  console.log(`\nSummEval dev, ${ARTICLE_FOLDS} article folds (summary-level Spearman)`);
  console.log(
    `${'estimate'.padEnd(16)}${'coherence'.padStart(11)}${'consistency'.padStart(13)}${'relevance'.padStart(11)}`,
  );
  const rows: Array<[string, readonly number[]]> = [
    ...QUALITY_DIMENSIONS.map((d) => [d, predictions.byDimension[d]] as [string, number[]]),
    ['score', predictions.score],
  ];
  for (const [name, values] of rows) {
    console.log(
      `${name.padEnd(16)}${f3(figure(values, 'coherence')).padStart(11)}${f3(figure(values, 'faithfulness')).padStart(13)}${f3(figure(values, 'coverage')).padStart(11)}`,
    );
  }

  const systems = [...new Set(dev.map((s) => s.system!))].sort();
  const meanOf = (values: readonly number[], system: string) => {
    const picked = values.filter((_, i) => dev[i].system === system);
    return picked.reduce((a, b) => a + b, 0) / picked.length;
  };
  const humanCoherence = dev.map((s) => s.human.coherence!);
  const tau = kendallTauB(
    systems.map((m) => meanOf(predictions.score, m)),
    systems.map((m) => meanOf(humanCoherence, m)),
  );
  console.log(
    `\nsystem level (${systems.length} systems): Kendall τ with expert coherence ${f3(tau)}`,
  );
  for (const d of QUALITY_DIMENSIONS) {
    const t = kendallTauB(
      systems.map((m) => meanOf(predictions.byDimension[d], m)),
      systems.map((m) => meanOf(humanCoherence, m)),
    );
    console.log(`  ${d} estimate alone: τ ${f3(t)}`);
  }
  const ranked = systems
    .map((m) => ({ m, score: meanOf(predictions.score, m), human: meanOf(humanCoherence, m) }))
    .sort((a, b) => b.score - a.score);
  console.log(
    ranked
      .map((r, i) => `${i + 1}. ${r.m} ${r.score.toFixed(3)} (experts ${r.human.toFixed(2)})`)
      .join('\n'),
  );

  console.log('\ncomparison view on dev (B − A, paired by article, 95% bootstrap interval)');
  const articles = [...new Set(dev.map((s) => s.group))].sort();
  const scoreOf = (system: string) =>
    articles.map(
      (a) => predictions.score[dev.findIndex((s) => s.group === a && s.system === system)],
    );
  for (const better of ['M23', 'M22', 'M17']) {
    for (const worse of ['M12', 'M13']) {
      const interval = pairedBootstrap(scoreOf(worse), scoreOf(better));
      if (!interval) continue;
      const verdict =
        interval.low > 0 ? 'B better' : interval.high < 0 ? 'A better' : 'no difference shown';
      console.log(
        `  A ${worse} → B ${better}: Δ ${interval.mean >= 0 ? '+' : ''}${interval.mean.toFixed(3)} [${interval.low.toFixed(3)}, ${interval.high.toFixed(3)}]  ${verdict}`,
      );
    }
  }
  const heldOut: HeldOutFigure[] = [];
  for (const d of QUALITY_DIMENSIONS) {
    const value = figure(
      predictions.byDimension[d],
      RATED_BY[d] as 'coherence' | 'faithfulness' | 'coverage',
    );
    if (value !== null) {
      heldOut.push({
        dataset: `summeval-dev (${ARTICLE_FOLDS} article folds)`,
        against:
          d === 'faithfulness' ? 'consistency' : d === 'coverage' ? 'relevance' : 'coherence',
        measure: 'summary-spearman',
        value,
      });
    }
  }
  return heldOut;
}

function describeFit(samples: readonly QualitySample[], dimension: QualityDimension): string {
  const rated = RATED_BY[dimension];
  const used = samples.filter((s) => s.human[rated] !== undefined);
  const families = [...new Set(used.map((s) => s.family))];
  return `${used.length} summaries of ${families.join(', ')}; pairs within a source`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { write: { type: 'boolean', default: false } } });
  const started = performance.now();
  const samples = await qualitySamples((done, total) => {
    if (done % 500 === 0 || done === total) process.stderr.write(`signals ${done}/${total}\r`);
  });
  process.stderr.write(
    `\n${((performance.now() - started) / 1000).toFixed(1)} s for the signals\n`,
  );
  const counts = new Map<string, number>();
  for (const s of samples) counts.set(s.dataset, (counts.get(s.dataset) ?? 0) + 1);
  console.log(`data sets: ${[...counts].map(([d, n]) => `${d} ${n}`).join(', ')}`);

  const held = heldOutPredictions(samples);
  for (const s of held.selections) {
    console.log(
      `without ${s.family}: ${s.features.join(' + ')} (λ ${s.lambda}, inner concordance ${s.inner.toFixed(3)})`,
    );
  }
  printFigures('faithfulness estimate, each family left out (fit on the others)', held.figures);
  printFigures(
    'score (left out: faithfulness as above; coverage and coherence fit on SummEval dev only)',
    [...new Set(samples.map((s) => s.dataset))]
      .filter((d) => d !== 'summeval-dev')
      .map((dataset) => {
        const idx = samples.flatMap((s, i) => (s.dataset === dataset ? [i] : []));
        return setFigures(
          dataset,
          idx.map((i) => samples[i]),
          idx.map((i) => held.score[i]),
          'faithfulness',
        );
      }),
  );
  const devHeldOut = devReport(samples, {
    byDimension: held.dev.byDimension,
    score: held.dev.indices.map((i) => held.score[i]),
  });
  const lofo = held;

  const dimensions = {} as Record<QualityDimension, DimensionModel>;
  console.log('\nstored models (fit on everything):');
  for (const dimension of QUALITY_DIMENSIONS) {
    const train =
      dimension === 'faithfulness' ? samples : samples.filter((s) => s.dataset === 'summeval-dev');
    const selection = select(train, dimension);
    const model = fitSelected(train, dimension, selection);
    const heldOut = [
      ...(dimension === 'faithfulness' ? lofo.heldOut : []),
      ...devHeldOut.filter(
        (h) =>
          h.against ===
          ({ faithfulness: 'consistency', coverage: 'relevance', coherence: 'coherence' } as const)[
            dimension
          ],
      ),
    ];
    dimensions[dimension] = storedModel(model, describeFit(train, dimension), heldOut);
    console.log(`  ${dimension} (λ ${model.lambda}):`);
    model.features.forEach((id, j) =>
      console.log(`    ${id.padEnd(24)} weight ${model.weights[j].toFixed(3)}`),
    );
  }
  const weights: QualityWeights = {
    method:
      'pairwise logistic regression on summaries of one source; ingredients and penalty chosen by leave-one-data-set-out (faithfulness) or article-fold (coverage, coherence) validation',
    dimensions,
  };
  console.error(`${((performance.now() - started) / 1000).toFixed(1)} s in all`);
  if (values.write) {
    writeFileSync(WEIGHTS_FILE, `${JSON.stringify(weights, null, 2)}\n`);
    console.error(`wrote ${relative(repoRoot, WEIGHTS_FILE)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
