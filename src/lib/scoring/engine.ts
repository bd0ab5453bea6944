/**
 * The scoring engine: one place that owns the metric workers, the language worker, the case's
 * embeddings (ahead of Score, or on the provider's API) and the judge, behind one call,
 * `scoreCase`, used by the Score button and by every row of a data-set run that executes in the
 * page. Plain TypeScript (no runes): the page's state classes hold what is shown, and tests drive
 * the engine with fake workers.
 *
 * Results stream through `onResult` as each job finishes, so a slow model never hides a fast
 * score. Aborting the signal cancels the workers' jobs and the judge's calls, drops every result
 * that comes after, and rejects the call with the signal's reason (a cancelled data-set row must
 * not be stored as if it were complete).
 */
import type { ProviderConfig } from '../llm/types.ts';
import { METRICS } from '../metrics/registry.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { TextLanguage } from '../metrics/text/language.ts';
import type { CaseInput, MetricId, MetricResult } from '../metrics/types.ts';
import type { ModelSource } from '../models/source.ts';
import { PreEmbedder, providerEmbeddingMetrics, type PreEmbedRequest } from './embedding-step.ts';
import { judgeCase, type CaseJudge, type JudgeOutcome } from './judge-step.ts';
import { workerLanguageDetector, type LanguageDetector } from './language-step.ts';
import { errorResult } from './results.ts';
import {
  WorkerPool,
  type MetricWorkerSet,
  type OnWorkerProgress,
  type WorkerNeeds,
} from './worker-pool.ts';

/** What to score a case with. */
interface CaseSettings<Report = never> {
  /** The metrics that need no judge; each goes to its worker, or to the provider's embeddings. */
  metrics: readonly MetricId[];
  settings: MetricSettings;
  models: ModelSource;
  /** The judge's provider, read only when the embeddings are the provider's (its key stays here). */
  providerConfig?: () => ProviderConfig;
  /** The LLM-judge metrics and how to run them; none without it. */
  judge?: CaseJudge<Report>;
}

interface ScoreHandlers {
  /** Each result as it arrives, never after an abort. */
  onResult?(result: MetricResult): void;
  /** The workers' model loading, for the progress rows. */
  onProgress?: OnWorkerProgress;
  signal?: AbortSignal;
}

interface CaseScore<Report = never> {
  /** Every result of the case, in the order they arrived. */
  results: MetricResult[];
  /** How the judge run ended, when the case had one. */
  judge?: JudgeOutcome<Report>;
}

interface EngineOptions {
  /** Starts the metric workers (default: the page's three module workers). */
  startWorkers?: () => MetricWorkerSet;
  languages?: LanguageDetector;
  preEmbedDelayMs?: number;
}

export class ScoringEngine {
  readonly #pool: WorkerPool;
  readonly #languages: LanguageDetector;
  readonly #preEmbedder: PreEmbedder;

  constructor(options: EngineOptions = {}) {
    this.#pool = new WorkerPool(options.startWorkers);
    this.#languages = options.languages ?? workerLanguageDetector;
    this.#preEmbedder = new PreEmbedder(
      () => this.#pool.started?.embedding,
      options.preEmbedDelayMs,
    );
  }

  /**
   * Starts the metric workers and the language worker while the user is still pasting: Score
   * asks for the case's language before any metric starts, and cld3 takes a while to load.
   */
  start(): void {
    void this.#pool.workers;
    this.#languages.start();
  }

  /** Loads every worker's backend for these settings: on start, and from "Load now". */
  loadBackends(
    settings: MetricSettings,
    models: ModelSource,
    onProgress: OnWorkerProgress,
    onLoaded?: (needs: WorkerNeeds) => void,
  ): Promise<void> {
    return this.#pool.load(settings, models, onProgress, onLoaded);
  }

  /** Embeds the case's sentences once typing pauses (see PreEmbedder); a hint, never an error. */
  schedulePreEmbed(read: () => PreEmbedRequest): void {
    this.#preEmbedder.schedule(read);
  }

  /** The language of a case (its sample: state/case-language.svelte.ts). */
  detectLanguage(sample: string): Promise<TextLanguage> {
    return this.#languages.detect(sample);
  }

  /** The language of each text, a chunk of a run's rows at a time. */
  detectLanguages(texts: string[]): Promise<TextLanguage[]> {
    return this.#languages.detectMany(texts);
  }

  /**
   * Scores one case: resolves with every result once all have arrived, each of them streamed to
   * `onResult` first. A failing worker, provider or judge gives its metrics error results; only
   * an abort rejects.
   */
  async scoreCase<Report = never>(
    input: CaseInput,
    scoring: CaseSettings<Report>,
    handlers: ScoreHandlers = {},
  ): Promise<CaseScore<Report>> {
    const signal = handlers.signal ?? new AbortController().signal;
    signal.throwIfAborted();
    const results: MetricResult[] = [];
    const emit = (result: MetricResult) => {
      if (signal.aborted) return;
      results.push(result);
      handlers.onResult?.(result);
    };
    const onProvider = scoring.settings.backends.embedding.kind === 'provider';
    const wanted = new Set(scoring.metrics);
    const providerIds = onProvider
      ? METRICS.filter((m) => m.needs === 'embedding' && wanted.has(m.id)).map((m) => m.id)
      : [];
    const workerIds = scoring.metrics.filter((id) => !providerIds.includes(id));

    const jobs: Array<Promise<unknown>> = [
      this.#pool.score(workerIds, {
        input,
        settings: scoring.settings,
        models: scoring.models,
        signal,
        emit,
        results,
        ...(handlers.onProgress ? { onProgress: handlers.onProgress } : {}),
      }),
    ];
    if (providerIds.length > 0) {
      jobs.push(this.#onProviderEmbeddings(providerIds, input, scoring, signal).then(emitAll));
    }
    let judged: Promise<JudgeOutcome<Report> | undefined> | undefined;
    if (scoring.judge && scoring.judge.metrics.length > 0) {
      judged = judgeCase(scoring.judge, input, emit, results, signal);
      jobs.push(judged);
    }
    await Promise.all(jobs);
    signal.throwIfAborted();
    const judge = await judged;
    return { results, ...(judge ? { judge } : {}) };

    function emitAll(scored: MetricResult[]) {
      for (const result of scored) emit(result);
    }
  }

  async #onProviderEmbeddings(
    ids: MetricId[],
    input: CaseInput,
    scoring: CaseSettings<unknown>,
    signal: AbortSignal,
  ): Promise<MetricResult[]> {
    const config = scoring.providerConfig?.();
    if (!config) {
      // (a caller bug: the page always passes its judge's provider)
      const reason = 'Provider embeddings need the LLM judge provider, and none was given.';
      return ids.map((id) => errorResult(id, reason, 'none'));
    }
    return providerEmbeddingMetrics(config, ids, input, scoring.settings, signal);
  }
}
