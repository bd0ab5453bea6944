/**
 * Trains the sentence-order models of local coherence (src/lib/metrics/semantic/order-model/*.json):
 * per encoder (USE-lite, GloVe SIF) a logistic regression on [u, v, u⊙v, |u−v|] for "v follows u",
 * with each consecutive sentence pair (u, v) of an article as a positive and, as negatives, u with
 * 3 other sentences of the same article (not u, not v) and the reversed pair (v, u), both classes
 * weighted equally. (Tried on the held-out articles' shuffle test and not kept, see README: 6 random
 * negatives, negatives from near positions, and document scores other than the mean P: mean
 * log-odds, the true successor's log-softmax or rank among the text's sentences.)
 *
 * Data: the QAGS CNN/DM and XSum articles (not SummEval), minus two lines in an evaluation set and
 * any article sharing a 12-word run with a SummEval dev source (the shuffle test's articles); the
 * first 25 sentences of each. λ is chosen on a held-out fifth of the ARTICLES (neighbouring pairs of
 * one article are not independent) by the shuffle test on their openings (the use the score is
 * for), then the model is refitted on all of them.
 *
 * Then the position model (order-model.ts): a ridge regression from a sentence's vector to its
 * place in its article's opening (first OPENING_SENTENCES sentences; 0 = first, 1 = last), fitted
 * on the same training articles. Its penalty and the weight α of its agreement in the score are
 * chosen together on the same held-out articles by the same shuffle test of the mixed score, and
 * it is refitted on all articles.
 *
 * Usage: npm run train:order [-- --only glove|use-lite]
 * USE-lite vectors are cached in .cache/order-model/ (the first run embeds ~7k sentences, minutes).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { repoRoot } from '../src/lib/node/external-data.ts';
import { loadGloveEmbedder } from '../src/lib/node/load-glove.ts';
import { loadUseLiteEmbedder } from '../src/lib/node/load-use.ts';
import {
  followProbability,
  orderScore,
  pairFeatures,
  positionAgreement,
  predictedPosition,
  sigmoid,
  type OrderModel,
  type PositionModel,
} from '../src/lib/metrics/semantic/order-model.ts';
import { solveLinear } from '../src/lib/stats/ridge.ts';
import type { SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import { CachedEmbedder } from './order-model/cached-embedder.ts';
import {
  OPENING_SENTENCES,
  prng,
  readTrainingArticles,
  shuffled,
  type TrainingArticle,
} from './order-model/data.ts';
import { fitLogistic, margin, type Dataset, type StandardisedFit } from './order-model/logistic.ts';

const SEED = 20_251_202;
const NEGATIVES = 3;
const HELD_OUT_SHARE = 0.2;
const LAMBDAS = [100, 30, 10, 3, 1, 0.3, 0.1, 0.03];
/** Shuffles per held-out opening: ~95 openings × 20 keeps the choice of λ and α from noise. */
const SHUFFLES = 20;
/** Position-model penalties, relative to the mean diagonal of the centred XᵀX (scale-free, so the
 * same grid serves unit-length USE vectors and SIF GloVe vectors). */
const POSITION_LAMBDAS = [0.03, 0.1, 0.3, 1, 3];
const ALPHAS = [0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5];
export const MODEL_DIR = resolve(repoRoot, 'src/lib/metrics/semantic/order-model');

interface Example {
  article: number;
  /** Index of the positive pair this row belongs to (a positive and its negatives share it). */
  group: number;
  u: Float32Array;
  v: Float32Array;
  positive: boolean;
}

const isZero = (v: Float32Array): boolean => v.every((x) => x === 0);

async function examplesOf(
  articles: TrainingArticle[],
  embedder: SentenceEmbedder,
): Promise<{ examples: Example[]; vectors: Float32Array[][] }> {
  const rand = prng(SEED);
  const out: Example[] = [];
  const all: Float32Array[][] = [];
  let group = 0;
  for (let a = 0; a < articles.length; a++) {
    const vectors = await embedder.embed(articles[a].sentences);
    all.push(vectors);
    const n = vectors.length;
    for (let i = 0; i + 1 < n; i++) {
      // A sentence without a vector (GloVe: no known word) says nothing about order.
      if (isZero(vectors[i]) || isZero(vectors[i + 1])) continue;
      const others = shuffled(
        [...Array(n).keys()].filter((j) => j !== i && j !== i + 1 && !isZero(vectors[j])),
        rand,
      ).slice(0, NEGATIVES);
      out.push({ article: a, group, u: vectors[i], v: vectors[i + 1], positive: true });
      for (const j of others)
        out.push({ article: a, group, u: vectors[i], v: vectors[j], positive: false });
      // The same two sentences the wrong way round: the symmetric features (u⊙v, |u−v|) cannot
      // tell it from the positive, so this row teaches direction, which a shuffle also breaks.
      out.push({ article: a, group, u: vectors[i + 1], v: vectors[i], positive: false });
      group++;
    }
  }
  return { examples: out, vectors: all };
}

