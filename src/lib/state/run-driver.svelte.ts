/**
 * Driving data-set runs from this page: a run of the offline metrics goes to the batch worker, one
 * with LLM metrics (or provider embeddings) runs here through the scoring engine and the judge
 * (./page-runs.svelte.ts). Each drive holds the run's claim (a Web Lock) from the click to its
 * outcome, so that no other tab takes it over meanwhile, and leaves the stored status saying what
 * happened. The buttons of a run another tab drives are relayed there.
 */
import { SvelteSet } from 'svelte/reactivity';
import { pageCanBatch } from '../datasets/provider-batch.ts';
import { SaidError, said } from '../i18n/said-error.ts';
import { APP_VERSION } from '../version.ts';
import { messageOf } from '../errors.ts';
import { localized } from '../i18n/i18n.svelte.ts';
import { ref, type MessageRef } from '../i18n/message.ts';
import {
  createBatchRun,
  isJudgeMetric,
  RUN_BUSY_MESSAGE,
  RUN_BUSY_REF,
  runClaimName,
  runLockName,
  runExecutor,
  type BatchProgress,
} from '../datasets/batch.ts';
import { exclusively, heldLockNames } from '../datasets/lanes.ts';
import { announceRun, type RunControl } from '../storage/run-changes.ts';
import { clearJournaledStatus } from '../storage/run-status-journal.ts';
import { getRun, updateRun } from '../storage/runs.ts';
import { runLabel } from '../datasets/names.ts';
import type { RunCeiling, StoredDataset, StoredRun } from '../storage/schema.ts';
import type { RunChoice } from './run-list.ts';
import { BatchWorkerClient } from '../workers/batch-api.ts';
import type { JudgeSettings } from '../metrics/judge/settings.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { ModelSource } from '../models/source.ts';
import type { JudgeSession } from './judge.svelte.ts';
import {
  browserOffline,
  PageRuns,
  type PageRunOutcome,
  type PageScoring,
} from './page-runs.svelte.ts';
import { settleRunStatus } from './run-status.ts';

interface DriveOptions {
  /** Stores the run first, under the drive's claim (a new run). */
  create?: () => Promise<StoredRun>;
  retryFailed?: boolean;
  quietIfBusy?: boolean;
  /** A resume nobody clicked (page load, a tab taking over): only a run still stored running. */
  onlyIfRunning?: boolean;
}

/** What the driver shows through the data-set session's state. */
interface RunDriverHost {
  runs(): readonly StoredRun[];
  /** A run just stored, into the list. */
  addRun(run: StoredRun): void;
  patchRun(runId: string, change: Partial<StoredRun>): void;
  /** A run's progress; undefined drops it (a new start must not show the last outcome's). */
  setProgress(runId: string, progress: BatchProgress | undefined): void;
  setError(error: MessageRef | string | undefined): void;
  setLoadingStage(stage: string | undefined): void;
  refresh(): Promise<void>;
  open(runId: string): Promise<void>;
  /** Another context may have written the run: read it again. */
  runChanged(runId: string): void;
  /** Bumped when the browser closes the database under the page (site data cleared). */
  losses(): number;
}

export class RunDriver {
  readonly #host: RunDriverHost;
  readonly #scoring: PageScoring | undefined;
  readonly #pageRuns: PageRuns;
  #batch: BatchWorkerClient | undefined;
  /** Runs paused because the browser went offline: resumed when it is back online. */
  readonly #resumeWhenOnline = new Set<string>();
  /**
   * The runs this page is driving (in the batch worker or in the page), from the click to their
   * outcome: reactive, so that the list shows Pause and Cancel the moment a run starts.
   */
  readonly #driving = new SvelteSet<string>();
  /** Runs another tab (or its worker) drives: this page only shows them, and relays the buttons. */
  readonly elsewhere = new SvelteSet<string>();

