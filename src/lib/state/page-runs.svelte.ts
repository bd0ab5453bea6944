/**
 * Runs that execute in the page rather than in the batch worker: those with LLM metrics (the
 * judge's key never goes to a worker) or coherence on provider embeddings. Each row's metrics but
 * the judge's go through the scoring engine that Score uses (its workers, started once); rows are
 * stored as they finish, under the run's Web Lock. The browser going offline pauses them (halt)
 * and its coming back resumes them, through the session.
 */
import { batchAnswersJudge, sendRunAsBatchJobs } from '../datasets/provider-batch.ts';
import type { JudgeResponse } from '../llm/types.ts';
import { judgeAnswerCache } from '../storage/judge-cache.ts';
import { pendingRows, runBatchJobStore } from '../storage/runs.ts';
import type { ProviderBatchState } from '../storage/schema.ts';
import { messageOf } from '../errors.ts';
import { englishRef, ref, type MessageRef } from '../i18n/message.ts';
import {
  isJudgeMetric,
  PauseController,
  pageRowScorer,
  RUN_BUSY_MESSAGE,
  runLockName,
  runStoredBatchLocked,
  type BatchProgress,
} from '../datasets/batch.ts';
import { exclusively } from '../datasets/lanes.ts';
import { driveCeiling, SpendGate } from '../datasets/run-ceiling.ts';
import { estimateCost, type PriceTable } from '../llm/prices.ts';
import { runLabel } from '../datasets/names.ts';
import { updateRun } from '../storage/runs.ts';
import type { StoredRun } from '../storage/schema.ts';
import type { ModelSource } from '../models/source.ts';
import type { CaseInput, MetricId } from '../metrics/types.ts';
import type { ScoringEngine } from '../scoring/engine.ts';
import type { JudgeSession } from './judge.svelte.ts';

/**
 * What a run that executes in the page (one with LLM metrics, or coherence on provider
 * embeddings) shares with the single-case scoring: its engine (workers, language detection,
 * provider embeddings), and the judge with the key, which never goes to a worker.
 */
export interface PageScoring {
  /** Starts its workers on first use (a run resumed on load may come before Score). */
  readonly engine: ScoringEngine;
  readonly judge: JudgeSession;
  /** Where transformer models come from, for runs resumed without the page's choice. */
  readonly models: ModelSource;
}

/** A run executing in the page, with the switches the run list's buttons use. */
interface PageRun {
  cancel: AbortController;
  pause: PauseController;
  /** Stops the run as paused with a reason (the browser went offline). */
  halt: AbortController;
}

/** Why the page paused its runs when the browser went offline. */
export const OFFLINE_REF = ref('runs.batch.offline');
export const OFFLINE_MESSAGE = englishRef(OFFLINE_REF);

/**
 * Pauses a run that cannot start in this page (the judge it needs is not the one chosen): the run
 * keeps the English reason, the page shows it in its language.
 */
async function pausedBefore(run: StoredRun, reason: MessageRef | string): Promise<PageRunOutcome> {
  const messageRef = ref('runs.page.paused', { run: runLabel(run), reason });
  const message = englishRef(messageRef);
  await updateRun(run.id, { status: 'paused', message, messageRef }).catch(() => undefined);
  return { status: 'paused', message, messageRef };
}

export function browserOffline(): boolean {
  return globalThis.navigator?.onLine === false;
}

/** How a page run stopped, as the session reads it (the batch worker's outcome has the same). */
export interface PageRunOutcome {
  status: string;
  message?: string;
  /** `message` as a message, where the page words it. */
  messageRef?: MessageRef;
  stoppedBy?: string;
}

export class PageRuns {
  readonly #scoring: PageScoring | undefined;
  readonly #runs = new Map<string, PageRun>();
  /** Bumped when a run starts or ends: `has` reads a plain map. */
  #version = $state(0);

  constructor(scoring: PageScoring | undefined) {
    this.#scoring = scoring;
  }

