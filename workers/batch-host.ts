/**
 * The batch worker's side of src/lib/workers/batch-api.ts, apart from the worker's entry so that
 * a test serves it in one thread (Node backends, fake-indexeddb): one job per run id, pause and
 * resume by id, progress throttled to PROGRESS_INTERVAL_MS.
 */
import type { ModelSource } from '../src/lib/models/source.ts';
import type { OfflineBackends } from '../src/lib/metrics/offline.ts';
import type { MetricSettings } from '../src/lib/metrics/settings.ts';
import {
  PauseController,
  runStoredBatch,
  type BatchOutcome,
  type BatchProgress,
  type DetectLanguages,
} from '../src/lib/datasets/batch.ts';
import {
  batchApi,
  PROGRESS_INTERVAL_MS,
  type BatchFinished,
} from '../src/lib/workers/batch-api.ts';
import type { Loading } from '../src/lib/workers/metric-api.ts';
import { serve, type RpcScope } from '../src/lib/workers/rpc.ts';

export type LoadingReporter = (loading: Loading) => void;

/**
 * Rows scored at once when the page does not say: with one row at a time the worker waits out
 * every IndexedDB write and sentence-encoder call doing nothing; rows in flight can use those
 * waits. (Measured on a cold run of the default metrics, where the encoder's CPU is the limit, it
 * gains little: bench/batch-rows.ts.) Results are keyed by row, so the stored order is unchanged.
 */
export const ROWS_IN_FLIGHT = 4;

/** The backends a run needs, for its settings: the worker builds them (GloVe, compromise, jieba,
 * transformer models); a test passes Node ones. */
export type BatchBackendFactory = (
  settings: MetricSettings,
  models: ModelSource | undefined,
  report: LoadingReporter,
) => OfflineBackends;

interface ActiveRun {
  pause: PauseController;
  outcome: Promise<BatchFinished>;
}

function finished(outcome: BatchOutcome): BatchFinished {
  return {
    status: outcome.status,
    done: outcome.done,
    failed: outcome.failed,
    total: outcome.total,
    scored: outcome.scored,
    ...(outcome.message === undefined ? {} : { message: outcome.message }),
    ...(outcome.messageRef === undefined ? {} : { messageRef: outcome.messageRef }),
    ...(outcome.stoppedBy === undefined ? {} : { stoppedBy: outcome.stoppedBy }),
  };
}

/**
 * `detectLanguages`: the rows' languages (the worker: cld3 in its own thread; a test: cld3 in
 * Node, or the script when left out).
 */
export function serveBatchRuns(
  backendsFor: BatchBackendFactory,
  scope: RpcScope,
  clock: () => number = () => performance.now(),
  detectLanguages?: DetectLanguages,
): void {
  const active = new Map<string, ActiveRun>();
  serve(
    batchApi,
    {
      run({ runId, models, concurrency, retryFailed }, { signal, progress }) {
        const running = active.get(runId);
        if (running) {
          // Already running here: a second start is a resume, and ends with the same outcome.
          running.pause.resume();
          return running.outcome;
        }
        let lastPost = -Infinity;
        let lastState: BatchProgress['state'] | undefined;
        const onProgress = (p: BatchProgress) => {
          const now = clock();
          if (p.state === lastState && now - lastPost < PROGRESS_INTERVAL_MS) return;
          lastPost = now;
          lastState = p.state;
          progress({ type: 'progress', progress: p });
        };
        const report: LoadingReporter = (loading) => progress({ type: 'loading', ...loading });
        const pause = new PauseController();
        const outcome = runStoredBatch(runId, {
          backends: (settings) => backendsFor(settings, models, report),
          ...(detectLanguages ? { detectLanguages } : {}),
          concurrency: concurrency ?? ROWS_IN_FLIGHT,
          ...(retryFailed ? { retryFailed: true } : {}),
          onProgress,
          signal,
          pause,
          clock,
        })
          .then(finished)
          .finally(() => active.delete(runId));
        active.set(runId, { pause, outcome });
        return outcome;
      },
      pause({ runId }) {
        active.get(runId)?.pause.pause();
        return null;
      },
      resume({ runId }) {
        active.get(runId)?.pause.resume();
        return null;
      },
    },
    scope,
  );
}