/**
 * The shuffle test on the held-out training articles: each opening (first OPENING_SENTENCES
 * sentences with a vector) against SHUFFLES seeded shuffles; the share of (original, shuffled)
 * pairs where the mean P(next follows) of the original is higher, ties ½. It is what the card's
 * score is for, so λ is chosen by it, on articles the fit has not seen (not SummEval).
 */
function modelOf(fit: StandardisedFit, dims: number, position?: PositionModel): OrderModel {
  return {
    backendPrefix: '',
    trainedOn: '',
    dims,
    weights: Array.from(fit.weights),
    bias: fit.bias,
    training: {} as OrderModel['training'],
    position,
  };
}

/** The score of one opening as the coherence card computes it (every vector here is non-zero). */
function documentScore(model: OrderModel, vs: Float32Array[]): number {
  let sum = 0;
  for (let i = 0; i + 1 < vs.length; i++) sum += followProbability(model, vs[i], vs[i + 1]);
  const meanP = sum / (vs.length - 1);
  const position = model.position;
  if (!position) return meanP;
  const agreement = positionAgreement(
    vs.map((v) => predictedPosition(position, v)),
    vs.map((_, i) => i),
  );
  return orderScore(meanP, agreement, position.alpha);
}

function heldOutShuffle(model: OrderModel, openings: Float32Array[][]): number {
  const rand = prng(SEED + 2);
  let wins = 0;
  let pairs = 0;
  for (const opening of openings) {
    const original = documentScore(model, opening);
    for (let s = 0; s < SHUFFLES; s++) {
      const shuffledScore = documentScore(model, shuffled(opening, rand));
      wins += original > shuffledScore ? 1 : original === shuffledScore ? 0.5 : 0;
      pairs++;
    }
  }
  return wins / pairs;
}

/** Centred normal equations of "vector → place in the opening", built once per training set. */
interface PositionSystem {
  dims: number;
  rows: number;
  mean: Float64Array;
  targetMean: number;
  /** Centred XᵀX, row-major. */
  xtx: Float64Array;
  xty: Float64Array;
}

function positionSystem(openings: Float32Array[][]): PositionSystem {
  const xs: Float32Array[] = [];
  const ts: number[] = [];
  for (const o of openings) o.forEach((v, i) => (xs.push(v), ts.push(i / (o.length - 1))));
  const dims = xs[0].length;
  const mean = new Float64Array(dims);
  for (const x of xs) for (let d = 0; d < dims; d++) mean[d] += x[d] / xs.length;
  const targetMean = ts.reduce((a, b) => a + b, 0) / ts.length;
  const xtx = new Float64Array(dims * dims);
  const xty = new Float64Array(dims);
  const c = new Float64Array(dims);
  xs.forEach((x, r) => {
    for (let d = 0; d < dims; d++) c[d] = x[d] - mean[d];
    const t = ts[r] - targetMean;
    for (let a = 0; a < dims; a++) {
      xty[a] += c[a] * t;
      const ca = c[a];
      if (ca === 0) continue;
      for (let b = a; b < dims; b++) xtx[a * dims + b] += ca * c[b];
    }
  });
  for (let a = 0; a < dims; a++) for (let b = 0; b < a; b++) xtx[a * dims + b] = xtx[b * dims + a];
  return { dims, rows: xs.length, mean, targetMean, xtx, xty };
}

function fitPosition(
  system: PositionSystem,
  relativeLambda: number,
): { weights: number[]; bias: number } {
  const { dims, xtx, xty, mean, targetMean } = system;
  let trace = 0;
  for (let d = 0; d < dims; d++) trace += xtx[d * dims + d];
  const ridge = (relativeLambda * trace) / dims;
  const a = Array.from({ length: dims }, (_, i) =>
    Array.from(xtx.subarray(i * dims, (i + 1) * dims), (x, j) => (i === j ? x + ridge : x)),
  );
  const weights = solveLinear(a, Array.from(xty));
  const bias = targetMean - weights.reduce((sum, w, d) => sum + w * mean[d], 0);
  return { weights, bias };
}

