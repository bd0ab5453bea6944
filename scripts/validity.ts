/**
 * `npm run validity`: how well every offline metric tracks people on SummEval dev
 * (tests/fixtures/external/data/summeval/dev.jsonl, vendored from shared/: 600 summaries = 50 CNN/DailyMail articles × 12 systems,
 * each rated 1–5 by three experts on coherence, consistency, fluency and relevance).
 *
 * Every offline metric scores every summary with the default settings, exactly as the app runs it
 * (src/lib/metrics/offline.ts; the reference metrics against references[0]); transformer models
 * found under public/models (or --models DIR) add rows for the model backends. The recorded
 * GPT-4 judge replies (gpt4_judge_dev.jsonl) add one row for scale. Per metric and dimension it
 * prints the summary-level Spearman and Kendall τ-b (per article over its summaries, then averaged
 * over the articles where defined) and the pooled Spearman (all summaries at once), against the
 * mean of the three expert ratings, through the data-set calibration code
 * (src/lib/datasets/calibration.ts).
 *
 * Usage: npm run validity                 print the table
 *        npm run validity -- --write      also store it in src/lib/metrics/validity-summeval.json
 *                                         (what the cards show) and in the README
 *        npm run validity -- --models DIR  look for transformer models in DIR
 */
import { messageOf } from '../src/lib/errors.ts';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { externalDataDir } from './external-data.ts';
import { calibratePair, type CalibrationRow } from '../src/lib/datasets/calibration.ts';
import { computeMetrics, type OfflineBackends } from '../src/lib/metrics/offline.ts';
import { metricInfo } from '../src/lib/metrics/registry.ts';
import { DEFAULT_SETTINGS } from '../src/lib/metrics/settings.ts';
import { CompromiseRecognizer } from '../src/lib/metrics/semantic/compromise-ner.ts';
import { TransformerEmbedder } from '../src/lib/metrics/semantic/transformer-embedder.ts';
import { TransformerRecognizer } from '../src/lib/metrics/semantic/transformer-ner.ts';
import type { EntityRecognizer, SentenceEmbedder } from '../src/lib/metrics/semantic/backends.ts';
import { OFFLINE_METRIC_IDS, type MetricId, type MetricResult } from '../src/lib/metrics/types.ts';
import {
  HUMAN_DIMENSIONS,
  validityMarkdown,
  type HumanDimension,
  type ValidityCell,
  type ValidityReport,
  type ValidityRow,
} from '../src/lib/metrics/validity.ts';
import {
  featureExtractor,
  tokenClassifier,
  type FeatureExtractionPipelineLike,
  type TokenClassificationPipelineLike,
} from '../src/lib/metrics/semantic/transformers-adapters.ts';
import { loadGloveEmbedder } from '../src/lib/node/load-glove.ts';
import { mean } from '../src/lib/stats/correlation.ts';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEV_FILE = resolve(externalDataDir, 'data/summeval/dev.jsonl');
export const JUDGE_FILE = resolve(externalDataDir, 'data/summeval/gpt4_judge_dev.jsonl');
export const REPORT_FILE = resolve(repoRoot, 'src/lib/metrics/validity-summeval.json');
export const README_FILE = resolve(repoRoot, 'README.md');
export const DEFAULT_MODELS_DIR = resolve(repoRoot, 'public/models');
export const TABLE_START = '<!-- validity-table -->';
export const TABLE_END = '<!-- /validity-table -->';

interface DevRow {
  id: string;
  model_id: string;
  text: string;
  decoded: string;
  references: string[];
  expert_annotations: Record<HumanDimension, number>[];
}

interface JudgeReply {
  id: string;
  model_id: string;
  dimension: HumanDimension;
  response: string;
}