  has(runId: string): boolean {
    void this.#version;
    return this.#runs.has(runId);
  }

  /** Pauses every run with the offline reason; returns their ids, to resume when back online. */
  haltAll(): string[] {
    for (const run of this.#runs.values()) run.halt.abort(OFFLINE_REF);
    return [...this.#runs.keys()];
  }

  pause(runId: string): boolean {
    const run = this.#runs.get(runId);
    run?.pause.pause();
    return run !== undefined;
  }

  continue(runId: string): boolean {
    const run = this.#runs.get(runId);
    run?.pause.resume();
    return run !== undefined;
  }

  cancel(runId: string): boolean {
    const run = this.#runs.get(runId);
    run?.cancel.abort();
    return run !== undefined;
  }

  /**
   * A run with LLM metrics, in the page: the key stays here. Refuses to go on with another judge
   * than the one it started with, so that one run never mixes two judges' scores. Everything
   * happens under the run's Web Lock, so that only the tab that runs it writes its status: a
   * second tab without the key must not rewrite a running run as paused.
   */
  drive(
    run: StoredRun,
    models: ModelSource | undefined,
    retryFailed: boolean,
    onProgress: (progress: BatchProgress) => void,
    onBatchState: (state: ProviderBatchState) => void = () => {},
  ): Promise<PageRunOutcome> {
    return exclusively(runLockName(run.id), RUN_BUSY_MESSAGE, () =>
      this.#driveLocked(run, models, retryFailed, onProgress, onBatchState),
    );
  }

  async #driveLocked(
    run: StoredRun,
    models: ModelSource | undefined,
    retryFailed: boolean,
    onProgress: (progress: BatchProgress) => void,
    onBatchState: (state: ProviderBatchState) => void,
  ): Promise<PageRunOutcome> {
    const scoring = this.#scoring;
    if (!scoring) throw new Error('LLM metrics cannot run here: no judge is attached.');
    let judge: ReturnType<JudgeSession['batchJudge']> | undefined;
    let gate: SpendGate | undefined;
    try {
      if (run.metrics.some(isJudgeMetric)) {
        const wanted = run.backends.judge;
        const now = scoring.judge.provider;
        if (wanted && (wanted.provider !== now.kind || wanted.model !== now.model.trim())) {
          return await pausedBefore(
            run,
            ref('runs.page.otherJudge', {
              judge: `${wanted.provider}/${wanted.model}`,
              section: ref('judge.provider.title'),
            }),
          );
        }
        // Counted from what the run had spent before this drive; every request goes through it.
        const prices = $state.snapshot(scoring.judge.prices) as PriceTable;
        // (the rows left include the failed ones: a resume scores them again)
        const rowsLeft = run.counts.total - run.counts.done + run.counts.failed;
        const ceiling = driveCeiling(
          run.settings.ceiling,
          run.judgeUsage?.httpCalls ?? 0,
          rowsLeft,
        );
        const spendGate = new SpendGate(ceiling, run.judgeUsage, (usage) =>
          estimateCost(usage, now.kind, now.model.trim(), prices),
        );
        gate = spendGate;
        const fresh = scoring.judge.batchJudge(
          run.settings.providerBatch ? {} : { fetch: spendGate.fetch(now.kind) },
        );
        const started = run.settings.judge ?? fresh.settings;
        // The run's settings, except a context lowered since: the way out of "the prompt is
        // longer than the model's context window" (only fewer tokens, never another judgement).
        judge = {
          ...fresh,
          settings: {
            ...started,
            contextTokens: Math.min(started.contextTokens, fresh.settings.contextTokens),
          },
        };
      }
    } catch (error) {
      return await pausedBefore(run, messageOf(error));
    }
    // A batch run's rows read their answers from the cache the jobs filled, never from the
    // provider at the standard price; the probe-backed capabilities keep both passes' requests
    // the same.
    const interactive = judge?.judge;
    const batched = judge && interactive && run.settings.providerBatch ? judge : undefined;
    if (batched && interactive) {
      try {
        judge = {
          ...batched,
          judge: await batchAnswersJudge(
            scoring.judge.config(),
            judgeAnswerCache<JudgeResponse>(),
            () => interactive.capabilities(),
          ),
        };
      } catch (error) {
        return await pausedBefore(run, messageOf(error));
      }
    }
    const settings = run.settings.metrics;
    const modelSource = models ?? ($state.snapshot(scoring.models) as ModelSource);
    // The engine sends each metric where Score would: its worker, or the provider's embeddings.
    const viaEngine = async (ids: MetricId[], input: CaseInput, signal: AbortSignal) => {
      const scoringSettings = {
        metrics: ids,
        settings,
        models: modelSource,
        providerConfig: () => scoring.judge.config(),
      };
      return (await scoring.engine.scoreCase(input, scoringSettings, { signal })).results;
    };
    const detectLanguages = (texts: string[]) => scoring.engine.detectLanguages(texts);
    const scoreRow = pageRowScorer({
      metrics: run.metrics,
      settings,
      offline: viaEngine,
      extra: viaEngine,
      ...(judge ? { judge } : {}),
      isOffline: browserOffline,
      ...(gate
        ? {
            ceiling: {
              reached: () => (gate?.reached ? gate.pauseReason() : undefined),
              takeUnsent: (max: number) => gate?.takeUnsent(max) ?? 0,
            },
          }
        : {}),
    });
    const handle: PageRun = {
      cancel: new AbortController(),
      pause: new PauseController(),
      halt: new AbortController(),
    };
    this.#runs.set(run.id, handle);
    this.#version++;
    try {
      if (browserOffline()) handle.halt.abort(OFFLINE_REF);
      if (batched && interactive && !handle.halt.signal.aborted) {
        // Pause stops the polling, not the provider's job: Resume polls the same job again.
        const stopBatch = new AbortController();
        const onCancel = () => stopBatch.abort();
        handle.cancel.signal.addEventListener('abort', onCancel, { once: true });
        const unsubscribe = handle.pause.subscribe((paused) => {
          if (paused) stopBatch.abort();
        });
        try {
          // Running again (a resume after a pause): a reload from here on resumes it by itself.
          await updateRun(run.id, { status: 'running', message: null });
          await sendRunAsBatchJobs({
            run,
            rows: pendingRows(run.id, { includeFailed: retryFailed }),
            config: scoring.judge.config(),
            judgeSettings: batched.settings,
            cache: judgeAnswerCache<JudgeResponse>(),
            jobs: runBatchJobStore(run.id),
            detectLanguages,
            capabilities: () => interactive.capabilities(stopBatch.signal),
            signal: stopBatch.signal,
            onState: (state) => {
              onBatchState(state);
              void updateRun(run.id, { batchState: state }).catch(() => undefined);
            },
          });
        } catch (error) {
          // A cancel ends the run below, as any cancelled run; anything else pauses it with the
          // provider's words, its pending job ids kept for the resume.
          if (!handle.cancel.signal.aborted) {
            if (!handle.pause.paused) {
              return await pausedBefore(
                run,
                ref('runs.batch.jobsFailed', { error: messageOf(error) }),
              );
            }
            // The user paused: the reason goes on the run's line, not in the page's error banner.
            return {
              ...(await pausedBefore(run, ref('runs.batch.pausedWaiting'))),
              stoppedBy: 'user',
            };
          }
        } finally {
          unsubscribe();
          handle.cancel.signal.removeEventListener('abort', onCancel);
        }
      }
      return await runStoredBatchLocked(run.id, {
        scoreRow,
        // Each row's language from the language worker, a chunk of rows per message.
        detectLanguages,
        onProgress,
        signal: handle.cancel.signal,
        pause: handle.pause,
        halt: handle.halt.signal,
        retryFailed,
      });
    } finally {
      this.#runs.delete(run.id);
      this.#version++;
    }
  }
}
