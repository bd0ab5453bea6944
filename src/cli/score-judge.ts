/**
 * The LLM judge of `npm run score`: the provider the environment names, its answer cache on disk,
 * and a row's judge metrics, told apart from the provider errors that stop the whole run.
 */
import { messageOf } from '../lib/errors.ts';
import type { Judge, LlmErrorKind, ProviderConfig } from '../lib/llm/types.ts';
import type { ResponseCache } from '../lib/llm/cache.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../lib/metrics/judge/settings.ts';
import type { JudgeFailure } from '../lib/metrics/judge/run.ts';
import type { JudgeMetricId, MetricResult } from '../lib/metrics/types.ts';
import type { CaseRow } from '../lib/rows/formats.ts';
import { DEFAULT_CACHE_FILE, FileCapabilityStore, JsonlResponseCache } from './disk-cache.ts';
import { describeProvider, LLM_ENV, providerFromEnv } from './llm-env.ts';
import { reasonOf } from './outputs.ts';
import type { Options } from './score-options.ts';
import type { RunStop } from './stop.ts';

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

/** A provider error's words when every later row would meet it too (RUN_WIDE). */
export function runWideReason(error: unknown): string | undefined {
  const kind = (error as { kind?: unknown } | undefined)?.kind;
  return error instanceof Error && RUN_WIDE.has(kind as LlmErrorKind) ? error.message : undefined;
}

export interface JudgeSetup {
  provider: ProviderConfig;
  judge: Judge;
  judgeCache: ResponseCache;
  /** The answer cache on disk, when there is one. */
  cacheFile?: string;
}

/**
 * The judge for `judgeIds`, or why the run cannot start (already the words to print). Notes that
 * do not stop it (the provider, the cache file, a cache kept in memory only) go to stderr here.
 */
export async function setUpJudge(
  judgeIds: readonly JudgeMetricId[],
  options: Pick<Options, 'batch' | 'cache'>,
  stop: RunStop,
): Promise<JudgeSetup | { error: string }> {
  const env = providerFromEnv();
  if (env === null) {
    return {
      error: `LLM metrics (${judgeIds.join(', ')}) need a provider: set ${LLM_ENV.provider}, ${LLM_ENV.model} and ${LLM_ENV.apiKey} (or ${LLM_ENV.baseUrl}).`,
    };
  }
  if ('error' in env) return { error: env.error };
  const provider = env.config;
  if (options.batch && options.batch !== provider.kind) {
    return {
      error: `--batch ${options.batch} needs ${LLM_ENV.provider}=${options.batch} (it is ${provider.kind}).`,
    };
  }
  // The LLM layer, the recogniser and the encoders load only when a row needs them: a ROUGE-only
  // run starts in a fraction of the time (the side-by-side bench times the whole process).
  const [{ createJudge, defaultSleep }, { MemoryResponseCache }] = await Promise.all([
    import('../lib/llm/client.ts'),
    import('../lib/llm/cache.ts'),
  ]);
  let judgeCache: ResponseCache | undefined;
  let cacheFile: string | undefined;
  if (options.cache) {
    try {
      judgeCache = new JsonlResponseCache(options.cache);
      cacheFile = options.cache;
    } catch (error) {
      if (options.cache !== DEFAULT_CACHE_FILE || options.batch) {
        return {
          error: `--cache ${options.cache}: cannot write there (${reasonOf(error)}). Nothing was scored.`,
        };
      }
      console.error(
        `Cannot keep the judge's answers in ${options.cache} (${reasonOf(error)}): they are kept in memory only, so a second run asks them again (--cache FILE puts them elsewhere).`,
      );
    }
  } else if (options.batch) {
    return { error: '--batch keeps its job ids beside the answer cache: leave out --no-cache.' };
  }
  judgeCache ??= new MemoryResponseCache();
  const judge = createJudge(provider, {
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
  return { provider, judge, judgeCache, ...(cacheFile ? { cacheFile } : {}) };
}

/** One row's judge metrics, with the failures that left a metric without a score. */
export async function runJudge(
  input: CaseRow['input'],
  judgeIds: JudgeMetricId[],
  using: Judge,
): Promise<{ results: MetricResult[]; failures: JudgeFailure[] }> {
  const { runJudgeMetrics } = await import('../lib/metrics/judge/run.ts');
  const results: MetricResult[] = [];
  const { failures } = await runJudgeMetrics(input, {
    metrics: judgeIds,
    settings: DEFAULT_JUDGE_SETTINGS,
    judge: using,
    onResult: (r) => results.push(r),
  });
  return { results, failures };
}

/**
 * The row's judge results, or `runWide`: a provider error every later row would meet, on which the
 * run stops (the row waits for the next run). Any other error fails each judge metric of the row.
 */
export async function judgeCase(
  input: CaseRow['input'],
  judgeIds: JudgeMetricId[],
  using: Judge,
  provider: ProviderConfig,
  scrub: (text: string) => string,
): Promise<MetricResult[] | { runWide: string }> {
  try {
    const { results, failures } = await runJudge(input, judgeIds, using);
    const runWide = failures.find((f) => RUN_WIDE.has(f.kind));
    return runWide ? { runWide: scrub(runWide.message) } : results;
  } catch (error) {
    const reason = runWideReason(error);
    if (reason) return { runWide: scrub(reason) };
    const message = scrub(messageOf(error));
    return judgeIds.map((id): MetricResult => ({
      id,
      status: 'error',
      score: null,
      explanation: message,
      reason: message,
      backend: `judge:${provider.kind}/${provider.model}`,
      details: {},
    }));
  }
}