function readJsonl<T>(file: string): T[] {
  if (!existsSync(file)) {
    throw new Error(
      `${file} is missing: the validity report needs the vendored SummEval data (tests/fixtures/external/SOURCES.md).`,
    );
  }
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** A transformers.js model folder: `<dir>/<owner>/<name>/config.json` and ONNX weights. */
export interface FoundModel {
  id: string;
  task: 'feature-extraction' | 'token-classification';
  dtype: 'q8' | 'fp32';
}

export function findModels(dir: string): FoundModel[] {
  if (!existsSync(dir)) return [];
  const found: FoundModel[] = [];
  for (const owner of readdirSync(dir, { withFileTypes: true })) {
    if (!owner.isDirectory()) continue;
    for (const name of readdirSync(resolve(dir, owner.name), { withFileTypes: true })) {
      const folder = resolve(dir, owner.name, name.name);
      const config = resolve(folder, 'config.json');
      if (!name.isDirectory() || !existsSync(config)) continue;
      const dtype = existsSync(resolve(folder, 'onnx/model_quantized.onnx'))
        ? 'q8'
        : existsSync(resolve(folder, 'onnx/model.onnx'))
          ? 'fp32'
          : undefined;
      if (!dtype) continue;
      const { architectures = [] } = JSON.parse(readFileSync(config, 'utf8')) as {
        architectures?: string[];
      };
      const task = architectures.some((a) => a.endsWith('ForTokenClassification'))
        ? 'token-classification'
        : 'feature-extraction';
      found.push({ id: `${owner.name}/${name.name}`, task, dtype });
    }
  }
  return found.sort((a, b) => a.id.localeCompare(b.id));
}

/** One way of running the model metrics: the built-in backends, or one transformer model. */
interface Variant {
  key: string;
  ids: MetricId[];
  backends: OfflineBackends;
}

async function transformerVariants(dir: string): Promise<Variant[]> {
  const models = findModels(dir);
  if (models.length === 0) return [];
  const { env, pipeline } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = `${dir}/`;
  const variants: Variant[] = [];
  for (const model of models) {
    const backend = `transformers.js ${model.id} · ${model.dtype} · CPU (onnxruntime-node)`;
    const slug = model.id.replace(/[^a-z0-9]+/giu, '-').toLowerCase();
    if (model.task === 'feature-extraction') {
      const pipe = (await pipeline('feature-extraction', model.id, {
        dtype: model.dtype,
      })) as unknown as FeatureExtractionPipelineLike;
      const embedder: SentenceEmbedder = new TransformerEmbedder(backend, featureExtractor(pipe));
      variants.push({
        key: slug,
        ids: ['coherence'],
        backends: { embedder: async () => embedder },
      });
    } else {
      const pipe = (await pipeline('token-classification', model.id, {
        dtype: model.dtype,
      })) as unknown as TokenClassificationPipelineLike;
      const recognizer: EntityRecognizer = new TransformerRecognizer(
        backend,
        tokenClassifier(pipe),
      );
      variants.push({
        key: slug,
        ids: ['entity-density'],
        backends: { recognizer: async () => recognizer },
      });
    }
  }
  return variants;
}

/** The last number of a reply once "/5" and "out of 5" denominators are gone ("Final score: 4."). */
export function recordedRating(reply: string): number | null {
  const m = /(\d(?:\.\d+)?)\D*$/u.exec(reply.replace(/\s*(?:\/|out of)\s*5\b/gu, ''));
  return m ? Number(m[1]) : null;
}

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

const FAMILY: Record<string, string> = {
  'entity-density': 'compromise',
  coherence: 'glove',
  'repetition-offline': 'lexical',
};

export interface ValidityOptions {
  /** Transformer models to add rows for; null for the built-in backends only. */
  modelsDir?: string | null;
  /** Score only the summaries of the first N articles (tests). */
  articles?: number;
  /** Leave out the recorded-judge row. */
  withoutJudge?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export async function computeValidity(options: ValidityOptions = {}): Promise<ValidityReport> {
  const all = readJsonl<DevRow>(DEV_FILE);
  const kept = new Set([...new Set(all.map((r) => r.id))].slice(0, options.articles));
  const dev = all.filter((r) => kept.has(r.id));
  const human = (row: DevRow) =>
    Object.fromEntries(
      HUMAN_DIMENSIONS.map((d) => [d, mean(row.expert_annotations.map((a) => a[d]))]),
    ) as Record<HumanDimension, number>;

  const glove = loadGloveEmbedder();
  const compromise = new CompromiseRecognizer();
  const variants: Variant[] = [
    {
      key: 'builtin',
      ids: [...OFFLINE_METRIC_IDS],
      backends: { embedder: async () => glove, recognizer: async () => compromise },
    },
    ...(options.modelsDir === null
      ? []
      : await transformerVariants(options.modelsDir ?? DEFAULT_MODELS_DIR)),
  ];

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
        human: human(row),
      });
      options.onProgress?.(++done, total);
    }
    for (const id of variant.ids) {
      const info = metricInfo(id);
      const backend = backendOf.get(id);
      if (!backend) throw new Error(`${id} scored none of the ${dev.length} summaries`);
      const family = variant.key === 'builtin' ? (FAMILY[id] ?? '') : variant.key;
      rows.push({
        key: family ? `${id}-${family}` : id,
        metrics: [id],
        label: info.label,
        backend,
        kind: info.needs === 'reference' ? 'reference' : 'offline',
        scored: scored.filter((r) => typeof r.scores[id] === 'number').length,
        cells: cellsOf(scored, () => id),
      });
    }
  }

  if (!options.withoutJudge && existsSync(JUDGE_FILE)) {
    const replies = new Map(
      readJsonl<JudgeReply>(JUDGE_FILE).map((r) => [
        `${r.id}|${r.model_id}|${r.dimension}`,
        r.response,
      ]),
    );
    const judged: CalibrationRow[] = dev.map((row, i) => ({
      row: i,
      group: row.id,
      scores: Object.fromEntries(
        HUMAN_DIMENSIONS.map((d) => {
          const reply = replies.get(`${row.id}|${row.model_id}|${d}`);
          return [`judge-${d}`, reply === undefined ? null : recordedRating(reply)];
        }),
      ),
      human: human(row),
    }));
    rows.push({
      key: 'geval-recorded-gpt4',
      metrics: HUMAN_DIMENSIONS.map((d) => `geval-${d}` as const),
      label: 'G-Eval, each column its own criterion',
      backend: 'recorded GPT-4-0314 replies (gpt4_judge_dev.jsonl), final score',
      kind: 'recorded-judge',
      scored: judged.filter((r) => HUMAN_DIMENSIONS.every((d) => r.scores[`judge-${d}`] !== null))
        .length,
      cells: cellsOf(judged, (d) => `judge-${d}`),
    });
  }

  const articles = new Set(dev.map((r) => r.id)).size;
  return {
    dataset: {
      name: 'SummEval dev',
      file: 'shared/data/summeval/dev.jsonl',
      summaries: dev.length,
      articles,
      systems: new Set(dev.map((r) => r.model_id)).size,
      raters: 'mean of 3 expert ratings, 1–5',
      origin: 'Fabbri et al. 2021, CNN/DailyMail test articles',
    },
    rows,
  };
}

