/**
 * Node-only: the validity report itself, how well every offline metric tracks people on SummEval
 * dev. Every offline metric scores every summary with the default settings, exactly as the app
 * runs it (src/lib/metrics/offline.ts; the reference metrics against references[0]); transformer
 * models add rows for the model backends, and the recorded GPT-4 judge replies one row for
 * scale. Per metric and dimension: the summary-level Spearman and Kendall τ-b (per article over
 * its summaries, then averaged over the articles where defined) and the pooled Spearman, against
 * the mean of the three expert ratings, through the data-set calibration code
 * (src/lib/datasets/calibration.ts), so the report measures what users' calibrations measure.
 */
import { calibratePair, type CalibrationRow } from '../../datasets/calibration.ts';
import { computeMetrics } from '../../metrics/offline.ts';
import { referenceCalculator } from '../../metrics/lexical/reference/record.ts';
import { QUALITY_BACKEND } from '../../metrics/lexical/quality-offline/quality.ts';
import { metricInfo, metricRecord, OFFLINE_METRIC_IDS } from '../../metrics/registry.ts';
import { DEFAULT_SETTINGS } from '../../metrics/settings.ts';
import type { EntityRecognizer, SentenceEmbedder } from '../../metrics/semantic/backends.ts';
import { CompromiseRecognizer } from '../../metrics/semantic/compromise-ner.ts';
import type { MetricId, MetricResult } from '../../metrics/types.ts';
import {
  HUMAN_DIMENSIONS,
  type HumanDimension,
  type ValidityCell,
  type ValidityReport,
  type ValidityRow,
} from '../../metrics/validity.ts';
import { loadGloveEmbedder } from '../load-glove.ts';
import { ARTICLE_FOLDS } from '../quality-fit.ts';
import { qualitySamples } from '../quality-samples.ts';
import { heldOutPredictions } from '../quality-validation.ts';
import { loadUseLiteEmbedder } from '../load-use.ts';
import { DEFAULT_MODELS_DIR, transformerVariants, type BackendVariant } from './models.ts';
import {
  expertMeans,
  judgeReplyKey,
  readDevRows,
  readJudgeReplies,
  recordedRating,
  type DevRow,
} from './summeval.ts';

export interface ValidityOptions {
  /** Transformer models to add rows for; null for the built-in backends only. */
  modelsDir?: string | null;
  /** Score only the summaries of the first N articles (tests). */
  articles?: number;
  /** Leave out the recorded-judge row. */
  withoutJudge?: boolean;
  onProgress?: (done: number, total: number) => void;
}

/** Six decimals: enough for the table, and stable across platforms in the stored JSON. */
const round = (x: number | null): number | null => (x === null ? null : Math.round(x * 1e6) / 1e6);

function cellsOf(rows: readonly CalibrationRow[], key: (d: HumanDimension) => string) {
  const cells = {} as Record<HumanDimension, ValidityCell>;
  for (const dimension of HUMAN_DIMENSIONS) {
    const pair = calibratePair(rows, key(dimension), dimension);
    cells[dimension] = {
      summarySpearman: round(pair.summaryLevel?.values.spearman ?? null),
      summaryKendall: round(pair.summaryLevel?.values.kendall ?? null),
      pooledSpearman: round(pair.pooled.values.spearman),
      articles: pair.summaryLevel?.groupsUsed ?? 0,
    };
  }
  return cells;
}

/**
 * Metrics whose definition was chosen (repetition, the salient-word count of source coverage) or
 * whose weights were fit (the quality estimate) on this dev set: their rows are in-sample.
 */
const CHOSEN_ON_DEV: ReadonlySet<MetricId> = new Set([
  'repetition-offline',
  'source-coverage',
  'quality-offline',
]);

/** The reference metrics are the ones the reference calculator computes. */
function readsReference(id: MetricId): boolean {
  const record = metricRecord(id);
  return record.kind === 'offline' && record.compute === referenceCalculator;
}