  constructor(host: RunDriverHost, scoring: PageScoring | undefined) {
    this.#host = host;
    this.#scoring = scoring;
    this.#pageRuns = new PageRuns(scoring);
    // Judge calls cannot work offline: pause the page's runs rather than fail their rows, and go
    // on when the connection is back (only runs this tab paused for that reason).
    globalThis.addEventListener?.('offline', () => {
      for (const runId of this.#pageRuns.haltAll()) this.#resumeWhenOnline.add(runId);
    });
    globalThis.addEventListener?.('online', () => {
      const waiting = [...this.#resumeWhenOnline];
      this.#resumeWhenOnline.clear();
      for (const runId of waiting) if (!this.isRunning(runId)) void this.resume(runId);
    });
  }

  /**
   * Who holds each of `runs` now: the buttons of a run another tab drives are relayed there, and
   * a run stored running that nobody holds (its tab was closed or crashed) is taken over here.
   */
  async checkDrivers(runs: readonly StoredRun[]): Promise<void> {
    let held: Set<string> | undefined;
    try {
      held = await heldLockNames();
    } catch {
      return;
    }
    if (!held) return;
    for (const run of runs) {
      if (this.isRunning(run.id)) continue;
      if (held.has(runClaimName(run.id)) || held.has(runLockName(run.id))) {
        this.elsewhere.add(run.id);
        // (a notice lost with a worker that closed its channel must not freeze the list)
        this.#host.runChanged(run.id);
        continue;
      }
      this.elsewhere.delete(run.id);
      if (run.status !== 'running') continue;
      // Stored running and held by nobody: every drive holds its claim from before the run is
      // stored running to after its last status write, so the tab that drove it is gone.
      void this.drive(run.id, undefined, {
        quietIfBusy: true,
        retryFailed: true,
        onlyIfRunning: true,
      });
    }
  }

  /** Cancels every run this page drives (their records are gone). */
  cancelAll(): void {
    for (const runId of [...this.#driving]) this.control(runId, 'cancel');
  }

  /** Applies a button pressed in this tab, or relayed from a tab that only shows the run. */
  control(runId: string, action: RunControl): void {
    if (action === 'pause') {
      if (!this.#pageRuns.pause(runId)) this.#client().pause(runId);
    } else if (action === 'continue') {
      if (!this.#pageRuns.continue(runId)) this.#client().resume(runId);
    } else if (!this.#pageRuns.cancel(runId)) this.#client().cancel(runId);
  }

  #client(): BatchWorkerClient {
    this.#batch ??= new BatchWorkerClient(
      new Worker(new URL('../../../workers/batch.worker.ts', import.meta.url), {
        type: 'module',
        name: 'batch',
      }),
    );
    return this.#batch;
  }

  /**
   * Starts a run: in the batch worker when every metric can run there (the offline metrics, and
   * the task of prediction rows), else in the page with the judge (its cache and concurrency
   * limit), the offline metrics still going to the metric workers.
   */
  async startRun(dataset: StoredDataset, choice: RunChoice): Promise<void> {
    this.#host.setError(undefined);
    const runId = crypto.randomUUID();
    // The page's settings are reactive proxies, which IndexedDB and postMessage cannot clone.
    const settings = $state.snapshot(choice.settings) as MetricSettings;
    const models = $state.snapshot(choice.models) as ModelSource;
    const predictions = dataset.kind === 'prediction' || dataset.kind === 'sft';
    const metrics = predictions ? [] : [...choice.metrics];
    const task = choice.task ?? dataset.task;
    try {
      if (!predictions && metrics.length === 0) throw new SaidError(ref('datasets.start.noMetric'));
      if (predictions && !task) throw new SaidError(ref('datasets.start.noTask'));
      const inPage = runExecutor(metrics, settings) === 'page';
      let judge: { provider: JudgeSession['provider']['kind']; model: string } | undefined;
      let judgeSettings: JudgeSettings | undefined;
      let concurrency: number | undefined;
      if (inPage) {
        if (!this.#scoring) throw new SaidError(ref('datasets.start.noJudge'));
        const session = this.#scoring.judge;
        if (metrics.some(isJudgeMetric)) {
          // Fails now, with the judge's own words, rather than on every row.
          judgeSettings = session.batchJudge().settings;
          judge = { provider: session.provider.kind, model: session.provider.model.trim() };
        }
        concurrency = session.provider.concurrency;
      }
      const create = () =>
        createBatchRun({
          id: runId,
          dataset,
          metrics,
          settings: {
            metrics: settings,
            ...(judgeSettings ? { judge: judgeSettings } : {}),
            ...(task ? { task } : {}),
            ...(concurrency ? { concurrency } : {}),
            ...(judge && choice.ceiling ? { ceiling: choice.ceiling } : {}),
            ...(judge && choice.providerBatch && pageCanBatch(judge.provider)
              ? { providerBatch: { pollSec: Math.max(1, choice.providerBatch.pollSec) } }
              : {}),
          },
          ...(judge ? { judge } : {}),
          appVersion: APP_VERSION,
        }).then((run) => {
          this.#host.addRun(run);
          return run;
        });
      // Created under the claim the drive holds: a run is never stored running with no tab
      // holding it, so another tab may take over any run it finds so.
      await this.drive(runId, models, { create });
    } catch (error) {
      this.#host.setError(said(error));
    }
  }

  /**
   * Goes on with a paused run: the rows without a result, and the rows stored as failed (a run
   * paused by an outage holds the rows the outage failed; resuming means finishing the run).
   */
  async resume(runId: string, models?: ModelSource): Promise<void> {
    await this.drive(runId, models ? ($state.snapshot(models) as ModelSource) : undefined, {
      retryFailed: true,
    });
  }

  /**
   * Goes on with a run paused at its ceiling: under a raised one, or (null) with none, which the
   * user chose explicitly. Stored first, so that a reload goes on under the same choice.
   */
  async resumePastCeiling(
    runId: string,
    ceiling: RunCeiling | null,
    models?: ModelSource,
  ): Promise<void> {
    try {
      await updateRun(runId, { ceiling });
    } catch (error) {
      this.#host.setError(said(error));
      return;
    }
    await this.resume(runId, models);
  }

  /**
   * Scores the rows of a finished or paused run that were stored as failed again (and any row
   * without a result); their offline results are kept, and the judge's cache answers every call
   * that had worked, so only the failed calls are sent again: the same drive as a resume.
   */
  retryFailed(runId: string, models?: ModelSource): Promise<void> {
    return this.resume(runId, models);
  }

  async drive(runId: string, models?: ModelSource, options: DriveOptions = {}): Promise<void> {
    this.#resumeWhenOnline.delete(runId);
    if (this.#driving.has(runId)) {
      const run = this.#host.runs().find((r) => r.id === runId);
      this.#host.setError(
        run
          ? ref('datasets.start.runningAlready', { run: runLabel(run) })
          : ref('datasets.start.thisRunningAlready'),
      );
      return;
    }
    this.#driving.add(runId);
    this.elsewhere.delete(runId);
    // A new start: the last outcome's progress (paused, stopped) must not show as this one's.
    this.#host.setProgress(runId, undefined);
    const losses = this.#host.losses();
    let again = false;
    try {
      // The claim is held from here to the outcome, so that no other tab takes the run over
      // while this one starts it (the batch worker takes the run's own lock only once started).
      again = await exclusively(runClaimName(runId), RUN_BUSY_MESSAGE, () =>
        this.#driveClaimed(runId, models, options, losses),
      );
    } catch (error) {
      const busy = messageOf(error) === RUN_BUSY_MESSAGE;
      // (the refusal crosses from the batch worker as English text: worded again here)
      if (!(options.quietIfBusy && busy) && losses === this.#host.losses()) {
        this.#host.setError(busy ? RUN_BUSY_REF : said(error));
      }
      await this.#host.refresh();
    } finally {
      this.#host.setLoadingStage(undefined);
      this.#driving.delete(runId);
    }
    // (once this drive has ended, or the new one would find the run still being driven)
    if (again) void this.drive(runId, models, { retryFailed: true });
  }

  /** A drive under the run's claim; returns whether to go on at once (the connection is back). */
  async #driveClaimed(
    runId: string,
    models: ModelSource | undefined,
    options: DriveOptions,
    losses: number,
  ): Promise<boolean> {
    if (options.create) await options.create();
    const run = await getRun(runId);
    if (!run) throw new SaidError(ref('datasets.start.gone'));
    // Read under the claim: a run another tab finished or paused since the list was read stays so.
    if (options.onlyIfRunning && run.status !== 'running') {
      this.#host.runChanged(runId);
      return false;
    }
    // A status kept outside IndexedDB (storage was full) is superseded by this start.
    clearJournaledStatus(runId);
    const retryFailed = options.retryFailed ?? false;
    let outcome: PageRunOutcome | undefined;
    let failure: unknown;
    try {
      outcome =
        runExecutor(run.metrics, run.settings.metrics) === 'page'
          ? await this.#pageRuns.drive(
              run,
              models,
              retryFailed,
              (p) => {
                this.#host.setProgress(run.id, p);
                // A model still loading is news only while the run moves.
                if (p.state !== 'running') this.#host.setLoadingStage(undefined);
              },
              (batchState) => {
                this.#host.patchRun(run.id, { batchState });
              },
            )
          : await this.#client().run(
              runId,
              { ...(models ? { models } : {}), ...(retryFailed ? { retryFailed } : {}) },
              {
                onProgress: (p) => {
                  this.#host.setProgress(runId, p);
                  if (p.state !== 'running') this.#host.setLoadingStage(undefined);
                },
                onLoading: (l) =>
                  this.#host.setLoadingStage(
                    `${localized(l.stage, l.stageRef)}${l.file ? ` · ${l.file}` : ''}`,
                  ),
              },
            );
    } catch (error) {
      failure = error;
    }
    if (losses === this.#host.losses()) await settleRunStatus(runId, outcome, failure);
    if (failure !== undefined || !outcome) throw failure;
    this.#host.setLoadingStage(undefined);
    let again = false;
    if (outcome.stoppedBy === 'offline' || outcome.stoppedBy === 'halted') {
      // Paused for the connection: say so on the run, and go on when it is back.
      // (the connection may be back already: the 'online' event came while the run stopped)
      if (browserOffline()) this.#resumeWhenOnline.add(runId);
      else again = true;
    } else if (
      outcome.message &&
      losses === this.#host.losses() &&
      outcome.stoppedBy !== 'provider' &&
      outcome.stoppedBy !== 'outage' &&
      outcome.stoppedBy !== 'user'
    ) {
      // (a provider's reason is on the run's own line, next to its Resume button)
      this.#host.setError(
        ('messageRef' in outcome ? outcome.messageRef : undefined) ?? outcome.message,
      );
    }
    await this.#host.refresh();
    if (outcome.status === 'done') await this.#host.open(runId);
    return again;
  }

  /** Pause, Continue or Cancel pressed on a run's line. */
  press(runId: string, action: RunControl): void {
    if (this.isRunning(runId)) this.control(runId, action);
    else if (this.elsewhere.has(runId)) announceRun({ type: 'control', runId, action });
  }

  /** Whether this page is driving the run now (reactive: see #driving). */
  isRunning(runId: string): boolean {
    return this.#driving.has(runId) || this.#pageRuns.has(runId);
  }

  /** Whether another tab (or its worker) drives the run: its buttons are relayed there. */
  runningElsewhere(runId: string): boolean {
    return this.elsewhere.has(runId);
  }
}