const openingsOf = (vectors: Float32Array[][], articles: Iterable<number>): Float32Array[][] =>
  [...articles]
    .sort((a, b) => a - b)
    .map((a) => vectors[a].filter((v) => !isZero(v)).slice(0, OPENING_SENTENCES))
    .filter((o) => o.length >= 3);

function datasetOf(examples: Example[]): Dataset {
  const dims = examples[0].u.length;
  const cols = 4 * dims;
  const x = new Float32Array(examples.length * cols);
  const y = new Uint8Array(examples.length);
  const weight = new Float64Array(examples.length);
  const positives = examples.filter((e) => e.positive).length;
  const negatives = examples.length - positives;
  examples.forEach((e, r) => {
    pairFeatures(e.u, e.v, x.subarray(r * cols, (r + 1) * cols));
    y[r] = e.positive ? 1 : 0;
    // Equal total weight per class: P = 0.5 then means "no lean either way".
    weight[r] = examples.length / (2 * (e.positive ? positives : negatives));
  });
  return { x, rows: examples.length, cols, y, weight };
}

interface HeldOut {
  rank: number;
  balanced: number;
  logLoss: number;
}

function evaluate(fit: StandardisedFit, data: Dataset, examples: Example[]): HeldOut {
  const z = examples.map((_, r) => margin(fit, data, r));
  let rankHits = 0;
  let rankPairs = 0;
  const positiveOf = new Map<number, number>();
  examples.forEach((e, r) => e.positive && positiveOf.set(e.group, z[r]));
  let tp = 0;
  let tn = 0;
  let loss = 0;
  let wsum = 0;
  examples.forEach((e, r) => {
    const p = sigmoid(z[r]);
    loss -= data.weight[r] * Math.log(Math.max(e.positive ? p : 1 - p, 1e-15));
    wsum += data.weight[r];
    if (e.positive) tp += p >= 0.5 ? 1 : 0;
    else {
      tn += p < 0.5 ? 1 : 0;
      const zp = positiveOf.get(e.group) as number;
      rankHits += zp > z[r] ? 1 : zp === z[r] ? 0.5 : 0;
      rankPairs++;
    }
  });
  const positives = examples.filter((e) => e.positive).length;
  return {
    rank: rankHits / rankPairs,
    balanced: (tp / positives + tn / (examples.length - positives)) / 2,
    logLoss: loss / wsum,
  };
}

const round6 = (x: number): number => Number(x.toPrecision(6));