/**
 * The metrics whose score comes from the sentence encoder: each other encoder gets rows of its own
 * for them. Repetition embeds only for its detail's most-alike pair; its score is the same row.
 */
export const ENCODER_METRIC_IDS: readonly MetricId[] = OFFLINE_METRIC_IDS.filter(
  (id) => metricInfo(id).needs === 'embedding' && id !== 'repetition-offline',
);

/** The encoder metrics on one more encoder; `key` ends its rows' keys (`support-glove`). */
export function encoderVariant(
  key: string,
  embedder: SentenceEmbedder,
  recognizer: EntityRecognizer,
): BackendVariant {
  return {
    key,
    ids: [...ENCODER_METRIC_IDS],
    backends: { embedder: async () => embedder, recognizer: async () => recognizer },
  };
}

/** One row per metric of each variant (npm run int8:agreement also calls it, for two encoders). */
export async function metricRows(
  dev: readonly DevRow[],
  variants: readonly BackendVariant[],
  onProgress: ValidityOptions['onProgress'],
): Promise<ValidityRow[]> {
  const rows: ValidityRow[] = [];
  let done = 0;
  const total = dev.length * variants.length;
  for (const variant of variants) {
    const scored: CalibrationRow[] = [];
    const backendOf = new Map<MetricId, string>();
    for (const [i, row] of dev.entries()) {
      const results: MetricResult[] = [];
      await computeMetrics(
        variant.ids,
        { source: row.text, summary: row.decoded, reference: row.references[0] },
        DEFAULT_SETTINGS,
        variant.backends,
        (r) => results.push(r),
      );
      for (const r of results) if (r.status === 'ok') backendOf.set(r.id, r.backend);
      scored.push({
        row: i,
        group: row.id,
        scores: Object.fromEntries(results.map((r) => [r.id, r.status === 'ok' ? r.score : null])),
        human: expertMeans(row),
      });
      onProgress?.(++done, total);
    }
    for (const id of variant.ids) {
      const info = metricInfo(id);
      const backend = backendOf.get(id);
      if (!backend) throw new Error(`${id} scored none of the ${dev.length} summaries`);
      const family =
        variant.key === 'builtin' ? (metricRecord(id).validity?.family ?? '') : variant.key;
      rows.push({
        key: family ? `${id}-${family}` : id,
        metrics: [id],
        label: info.label,
        backend,
        // The lexical worker (needs 'reference') also hosts source-only metrics.
        kind: readsReference(id) ? 'reference' : 'offline',
        ...(variant.key === 'builtin' && CHOSEN_ON_DEV.has(id)
          ? { fit: 'in-sample' as const }
          : {}),
        scored: scored.filter((r) => typeof r.scores[id] === 'number').length,
        cells: cellsOf(scored, () => id),
      });
    }
  }
  return rows;
}

function recordedJudgeRow(dev: readonly DevRow[], replies: Map<string, string>): ValidityRow {
  const judged: CalibrationRow[] = dev.map((row, i) => ({
    row: i,
    group: row.id,
    scores: Object.fromEntries(
      HUMAN_DIMENSIONS.map((d) => {
        const reply = replies.get(judgeReplyKey(row.id, row.model_id, d));
        return [`judge-${d}`, reply === undefined ? null : recordedRating(reply)];
      }),
    ),
    human: expertMeans(row),
  }));
  return {
    key: 'geval-recorded-gpt4',
    metrics: HUMAN_DIMENSIONS.map((d) => `geval-${d}` as const),
    label: 'G-Eval, each column its own criterion',
    backend: 'recorded GPT-4-0314 replies (gpt4_judge_dev.jsonl), final score',
    kind: 'recorded-judge',
    scored: judged.filter((r) => HUMAN_DIMENSIONS.every((d) => r.scores[`judge-${d}`] !== null))
      .length,
    cells: cellsOf(judged, (d) => `judge-${d}`),
  };
}

