/**
 * `npm run score -- FILE [--task multi_news|…] [--metrics id,id] [options]`
 *
 * Scores a data set with the same modules the browser runs, as TinyEval's eval.py does for a
 * prediction file: JSONL, JSON or CSV, recognised like the import dialog (cases, SummEval records,
 * TinyEval/LongBench predictions, SFT rows with a prediction column). Writes one JSON line per row
 * (stdout or --out); a bad row gets `{row, error}` naming it and the others go on. At the end a
 * summary table goes to stderr (per metric: mean and n; for a task: its score × 100 as eval.py
 * prints it), and to FILE as JSON with --summary-json.
 *
 * Cases get the offline metrics (or those of --metrics); the LLM-judge metrics too when --metrics
 * names them and SUMLENS_LLM_PROVIDER / _MODEL / _API_KEY / _BASE_URL configure a provider (see
 * llm-env.ts; the key is never printed). Prediction rows are scored by their task: --task, or the
 * file's name (`trec.jsonl`); `custom:<metric>` picks any reference metric.
 *
 * A run that stops short (Ctrl-C, or a provider error every later row would meet) leaves --out as
 * it was and its rows in FILE.partial (outputs.ts), and the judge's answers in the disk cache, so
 * the same command run again goes on without paying for them twice. `npm run score` starts this
 * file with `node --import tsx` rather than the tsx command, whose parent process kills a child
 * that is busy for 60 ms after a Ctrl-C instead of letting it finish.
 */