/** The README with its validity table replaced; throws when the markers are missing. */
export function readmeWithTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`README.md lacks the ${TABLE_START} … ${TABLE_END} markers.`);
  }
  return `${readme.slice(0, start + TABLE_START.length)}\n<!-- prettier-ignore-start -->\n${table}\n<!-- prettier-ignore-end -->\n${readme.slice(end)}`;
}

export function describeReport(report: ValidityReport): string {
  const d = report.dataset;
  return [
    `${d.name} (${d.file}): ${d.summaries} summaries = ${d.articles} articles × ${d.systems} systems; human = ${d.raters}.`,
    'ρ = Spearman, τ-b = Kendall; summary level = per article over its summaries, then averaged over the articles where defined; pooled ρ = over all scored summaries at once.',
    '',
    validityMarkdown(report),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      write: { type: 'boolean', default: false },
      models: { type: 'string' },
    },
  });
  const started = performance.now();
  const report = await computeValidity({
    modelsDir: values.models ? resolve(values.models) : DEFAULT_MODELS_DIR,
    onProgress: (done, total) => {
      if (done % 100 === 0 || done === total) process.stderr.write(`scored ${done}/${total}\r`);
    },
  });
  process.stderr.write(`\n${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  console.log(describeReport(report));
  if (values.write) {
    writeFileSync(REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(
      README_FILE,
      readmeWithTable(readFileSync(README_FILE, 'utf8'), validityMarkdown(report)),
    );
    console.error(`wrote ${relative(repoRoot, REPORT_FILE)} and the table in README.md`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(messageOf(error));
    process.exit(1);
  });
}