/**
 * The quality estimate as a model that never saw the article it scores: the out-of-fold estimates
 * of `npm run fit:quality` (quality-validation.ts: 10 article folds; faithfulness also learns from
 * the other rated families). The coherence, consistency and relevance columns use the estimate
 * of their own dimension (coherence, faithfulness, coverage), fluency the score. Needs every
 * dev article (the folds are over all 50).
 */
async function crossValidatedQualityRow(dev: readonly DevRow[]): Promise<ValidityRow | null> {
  if (new Set(dev.map((r) => r.id)).size < ARTICLE_FOLDS) return null;
  const samples = await qualitySamples();
  const held = heldOutPredictions(samples);
  const byKey = new Map(
    held.dev.indices.map((sampleIndex, k) => [
      `${samples[sampleIndex].group}\u0001${samples[sampleIndex].system}`,
      { k, score: held.score[sampleIndex] },
    ]),
  );
  const rows: CalibrationRow[] = dev.map((row, i) => {
    const found = byKey.get(`${row.id}\u0001${row.model_id}`);
    if (!found) throw new Error(`no held-out quality estimate for ${row.id} ${row.model_id}`);
    return {
      row: i,
      group: row.id,
      scores: {
        coherence: held.dev.byDimension.coherence[found.k],
        consistency: held.dev.byDimension.faithfulness[found.k],
        relevance: held.dev.byDimension.coverage[found.k],
        score: found.score,
      },
      human: expertMeans(row),
    };
  });
  return {
    key: 'quality-offline-lexical-cv',
    metrics: ['quality-offline'],
    label:
      'Quality estimate (offline), held out: coherence, consistency and relevance columns the estimate of their own dimension, fluency the score',
    backend: `${QUALITY_BACKEND}, ${ARTICLE_FOLDS}-fold article CV`,
    kind: 'offline',
    fit: 'cross-validated',
    scored: rows.length,
    cells: cellsOf(rows, (d) =>
      d === 'coherence' || d === 'consistency' || d === 'relevance' ? d : 'score',
    ),
  };
}

export async function computeValidity(options: ValidityOptions = {}): Promise<ValidityReport> {
  const dev = readDevRows(options.articles);
  const glove = loadGloveEmbedder();
  // USE-lite, exact (fp32) and int8; the vectors of both are kept on disk, so a second run embeds
  // nothing.
  const useLite = await loadUseLiteEmbedder({ diskCache: true });
  const useLiteInt8 = await loadUseLiteEmbedder({ precision: 'int8', diskCache: true });
  const compromise = new CompromiseRecognizer();
  const variants: BackendVariant[] = [
    {
      key: 'builtin',
      ids: [...OFFLINE_METRIC_IDS],
      backends: { embedder: async () => useLite, recognizer: async () => compromise },
    },
    // The page's default model is int8: its cards quote rows measured on it, not the fp32 ones
    // (npm run int8:agreement compares the two).
    encoderVariant('use-lite-int8', useLiteInt8, compromise),
    // GloVe, the light fallback, keeps its rows for the embedding metrics.
    encoderVariant('glove', glove, compromise),
    ...(options.modelsDir === null
      ? []
      : await transformerVariants(options.modelsDir ?? DEFAULT_MODELS_DIR)),
  ];

  const rows = await metricRows(dev, variants, options.onProgress);
  const qualityCv = await crossValidatedQualityRow(dev);
  if (qualityCv) rows.push(qualityCv);
  const replies = options.withoutJudge ? null : readJudgeReplies();
  if (replies) rows.push(recordedJudgeRow(dev, replies));

  return {
    dataset: {
      name: 'SummEval dev',
      file: 'shared/data/summeval/dev.jsonl',
      summaries: dev.length,
      articles: new Set(dev.map((r) => r.id)).size,
      systems: new Set(dev.map((r) => r.model_id)).size,
      raters: 'mean of 3 expert ratings, 1–5',
      origin: 'Fabbri et al. 2021, CNN/DailyMail test articles',
    },
    rows,
  };
}