import { messageOf } from '../lib/errors.ts';
import { createReadStream, existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { once } from 'node:events';
import { DEFAULT_SETTINGS } from '../lib/metrics/settings.ts';
import { JUDGE_METRIC_IDS, OFFLINE_METRIC_IDS } from '../lib/metrics/registry.ts';
import type {
  JudgeMetricId,
  MetricId,
  MetricResult,
  OfflineMetricId,
} from '../lib/metrics/types.ts';
import { validateCase } from '../lib/input/validate-case.ts';
import { loadJiebaNode } from '../lib/metrics/lexical/jieba.ts';
import type { Judge, LlmErrorKind, ProviderConfig } from '../lib/llm/types.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../lib/metrics/judge/settings.ts';
import {
  DATASET_KINDS,
  FILE_FORMATS,
  isCaseRow,
  missingPredictionMessage,
  type CaseRow,
  type DatasetKind,
  type DatasetRow,
  type FileFormat,
  type RowProblem,
} from '../lib/rows/formats.ts';
import { parseMappingOverride, type MappingOverride } from '../lib/datasets/detect.ts';
import { DatasetParseError, parseDataset, type ParseSummary } from '../lib/datasets/parse.ts';
import {
  needsWordSegmenter,
  resolveTask,
  scoreTinyEvalRow,
  TINYEVAL_TASKS,
  type TinyEvalTask,
} from '../lib/datasets/tinyeval.ts';
import type { WordSegmenter } from '../lib/metrics/lexical/cjk-words.ts';
import { describeProvider, LLM_ENV, providerFromEnv, scrubSecrets } from './llm-env.ts';
import { formatSummary, RunAccumulator } from './report.ts';
import {
  DEFAULT_CACHE_FILE,
  FileCapabilityStore,
  FileJobStore,
  FileMissSpool,
  JsonlResponseCache,
} from './disk-cache.ts';
import { checkWritable, OutputPathError, reasonOf, replaceFile, ResultFile } from './outputs.ts';
import { RunStop } from './stop.ts';
import { EXIT } from './exit.ts';
import {
  InputFingerprint,
  parseShardOption,
  shardItems,
  writeShardRecord,
  type ShardSpec,
} from './shard.ts';
import { checkOptions, RunChecks, type CheckOptions } from './checks.ts';
import { unscoredAssertion } from './config.ts';
import { flagsOfResult } from './baseline.ts';
import { BATCH_KINDS, isBatchKind, type BatchKind } from '../lib/llm/batch/kinds.ts';
import type { BatchEvent } from '../lib/llm/batch/engine.ts';
import type { ResponseCache } from '../lib/llm/cache.ts';
import type { JudgeFailure } from '../lib/metrics/judge/run.ts';
import { availableParallelism } from 'node:os';
import { ENCODER_RUNTIMES, PRECISIONS, type EncoderRuntime } from './encoder.ts';
import type { UsePrecision } from '../lib/metrics/semantic/use-lite-int8.ts';
import { EMBEDDINGS, type EmbeddingChoice } from './offline-backends.ts';
import type { OfflineScore, OfflineScorer } from './offline-pool.ts';
import { InOrder } from './in-order.ts';

/**
 * Fewer rows than this, all read before the first is scored, are scored in the main thread unless
 * --workers says otherwise: a worker costs 1–2.5 s of CPU to start, and on 60 SummEval rows two of
 * them took 19–24 s against 14–18 s for the main thread alone (600 rows: 31 s against 34 s).
 */
const FEW_ROWS = 100;

/**
 * The provider errors that say nothing about one row (transport.ts latches the same ones with
 * stopOnFatal). A prompt too long for the model, which the page also pauses on for its "Context
 * tokens" setting, fails only its row here: the CLI has no such setting to lower.
 */
const RUN_WIDE: ReadonlySet<LlmErrorKind | 'other'> = new Set<LlmErrorKind>([
  'auth',
  'permission',
  'quota',
  'model-not-found',
]);

const USAGE = `usage: npm run score -- FILE [options]     (FILE: .jsonl, .json or .csv; - for stdin)
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

interface Options {
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

class UsageError extends Error {}

function parseOptions(argv: string[]): Options | 'help' {
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

function isJudgeMetric(id: MetricId): id is JudgeMetricId {
  return (JUDGE_METRIC_IDS as readonly string[]).includes(id);
}

function metricEntry(r: MetricResult): object {
  return {
    score: r.score,
    ...(r.raw === undefined ? {} : { raw: r.raw }),
    status: r.status,
    backend: r.backend,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(flagsOfResult(r).length ? { flags: flagsOfResult(r) } : {}),
  };
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'merge') return (await import('./merge.ts')).runMerge(argv.slice(1));
  let options: Options | 'help';
  try {
    options = parseOptions(argv);
  } catch (error) {
    console.error(messageOf(error));
    return EXIT.stopped;
  }
  if (options === 'help') {
    console.error(USAGE);
    return EXIT.ok;
  }
  const { file } = options;
  if (file !== '-' && !existsSync(file)) {
    console.error(`No such file: ${file}`);
    return EXIT.stopped;
  }
  try {
    if (options.out) checkWritable('--out', options.out);
    if (options.summaryJson) checkWritable('--summary-json', options.summaryJson);
    if (options.checks.junit) checkWritable('--junit', options.checks.junit);
  } catch (error) {
    if (!(error instanceof OutputPathError)) throw error;
    console.error(error.message);
    return EXIT.stopped;
  }
  let checks: RunChecks;
  try {
    checks = RunChecks.prepare(options.checks, file, options.metrics);
  } catch (error) {
    console.error(`${messageOf(error)} Nothing was scored.`);
    return EXIT.stopped;
  }
  const offlineIds = options.metrics.filter((id): id is OfflineMetricId => !isJudgeMetric(id));
  const judgeIds = options.metrics.filter(isJudgeMetric);
  const stop = new RunStop();
  let provider: ProviderConfig | undefined;
  let judge: Judge | undefined;
  let judgeCache: ResponseCache | undefined;
  /** The answer cache on disk, when there is one. */
  let cacheFile: string | undefined;
  if (judgeIds.length > 0) {
    const env = providerFromEnv();
    if (env === null) {
      console.error(
        `LLM metrics (${judgeIds.join(', ')}) need a provider: set ${LLM_ENV.provider}, ${LLM_ENV.model} and ${LLM_ENV.apiKey} (or ${LLM_ENV.baseUrl}).`,
      );
      return EXIT.stopped;
    }
    if ('error' in env) {
      console.error(env.error);
      return EXIT.stopped;
    }
    provider = env.config;
    if (options.batch && options.batch !== provider.kind) {
      console.error(
        `--batch ${options.batch} needs ${LLM_ENV.provider}=${options.batch} (it is ${provider.kind}).`,
      );
      return EXIT.stopped;
    }
    // The LLM layer, the recogniser and the encoders load only when a row needs them: a ROUGE-only
    // run starts in a fraction of the time (the side-by-side bench times the whole process).
    const [{ createJudge, defaultSleep }, { MemoryResponseCache }] = await Promise.all([
      import('../lib/llm/client.ts'),
      import('../lib/llm/cache.ts'),
    ]);
    if (options.cache) {
      try {
        judgeCache = new JsonlResponseCache(options.cache);
        cacheFile = options.cache;
      } catch (error) {
        if (options.cache !== DEFAULT_CACHE_FILE || options.batch) {
          console.error(
            `--cache ${options.cache}: cannot write there (${reasonOf(error)}). Nothing was scored.`,
          );
          return EXIT.stopped;
        }
        console.error(
          `Cannot keep the judge's answers in ${options.cache} (${reasonOf(error)}): they are kept in memory only, so a second run asks them again (--cache FILE puts them elsewhere).`,
        );
      }
    } else if (options.batch) {
      console.error('--batch keeps its job ids beside the answer cache: leave out --no-cache.');
      return EXIT.stopped;
    }
    judgeCache ??= new MemoryResponseCache();
    judge = createJudge(provider, {
      cache: judgeCache,
      ...(cacheFile ? { capabilityStore: new FileCapabilityStore(cacheFile) } : {}),
      // A dead key or an exhausted quota fails the row's other calls before they are sent.
      stopOnFatal: true,
      fetch: stop.fetch,
      // Ctrl-C ends a backoff at once: the retry would not be sent anyway.
      sleep: (ms, signal) =>
        defaultSleep(ms, signal ? AbortSignal.any([signal, stop.aborted]) : stop.aborted),
    });
    console.error(`LLM judge: ${describeProvider(provider)}`);
    if (cacheFile) console.error(`Judge cache: ${cacheFile}`);
  }
  const scrub = (text: string) => scrubSecrets(text, provider);

  const settings = {
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
  // The page's default sentence encoder (on native kernels where they load), vectors kept on disk
  // between runs; started with the first row that has offline metrics to score.
  let offline: Promise<OfflineScorer> | undefined;
  let fewRows = false;
  let rowsRead = 0;
  const offlineScorer = () =>
    (offline ??= import('./offline-pool.ts').then(({ startOfflineScorer }) =>
      startOfflineScorer({
        ids: offlineIds,
        settings,
        embedding: options.embedding,
        encoder: { runtime: options.encoderRuntime, precision: options.precision },
        ...(options.vectorCache ? { vectorCache: options.vectorCache } : {}),
        workers: options.workers ?? (fewRows ? 1 : availableParallelism()),
        note: (line) => console.error(line),
      }),
    ));
  let result: ResultFile | undefined;
  try {
    result = options.out ? new ResultFile(options.out) : undefined;
  } catch (error) {
    console.error(
      `--out ${options.out}: cannot write there (${reasonOf(error)}). Nothing was scored.`,
    );
    return EXIT.stopped;
  }
  const out = result?.stream ?? process.stdout;
  out.on('error', (error: NodeJS.ErrnoException) => {
    // The reader went away (`| head`): stop quietly, as Unix tools do, rather than score (and
    // perhaps pay) for nobody. Any other failure is the disk's, and says which file.
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    console.error(
      `Cannot write the results to ${result ? result.partial : 'stdout'} (${reasonOf(error)})${result ? `; ${result.path} is unchanged` : ''}.`,
    );
    process.exit(EXIT.failed);
  });
  let written = 0;
  const write = (record: object) => {
    written++;
    return out.write(scrub(JSON.stringify(record)) + '\n');
  };
  const writeBadRow = (row: number, error: string) => {
    acc.badRows++;
    checks.badRow(row, error);
    write({ row, error });
  };
  // A reader slower than the scoring (a pipe into `less`, a slow disk) would otherwise leave every
  // line queued in memory: 10⁵ rows of results are hundreds of MB. Wait for it between rows.
  const drained = async () => {
    if (out.writableNeedDrain) await once(out, 'drain');
  };
  /** Where the rows of a run that stopped short are, and what became of the answers bought. */
  const leftBehind = (again: string) => {
    const rows =
      written === 0
        ? 'No row was finished.'
        : result
          ? `The ${written} row(s) finished are in ${result.partial}; ${result.path} is unchanged.`
          : `The ${written} row(s) finished were written.`;
    const answers = cacheFile
      ? ` The answers bought so far are kept in ${cacheFile}: ${again}, run the same command again: it goes on from there and asks none of them again.`
      : judge
        ? ` The answers bought so far were kept in memory only (--no-cache): ${again}, run the same command again to score every row.`
        : ` ${again[0]!.toUpperCase()}${again.slice(1)}, run the same command again to score every row.`;
    return rows + answers;
  };
  stop.install(
    (signal) =>
      console.error(
        stop.inFlight > 0
          ? `${signal}: sending nothing more; waiting for the ${stop.inFlight} request(s) already sent, so that their answers are kept (Ctrl-C again to stop at once).`
          : `${signal}: stopping.`,
      ),
    (signal) => {
      console.error(
        `${signal} again: stopped at once, and answers still on their way are lost. ${leftBehind('then')}`,
      );
      process.exit(stop.exitCode);
    },
  );
  const fingerprint = options.shard ? new InputFingerprint() : undefined;
  const read = file === '-' ? process.stdin : createReadStream(file);
  const input = fingerprint ? fingerprint.tap(read) : read;

  const acc = new RunAccumulator();
  let task = options.task;
  let segmenter: WordSegmenter | undefined;
  let summary: ParseSummary | undefined;
  /** A provider error every later row would meet: the run stops on it. */
  let fatal: string | undefined;
  const stopped = () => stop.signal !== undefined || fatal !== undefined;

  const scorePrediction = (row: DatasetRow) => {
    if (isCaseRow(row)) return;
    if (!task) throw new DatasetParseError(`Prediction rows need a task: --task NAME.`);
    if (row.input.needsPrediction) {
      writeBadRow(row.row, missingPredictionMessage(row.row));
      return;
    }
    if (needsWordSegmenter(task)) segmenter ??= loadJiebaNode();
    const { score, perAnswer } = scoreTinyEvalRow(
      task,
      row.input.prediction,
      row.input.answers,
      row.input.allClasses,
      segmenter ? { segmenter } : {},
    );
    acc.addTaskScore(score);
    write({
      row: row.row,
      ...(row.id ? { id: row.id } : {}),
      task: task.id,
      score,
      perAnswer,
      ...(Object.keys(row.human).length ? { human: row.human } : {}),
      ...checks.taskRow(row, task.id, score),
    });
  };

  const runJudge = async (
    input: CaseRow['input'],
    using: Judge,
  ): Promise<{ results: MetricResult[]; failures: JudgeFailure[] }> => {
    const { runJudgeMetrics } = await import('../lib/metrics/judge/run.ts');
    const results: MetricResult[] = [];
    const { failures } = await runJudgeMetrics(input, {
      metrics: judgeIds,
      settings: DEFAULT_JUDGE_SETTINGS,
      judge: using,
      onResult: (r) => results.push(r),
    });
    return { results, failures };
  };

  /** The row's judge results; undefined when a run-wide error means the row must wait. */
  const judgeCase = async (input: CaseRow['input'], using: Judge) => {
    try {
      const { results, failures } = await runJudge(input, using);
      const runWide = failures.find((f) => RUN_WIDE.has(f.kind));
      if (runWide) {
        fatal ??= scrub(runWide.message);
        return undefined;
      }
      return results;
    } catch (error) {
      const reason = runWideReason(error);
      if (reason) {
        fatal ??= scrub(reason);
        return undefined;
      }
      const message = scrub(messageOf(error));
      return judgeIds.map((id): MetricResult => ({
        id,
        status: 'error',
        score: null,
        explanation: message,
        reason: message,
        backend: `judge:${provider!.kind}/${provider!.model}`,
        details: {},
      }));
    }
  };

  /** `scored`: the row's offline metrics, started ahead (none for a row that cannot be scored). */
  const scoreCase = async (
    row: CaseRow,
    blocking: ReturnType<typeof validateCase>,
    scored: OfflineScore | undefined,
  ) => {
    if (blocking.length > 0) {
      writeBadRow(row.row, `row ${row.row}: ${blocking.map((p) => p.message).join(' ')}`);
      return;
    }
    const started = performance.now() - (scored?.ms ?? 0);
    const results: MetricResult[] = [...(scored?.results ?? [])];
    if (judge && judgeIds.length > 0) {
      const judged = await judgeCase(row.input, judge);
      if (!judged) return;
      for (const r of judged) if (!results.some((s) => s.id === r.id)) results.push(r);
    }
    // Calls refused after Ctrl-C failed this row: it is scored again, from the cache, next run.
    if (stop.signal) return;
    const metrics: Record<string, object> = {};
    for (const r of results) {
      // geval-custom may give several results; keep the first per id in the line.
      if (!(r.id in metrics)) metrics[r.id] = metricEntry(r);
      acc.addMetric(r);
    }
    if (results.some((r) => r.status === 'error')) acc.rowsWithErrors++;
    acc.addHuman(row.human);
    write({
      row: row.row,
      ...(row.id ? { id: row.id } : {}),
      ...(row.kind === 'summeval' && row.group ? { group: row.group } : {}),
      ...(row.system ? { system: row.system } : {}),
      metrics,
      ...(Object.keys(row.human).length ? { human: row.human } : {}),
      ...checks.caseRow(row, results, (performance.now() - started) / 1000),
    });
  };

  // Offline metrics run ahead in worker threads; everything else, and every line, in file order.
  const inOrder = new InOrder(1, stop.aborted);
  const handleItem = async (item: DatasetRow | RowProblem) => {
    const blocking =
      !('reason' in item) && isCaseRow(item)
        ? validateCase(item.input).filter((p) => p.blocking)
        : [];
    const ahead =
      !('reason' in item) && isCaseRow(item) && offlineIds.length > 0 && blocking.length === 0
        ? item.input
        : undefined;
    if (ahead) inOrder.widen((await offlineScorer()).window);
    await inOrder.add(
      async () => (ahead && !stopped() ? (await offlineScorer()).score(ahead) : undefined),
      async (scored) => {
        if (stopped()) return;
        if ('reason' in item && item.kept) {
          // The row is scored; only the cell was left out.
          console.error(scrub(item.reason));
        } else if ('reason' in item) {
          writeBadRow(item.row, item.reason);
        } else if (isCaseRow(item)) {
          acc.rows++;
          await scoreCase(item, blocking, scored);
        } else {
          acc.rows++;
          scorePrediction(item);
        }
        await drained();
      },
    );
  };
  // A batch run reads every row first: its jobs carry the whole data set.
  const held: Array<DatasetRow | RowProblem> = [];

  try {
    for await (const batch of parseDataset(input as AsyncIterable<Uint8Array>, {
      fileName: file === '-' ? '' : file,
      ...(options.format ? { format: options.format } : {}),
      ...(options.kind ? { kind: options.kind } : {}),
      overrides: options.overrides,
    })) {
      if (batch.detected) {
        task ??= batch.detected.task ? resolveTask(batch.detected.task) : undefined;
        if (batch.detected.kind === 'prediction' || batch.detected.kind === 'sft') {
          if (!task) {
            throw new DatasetParseError(
              `${batch.detected.description}: name the task with --task (${Object.keys(TINYEVAL_TASKS).join(', ')}, or custom:METRIC).`,
            );
          }
        }
        console.error(
          `${batch.detected.description}${batch.detected.encoding ? `, ${batch.detected.encoding} text` : ''} (confidence ${batch.detected.confidence})${task && batch.detected.kind !== 'case' && batch.detected.kind !== 'summeval' ? `; scoring task ${task.id} with ${task.metric}` : ''}`,
        );
      }
      // The whole file read before a row is scored, and short: workers would cost more than they save.
      rowsRead += batch.rows.length;
      if (batch.summary && offline === undefined) fewRows = rowsRead < FEW_ROWS;
      // Rows and bad rows in file order.
      const inFile: Array<DatasetRow | RowProblem> = [...batch.rows, ...batch.problems].sort(
        (a, b) => a.row - b.row,
      );
      const items = options.shard ? shardItems(inFile, options.shard) : inFile;
      if (options.batch) {
        held.push(...items);
        if (batch.summary) summary = batch.summary;
        if (stopped()) break;
        continue;
      }
      for (const item of items) {
        if (stopped()) break;
        await handleItem(item);
      }
      if (batch.summary) summary = batch.summary;
      if (stopped()) break;
    }
    if (options.batch && provider && judgeCache && judgeIds.length > 0 && !stopped()) {
      const cases = held.filter(
        (item): item is CaseRow =>
          !('reason' in item) &&
          isCaseRow(item) &&
          !validateCase(item.input).some((p) => p.blocking),
      );
      const [{ runBatch, BATCH_WIRES }, { answersOnlyJudge }] = await Promise.all([
        import('../lib/llm/batch/engine.ts'),
        import('../lib/llm/batch/collect.ts'),
      ]);
      const jobs = new FileJobStore(cacheFile!);
      const interactive = judge!;
      // The interactive judge's probe: a later run without --batch asks the same requests.
      const capabilities = () => interactive.capabilities();
      try {
        const run = await runBatch({
          config: provider,
          cache: judgeCache,
          jobs,
          rows: cases,
          run: async (row, using) => (await runJudge(row.input, using)).results,
          capabilities,
          // The rows are scored once more below, from the cache, and written as they go: the
          // run holds no results, and a round's prompts wait in a file, not in memory.
          keepOutputs: false,
          spool: new FileMissSpool(cacheFile!),
          pollIntervalMs: options.pollIntervalMs,
          fetch: stop.fetch,
          // Ctrl-C ends the wait between polls; a job already submitted is in the job file.
          signal: stop.aborted,
          ...(options.batchMaxRequests
            ? { limits: { maxRequests: options.batchMaxRequests } }
            : {}),
          onEvent: (event) => console.error(scrub(describeBatchEvent(event))),
        });
        judge = answersOnlyJudge(
          provider,
          BATCH_WIRES[provider.kind as BatchKind],
          judgeCache,
          capabilities,
          run.failures,
        );
        console.error(
          `Batch: ${run.rounds} round(s), ${run.jobIds.length} job(s), ${run.requests} request(s), ${run.failedRequests} without an answer.`,
        );
      } catch (error) {
        const reason = runWideReason(error);
        if (reason) fatal = scrub(reason);
        else if (!stop.signal) throw error;
      }
    }
    for (const item of held) {
      if (stopped()) break;
      await handleItem(item);
    }
    await inOrder.drain();
  } catch (error) {
    // Rows read before a bad part of the file are still written, as when each row was awaited.
    await inOrder.drain().catch(() => undefined);
    await result?.keepPartial();
    console.error(scrub(messageOf(error)));
    if (result && written > 0) {
      console.error(`The rows so far are in ${result.partial}; ${result.path} is unchanged.`);
    }
    return error instanceof DatasetParseError ? EXIT.stopped : EXIT.failed;
  }
  // The worker threads idle from here; ending them now frees their memory for the summary.
  await offline?.then((scorer) => scorer.close()).catch(() => undefined);

  if (stopped()) {
    await result?.keepPartial();
    if (fatal) {
      console.error(oneLine(`Stopped: ${fatal} ${leftBehind('once that is fixed')}`));
      return EXIT.stopped;
    }
    console.error(`Interrupted (${stop.signal}). ${leftBehind('to resume')}`);
    return stop.exitCode;
  }

  let unwritten = false;
  try {
    await result?.commit();
  } catch (error) {
    unwritten = true;
    console.error(
      `Cannot replace ${result!.path} (${reasonOf(error)}): the rows are in ${result!.partial}.`,
    );
  }
  if (!summary) {
    console.error(`No row could be read from ${file}.`);
    return EXIT.failed;
  }
  const detected = summary.detected;
  const isPrediction = detected.kind === 'prediction' || detected.kind === 'sft';
  const report = acc.summary(
    {
      file,
      format: summary.format,
      kind: detected.kind,
      description: detected.description,
      warnings: summary.warnings,
    },
    isPrediction ? task : undefined,
    segmenter,
  );
  if (options.shard && result && !unwritten) {
    unwritten = !writeShardRecord(
      result.path,
      {
        shard: options.shard,
        input: fingerprint!.digest(file),
        scoring: {
          metrics: options.metrics,
          task: task?.id,
          format: options.format,
          kind: options.kind,
          map: options.overrides,
          settings,
          judge: provider && { provider: provider.kind, model: provider.model },
        },
        lines: written,
        report,
      },
      scrub,
    );
  }
  console.error('\n' + scrub(formatSummary(report)));
  // A shard may own none of the file's rows: the merge judges the whole.
  const noRows = acc.rows === 0 && !(options.shard && summary.rows > 0);
  const incomplete = noRows || acc.badRows > 0 || acc.rowsWithErrors > 0 || unwritten;
  const checked = checks.finish(report, incomplete, scrub);
  if (options.summaryJson) {
    try {
      const summaryJson = { ...report, ...checked.json };
      replaceFile(options.summaryJson, scrub(JSON.stringify(summaryJson, null, 2)) + '\n');
    } catch (error) {
      unwritten = true;
      console.error(
        `Cannot write the summary to ${options.summaryJson} (${reasonOf(error)}); the rows are ${result ? `in ${result.path}` : 'on stdout'}.`,
      );
    }
  }
  if (noRows) {
    console.error(
      `No row could be read from ${file}${acc.badRows ? ` (${acc.badRows} bad row(s), listed in the output)` : ''}: check its format, or map its columns with --map.`,
    );
  }
  return incomplete || unwritten || checked.failed ? EXIT.failed : EXIT.ok;
}

