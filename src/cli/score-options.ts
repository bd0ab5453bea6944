/**
 * `npm run score`'s command line: the usage text, the options it takes and their checks (a bad
 * value stops the run before anything is read), and the metric settings the options make.
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_SETTINGS } from '../lib/metrics/settings.ts';
import { JUDGE_METRIC_IDS, OFFLINE_METRIC_IDS } from '../lib/metrics/registry.ts';
import type { JudgeMetricId, MetricId } from '../lib/metrics/types.ts';
import {
  DATASET_KINDS,
  FILE_FORMATS,
  type DatasetKind,
  type FileFormat,
} from '../lib/rows/formats.ts';
import { parseMappingOverride, type MappingOverride } from '../lib/datasets/detect/overrides.ts';
import { resolveTask, TINYEVAL_TASKS, type TinyEvalTask } from '../lib/datasets/tinyeval.ts';
import { LLM_ENV } from './llm-env.ts';
import { DEFAULT_CACHE_FILE } from './disk-cache.ts';
import { EXIT } from './exit.ts';
import { parseShardOption, type ShardSpec } from './shard.ts';
import { checkOptions, type CheckOptions } from './checks.ts';
import { unscoredAssertion } from './config.ts';
import { BATCH_KINDS, isBatchKind, type BatchKind } from '../lib/llm/batch/kinds.ts';
import { ENCODER_RUNTIMES, PRECISIONS, type EncoderRuntime } from './encoder.ts';
import type { UsePrecision } from '../lib/metrics/semantic/use-lite-int8.ts';
import { EMBEDDINGS, type EmbeddingChoice } from './offline-backends.ts';

/**
 * Fewer rows than this, all read before the first is scored, are scored in the main thread unless
 * --workers says otherwise: a worker costs 1–2.5 s of CPU to start, and on 60 SummEval rows two of
 * them took 19–24 s against 14–18 s for the main thread alone (600 rows: 31 s against 34 s).
 */
export const FEW_ROWS = 100;

export const USAGE = `usage: npm run score -- FILE [options]     (FILE: .jsonl, .json or .csv; - for stdin)
       npm run score -- merge OUT OUT… [--out FILE] [--summary-json FILE] [--config, --assert,
                        --junit, --baseline, --fail-on-regression, --margin as below]: join the --out
                        files of the N shards of a run into that run's output (docs/sharding.md)

  --task NAME           TinyEval/LongBench task of prediction rows: ${Object.keys(TINYEVAL_TASKS).join(', ')},
                        or custom:METRIC (longbench-rouge, qa-f1, rouge-l, bleu, …); default: the file name
  --metrics ID,ID       metrics of case rows (default: the offline ones); 'offline', 'judge' name groups;
                        judge metrics need ${LLM_ENV.provider}, ${LLM_ENV.model}, ${LLM_ENV.apiKey}, ${LLM_ENV.baseUrl}
  --format F            ${FILE_FORMATS.join(' | ')} (default: from the name and the content)
  --kind K              ${DATASET_KINDS.join(' | ')} (default: recognised from the columns)
  --map COLUMN=FIELD    map a column (repeatable): FIELD is source, summary, reference, prediction,
                        answers, output, …, human[:NAME], fields.NAME or ignore
  --out FILE            write the JSON lines there instead of stdout
  --summary-json FILE   write the summary (and eval.py's {task: score}) as JSON
  --no-stemmer          ROUGE without the Porter stemmer
  --lsum-sentences      ROUGE-Lsum on sentences found by the text layer
  --embedding E         use-lite | glove: the sentence encoder of the embedding metrics (default:
                        use-lite, as in the page; glove is the light, fast one)
  --precision P         ${PRECISIONS.join(' | ')}: USE-lite's int8 model (default, as in the page: about twice
                        as fast) or the exact fp32 one
  --encoder-runtime R   ${ENCODER_RUNTIMES.join(' | ')}: USE-lite on onnxruntime-node's native kernels, or
                        onnxruntime-web's WASM (one thread, as before); auto (default) takes native when
                        it loads, else WASM, and says so
  --workers N           worker threads for the offline metrics of model-backed rows (default: one per
                        core, here ${availableParallelism()}, or none for a file of under ${FEW_ROWS} rows); 1 scores in the
                        main thread, with one encoder thread per core
  --vector-cache DIR    where USE-lite's sentence vectors are kept between runs (default:
                        SUMLENS_VECTOR_CACHE, else node_modules/.cache/sumlens-use)
  --batch PROVIDER      openai | anthropic | gemini: send the judge calls as the provider's batch jobs
                        (half price, results within 24 h), one job per round; must match ${LLM_ENV.provider}
  --cache FILE          the judge's answer cache (JSON Lines): a run stopped or run again asks nothing
                        it already paid for; default ${DEFAULT_CACHE_FILE} under the current folder
                        (the repository under npm run score); batch job ids are kept beside it
  --no-cache            keep the judge's answers in memory only: a rerun asks everything again
  --poll-interval S     seconds between polls of a batch job (default 30)
  --batch-max-requests N  at most N requests per batch job (default: the provider's limit)
  --config FILE         metrics and assertions (YAML or JSON; default: sumlens.config.yaml, .yml or
                        .json in the current folder when there is one); see docs/ci.md
  --assert CHECK        one more assertion (repeatable): METRIC:MIN, not-METRIC:MAX or not-flag=FLAG
  --junit FILE          the assertions as JUnit XML: one testsuite per assertion, one testcase per row
  --baseline RUN        compare with an earlier run: the page's run export (.json) or an --out file
  --fail-on-regression ID,ID  fail when the paired 95% interval of (this run − baseline) is wholly
                        below −margin on a metric (needs --baseline)
  --margin X            the drop --fail-on-regression tolerates, on the metric's scale (default 0)
  --shard I/N           score the I-th of N slices of the rows (I from 1 to N), chosen by a hash of
                        each row's id; needs --out, beside which FILE.shard.json records what merge needs

With GITHUB_STEP_SUMMARY set (GitHub Actions), a Markdown summary is appended to that file.

--out and --summary-json are checked before anything is scored, and replaced only by a run that
went through every row: until then the rows go to FILE.partial beside FILE.

Exit status:
  ${EXIT.ok}    every row was read and scored, and passed its assertions and the regression gate
  ${EXIT.failed}    a row could not be read or scored (a {row, error} line, or a metric in error), no
       row could be read at all, a result file could not be written at the end, an assertion
       failed on a row, or a metric regressed against --baseline
  ${EXIT.stopped}    a usage or setup error (nothing scored), or stopped by a provider error every row
       would meet: a bad key, no access, no quota or credit left, an unknown model
  130  interrupted by Ctrl-C (143: SIGTERM); the same command, run again, resumes`;