async function train(
  name: string,
  prefix: string,
  embedder: SentenceEmbedder,
  articles: TrainingArticle[],
): Promise<OrderModel> {
  const t0 = performance.now();
  const { examples, vectors } = await examplesOf(articles, embedder);
  console.log(
    `\n${name} (${embedder.backend}): ${examples.length} pairs from ${articles.length} articles, embedded in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  const order = shuffled([...articles.keys()], prng(SEED + 1));
  const heldOutArticles = new Set(order.slice(0, Math.round(HELD_OUT_SHARE * articles.length)));
  const trainRows = examples.filter((e) => !heldOutArticles.has(e.article));
  const testRows = examples.filter((e) => heldOutArticles.has(e.article));
  const trainData = datasetOf(trainRows);
  const testData = datasetOf(testRows);
  const dims = examples[0].u.length;
  const openings = openingsOf(vectors, heldOutArticles);
  let best:
    { lambda: number; held: HeldOut & { shuffle: number }; fit: StandardisedFit } | undefined;
  let start: Float64Array | undefined;
  console.log(
    `  λ path (train ${trainRows.length} pairs / held-out ${testRows.length} pairs of ${heldOutArticles.size} articles):`,
  );
  for (const lambda of LAMBDAS) {
    const fit = fitLogistic(trainData, { lambda, start });
    start = fit.theta;
    const held = {
      ...evaluate(fit, testData, testRows),
      shuffle: heldOutShuffle(modelOf(fit, dims), openings),
    };
    console.log(
      `  λ=${lambda}: ${fit.iterations} iterations, held-out shuffle test ${held.shuffle.toFixed(3)}, rank accuracy ${held.rank.toFixed(3)}, balanced accuracy ${held.balanced.toFixed(3)}, log loss ${held.logLoss.toFixed(4)}`,
    );
    if (
      !best ||
      held.shuffle > best.held.shuffle ||
      (held.shuffle === best.held.shuffle && held.logLoss < best.held.logLoss)
    ) {
      best = { lambda, held, fit };
    }
  }
  if (!best) throw new Error('no λ tried');
  const trainArticles = [...articles.keys()].filter((a) => !heldOutArticles.has(a));
  const trainSystem = positionSystem(openingsOf(vectors, trainArticles));
  let bestPosition: { lambda: number; alpha: number; shuffle: number } | undefined;
  console.log(
    `  position model (${trainSystem.rows} opening sentences of ${trainArticles.length} articles), held-out shuffle test of the mixed score:`,
  );
  for (const lambda of POSITION_LAMBDAS) {
    const fit = fitPosition(trainSystem, lambda);
    const shares = ALPHAS.map((alpha) => {
      const position: PositionModel = { ...fit, alpha, training: {} as PositionModel['training'] };
      return heldOutShuffle(modelOf(best.fit, dims, position), openings);
    });
    console.log(
      `  λ=${lambda}: ${ALPHAS.map((alpha, i) => `α=${alpha} ${shares[i].toFixed(3)}`).join(', ')}`,
    );
    shares.forEach((shuffle, i) => {
      if (!bestPosition || shuffle > bestPosition.shuffle)
        bestPosition = { lambda, alpha: ALPHAS[i], shuffle };
    });
  }
  if (!bestPosition) throw new Error('no position penalty tried');
  const allSystem = positionSystem(openingsOf(vectors, articles.keys()));
  const positionFit = fitPosition(allSystem, bestPosition.lambda);
  console.log(
    `  chosen position λ=${bestPosition.lambda}, α=${bestPosition.alpha} (held-out ${bestPosition.shuffle.toFixed(3)} against ${best.held.shuffle.toFixed(3)} for the pairs alone); refitted on ${allSystem.rows} sentences`,
  );
  const all = datasetOf(examples);
  const final = fitLogistic(all, { lambda: best.lambda, start: best.fit.theta });
  const positives = examples.filter((e) => e.positive).length;
  console.log(
    `  chosen λ=${best.lambda}; refitted on all ${examples.length} pairs in ${final.iterations} iterations (${((performance.now() - t0) / 1000).toFixed(0)} s in all)`,
  );
  return {
    backendPrefix: prefix,
    trainedOn: embedder.backend,
    dims: examples[0].u.length,
    weights: Array.from(final.weights, round6),
    bias: round6(final.bias),
    training: {
      articles: articles.length,
      positives,
      negatives: examples.length - positives,
      lambda: best.lambda,
      heldOutShuffleAccuracy: round6(best.held.shuffle),
      heldOutRankAccuracy: round6(best.held.rank),
      heldOutBalancedAccuracy: round6(best.held.balanced),
    },
    position: {
      weights: positionFit.weights.map(round6),
      bias: round6(positionFit.bias),
      alpha: bestPosition.alpha,
      training: {
        openingSentences: OPENING_SENTENCES,
        lambda: bestPosition.lambda,
        heldOutShuffleAccuracy: round6(bestPosition.shuffle),
      },
    },
  };
}

async function main(argv: string[]): Promise<void> {
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
  const { articles, excluded } = readTrainingArticles();
  console.log(`Training articles: ${articles.length} kept (QAGS CNN/DM + XSum).`);
  for (const e of excluded) console.log(`  excluded ${e.count}: ${e.reason}`);
  mkdirSync(MODEL_DIR, { recursive: true });
  const encoders = [
    { name: 'glove', prefix: 'glove', load: async () => loadGloveEmbedder() },
    {
      name: 'use-lite',
      prefix: 'use-lite',
      load: async () => new CachedEmbedder(await loadUseLiteEmbedder()),
    },
  ].filter((e) => !only || e.name === only);
  for (const e of encoders) {
    const model = await train(e.name, e.prefix, await e.load(), articles);
    const path = resolve(MODEL_DIR, `${e.name}.json`);
    writeFileSync(path, JSON.stringify(model) + '\n');
    console.log(`  wrote ${path}`);
  }
}

await main(process.argv.slice(2));