/** A provider error's words when every later row would meet it too (RUN_WIDE). */
function runWideReason(error: unknown): string | undefined {
  const kind = (error as { kind?: unknown } | undefined)?.kind;
  return error instanceof Error && RUN_WIDE.has(kind as LlmErrorKind) ? error.message : undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

function describeBatchEvent(event: BatchEvent): string {
  switch (event.type) {
    case 'round': {
      const e = event.estimate;
      const price =
        e.costUsd === undefined
          ? 'price unknown for this model'
          : `at most $${e.costUsd.toFixed(4)} at the batch rate (half price)`;
      return `Batch round ${event.round}: ${e.requests} request(s) in ${e.jobs} new job(s), ${price}; at most ${e.inputTokens} input and ${e.outputTokens} output tokens.`;
    }
    case 'submitted':
      return `Batch job ${event.jobId} submitted (${event.requests} request(s)).`;
    case 'resumed':
      return `Batch job ${event.jobId} was pending from an earlier run: polling it again (${event.requests} request(s)).`;
    case 'status': {
      const s = event.status;
      const counts = s.total ? ` (${s.done ?? 0}/${s.total})` : '';
      return `Batch job ${event.jobId}: ${s.raw}${counts}${s.message ? `: ${s.message}` : ''}`;
    }
    case 'downloaded':
      return `Batch job ${event.jobId}: ${event.answered} answered, ${event.failed} without an answer.`;
  }
}

// Exit only once stdout has taken every line: a pipe whose reader lags queues writes, and
// process.exit() would drop what is still queued.
const exitAfterFlush = (code: number) => process.stdout.write('', () => process.exit(code));

main(process.argv.slice(2)).then(exitAfterFlush, (error: unknown) => {
  console.error(messageOf(error));
  process.exit(1);
});