export interface Options {
  file: string;
  out?: string;
  summaryJson?: string;
  task?: TinyEvalTask;
  metrics: MetricId[];
  format?: FileFormat;
  kind?: DatasetKind;
  overrides: MappingOverride[];
  noStemmer: boolean;
  lsumSentences: boolean;
  embedding: EmbeddingChoice;
  encoderRuntime: EncoderRuntime;
  precision: UsePrecision;
  /** Unless told, one per core, or the main thread alone for a short file (FEW_ROWS). */
  workers?: number;
  vectorCache?: string;
  batch?: BatchKind;
  /** The judge's answer cache; none with --no-cache. */
  cache?: string;
  pollIntervalMs: number;
  batchMaxRequests?: number;
  checks: CheckOptions;
  shard?: ShardSpec;
}

export class UsageError extends Error {}

export function parseOptions(argv: string[]): Options | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      'summary-json': { type: 'string' },
      task: { type: 'string' },
      metrics: { type: 'string' },
      format: { type: 'string' },
      kind: { type: 'string' },
      map: { type: 'string', multiple: true },
      'no-stemmer': { type: 'boolean', default: false },
      'lsum-sentences': { type: 'boolean', default: false },
      embedding: { type: 'string', default: 'use-lite' },
      'encoder-runtime': { type: 'string', default: 'auto' },
      precision: { type: 'string', default: 'int8' },
      workers: { type: 'string' },
      'vector-cache': { type: 'string' },
      batch: { type: 'string' },
      cache: { type: 'string' },
      'no-cache': { type: 'boolean', default: false },
      'poll-interval': { type: 'string', default: '30' },
      'batch-max-requests': { type: 'string' },
      config: { type: 'string' },
      assert: { type: 'string', multiple: true },
      junit: { type: 'string' },
      baseline: { type: 'string' },
      'fail-on-regression': { type: 'string' },
      margin: { type: 'string' },
      shard: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return 'help';
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const checks = checkOptions({ ...values, failOn: values['fail-on-regression'] });
  const known = new Set<string>([...OFFLINE_METRIC_IDS, ...JUDGE_METRIC_IDS]);
  const requested = values.metrics
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const metrics: string[] = [];
  for (const id of requested ?? checks.config?.metrics ?? ['offline']) {
    if (id === 'offline') metrics.push(...OFFLINE_METRIC_IDS);
    else if (id === 'judge') metrics.push(...JUDGE_METRIC_IDS.filter((j) => j !== 'geval-custom'));
    else metrics.push(id);
  }
  const unknown = metrics.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown metric id(s): ${unknown.join(', ')}. Known: ${[...known].join(', ')} (or the groups offline, judge)`,
    );
  }
  const unscored = unscoredAssertion(checks.assertions, metrics);
  if (unscored) throw new UsageError(unscored);
  if (values.format && !(FILE_FORMATS as readonly string[]).includes(values.format)) {
    throw new UsageError(`--format ${values.format}: use ${FILE_FORMATS.join(', ')}.`);
  }
  if (values.kind && !(DATASET_KINDS as readonly string[]).includes(values.kind)) {
    throw new UsageError(`--kind ${values.kind}: use ${DATASET_KINDS.join(', ')}.`);
  }
  if (!(EMBEDDINGS as readonly string[]).includes(values.embedding)) {
    throw new UsageError(`--embedding ${values.embedding}: use ${EMBEDDINGS.join(', ')}.`);
  }
  if (!(ENCODER_RUNTIMES as readonly string[]).includes(values['encoder-runtime'])) {
    throw new UsageError(
      `--encoder-runtime ${values['encoder-runtime']}: use ${ENCODER_RUNTIMES.join(', ')}.`,
    );
  }
  if (!(PRECISIONS as readonly string[]).includes(values.precision)) {
    throw new UsageError(`--precision ${values.precision}: use ${PRECISIONS.join(', ')}.`);
  }
  const workers = values.workers === undefined ? undefined : Number(values.workers);
  if (workers !== undefined && !(Number.isInteger(workers) && workers > 0)) {
    throw new UsageError(`--workers ${values.workers}: give a whole number, 1 or more.`);
  }
  if (values.batch !== undefined && !isBatchKind(values.batch)) {
    throw new UsageError(`--batch ${values.batch}: use ${BATCH_KINDS.join(', ')}.`);
  }
  const pollSeconds = Number(values['poll-interval']);
  if (!Number.isFinite(pollSeconds) || pollSeconds < 0) {
    throw new UsageError(`--poll-interval ${values['poll-interval']}: give seconds, e.g. 30.`);
  }
  const maxRequests =
    values['batch-max-requests'] === undefined ? undefined : Number(values['batch-max-requests']);
  if (maxRequests !== undefined && !(Number.isInteger(maxRequests) && maxRequests > 0)) {
    throw new UsageError(
      `--batch-max-requests ${values['batch-max-requests']}: give a whole number.`,
    );
  }
  if (values.cache && values['no-cache']) {
    throw new UsageError('--cache and --no-cache: give one of them.');
  }
  let task: TinyEvalTask | undefined;
  try {
    if (values.task) task = resolveTask(values.task);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  let overrides: MappingOverride[];
  try {
    overrides = (values.map ?? []).map(parseMappingOverride);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    file: positionals[0]!,
    ...(values.out ? { out: values.out } : {}),
    ...(values['summary-json'] ? { summaryJson: values['summary-json'] } : {}),
    ...(task ? { task } : {}),
    metrics: [...new Set(metrics)] as MetricId[],
    ...(values.format ? { format: values.format as FileFormat } : {}),
    ...(values.kind ? { kind: values.kind as DatasetKind } : {}),
    overrides,
    noStemmer: values['no-stemmer'] ?? false,
    lsumSentences: values['lsum-sentences'] ?? false,
    embedding: values.embedding as EmbeddingChoice,
    encoderRuntime: values['encoder-runtime'] as EncoderRuntime,
    precision: values.precision as UsePrecision,
    ...(workers ? { workers } : {}),
    ...(values['vector-cache'] ? { vectorCache: values['vector-cache'] } : {}),
    ...(values.batch ? { batch: values.batch as BatchKind } : {}),
    ...(values['no-cache'] ? {} : { cache: values.cache ?? DEFAULT_CACHE_FILE }),
    pollIntervalMs: pollSeconds * 1000,
    ...(maxRequests ? { batchMaxRequests: maxRequests } : {}),
    checks,
    ...(values.shard === undefined ? {} : { shard: parseShardOption(values.shard, values.out) }),
  };
}

export function isJudgeMetric(id: MetricId): id is JudgeMetricId {
  return (JUDGE_METRIC_IDS as readonly string[]).includes(id);
}

/** The page's defaults, with the embedding and ROUGE choices the command line made. */
export function scoringSettings(options: Options) {
  return {
    ...DEFAULT_SETTINGS,
    backends: {
      ...DEFAULT_SETTINGS.backends,
      embedding:
        options.embedding === 'glove'
          ? { kind: 'glove' as const }
          : { ...DEFAULT_SETTINGS.backends.embedding, precision: options.precision },
    },
    rouge: {
      useStemmer: !options.noStemmer,
      lsumSplitSentences: options.lsumSentences,
      tokenizer: DEFAULT_SETTINGS.rouge.tokenizer,
    },
  };
}
