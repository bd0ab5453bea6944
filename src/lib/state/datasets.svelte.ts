/**
 * The page's data-set state: the stored data sets and runs, a batch run of the offline metrics in
 * its own worker (rows stored as they finish, so a reload resumes) or in the page
 * (./page-runs.svelte.ts), and the finished run's table, charts, calibration and exports, built in
 * the calibration worker (./dataset-run-view.svelte.ts). The import (./dataset-import.svelte.ts)
 * reads and stores a file in a worker. Both are re-exposed here for the view.
 */
import { pageCanBatch } from '../datasets/provider-batch.ts';
import { SvelteSet } from 'svelte/reactivity';
import { SaidError, said } from '../i18n/said-error.ts';
import { APP_VERSION } from '../version.ts';
import { messageOf } from '../errors.ts';
import { localized, tr } from '../i18n/i18n.svelte.ts';
import { englishRef, ref, type MessageRef } from '../i18n/message.ts';
import type { MappingChoice } from '../datasets/mapping.ts';
import {
  createBatchRun,
  isJudgeMetric,
  RUN_BUSY_MESSAGE,
  RUN_BUSY_REF,
  runClaimName,
  runExecutor,
  runLockName,
} from '../datasets/batch.ts';
import { exclusively, heldLockNames } from '../datasets/lanes.ts';
import { onDatabaseLost } from '../storage/db.ts';
import {
  announceRun,
  announceRunChange,
  onRunNotice,
  type RunControl,
} from '../storage/run-changes.ts';
import {
  clearJournaledStatus,
  journaledRunIds,
  journaledStatus,
  journalRunStatus,
} from '../storage/run-status-journal.ts';
import { RUN_STATUSES, type RunStatus } from '../storage/schema.ts';
import type { BatchPlan, BatchProgress } from '../datasets/batch.ts';
import {
  deleteDataset,
  importLockName,
  listDatasets,
  removeOrphanRows,
} from '../storage/datasets.ts';
import { deleteRun, getRun, listRuns, updateRun } from '../storage/runs.ts';
import { runLabel } from '../datasets/names.ts';
import type { RunCeiling, StoredDataset, StoredRun } from '../storage/schema.ts';
import { importRunExport, parseRunExport, type ExportFormat } from '../datasets/export.ts';
import type { Calibration } from '../datasets/calibration.ts';
import { BatchWorkerClient } from '../workers/batch-api.ts';
import { storageEstimate } from '../storage/quota.ts';
import type { StorageEstimateInfo } from '../storage/quota.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { JudgeSettings } from '../metrics/judge/settings.ts';
import type { ModelSource } from '../models/source.ts';
import type { MetricId } from '../metrics/types.ts';
import type { JudgeSession } from './judge.svelte.ts';
import { DatasetImport, type ImportState } from './dataset-import.svelte.ts';
import {
  browserOffline,
  PageRuns,
  type PageRunOutcome,
  type PageScoring,
} from './page-runs.svelte.ts';
import { RunPlanner } from './run-plan.svelte.ts';
import { RunViewer, type OpenRun, type RowCase } from './dataset-run-view.svelte.ts';
import type { AssertionEntry } from '../assertions/assertion.ts';

export type { ImportState, MappingReview } from './dataset-import.svelte.ts';
export type { PageScoring } from './page-runs.svelte.ts';
export type { OpenRun, RowCase } from './dataset-run-view.svelte.ts';

/** An error whose words the page holds as a message, so that they follow a change of language. */
/** What the user chose for a run. */
export interface RunChoice {
  metrics: MetricId[];
  settings: MetricSettings;
  models: ModelSource;
  /** Prediction data sets: the TinyEval/LongBench task (default: the data set's). */
  task?: string;
  /** Send the judge's calls as provider batch jobs, polled every `pollSec` seconds. */
  providerBatch?: { pollSec: number };
  /** Where the run pauses: its plan, or the budget set (../datasets/run-ceiling.ts). */
  ceiling?: RunCeiling;
}

/** How often a page checks who drives the runs it shows as running, in ms. */
const WATCH_MS = 400;
/** Notices of changed runs are gathered this long before the runs are read again (row bursts). */
const REREAD_MS = 150;
/** After the site's data was cleared, storage errors this soon are the clearing's own. */
const LOST_QUIET_MS = 10_000;

interface DriveOptions {
  /** Stores the run first, under the drive's claim (a new run). */
  create?: () => Promise<StoredRun>;
  retryFailed?: boolean;
  quietIfBusy?: boolean;
  /** A resume nobody clicked (page load, a tab taking over): only a run still stored running. */
  onlyIfRunning?: boolean;
}

/** The list with `run` in its place (newest first), replacing its older copy. */
function withRun(runs: readonly StoredRun[], run: StoredRun): StoredRun[] {
  const at = runs.findIndex((r) => r.id === run.id);
  if (at >= 0) return runs.map((r, i) => (i === at ? run : r));
  const before = runs.findIndex((r) => r.createdAt < run.createdAt);
  return before < 0 ? [...runs, run] : [...runs.slice(0, before), run, ...runs.slice(before)];
}

/** Whether another tab is importing a data set right now (it holds the data set's import lock). */
async function importsInProgress(): Promise<(datasetId: string) => boolean> {
  const held = (await globalThis.navigator?.locks?.query())?.held ?? [];
  const names = new Set(held.map((lock) => lock.name));
  return (datasetId) => names.has(importLockName(datasetId));
}

export class DatasetSession {
  datasets = $state.raw<StoredDataset[]>([]);
  runs = $state.raw<StoredRun[]>([]);
  progress = $state.raw<Record<string, BatchProgress>>({});
  storage = $state.raw<StorageEstimateInfo | undefined>();
  /** A message (worded in the page's language when read), or an error's own words. */
  #error = $state.raw<MessageRef | string | undefined>();
  loadingStage = $state<string | undefined>();

  #batch: BatchWorkerClient | undefined;
  readonly #scoring: PageScoring | undefined;
  readonly #pageRuns: PageRuns;
  readonly #import: DatasetImport;
  readonly #planner: RunPlanner;
  readonly #viewer: RunViewer;
  /** Runs paused because the browser went offline: resumed when it is back online. */
  readonly #resumeWhenOnline = new Set<string>();
  /**
   * The runs this page is driving (in the batch worker or in the page), from the click to their
   * outcome: reactive, so that the list shows Pause and Cancel the moment a run starts.
   */
  readonly #driving = new SvelteSet<string>();
  /** Runs another tab (or its worker) drives: this page only shows them, and relays the buttons. */
  readonly #elsewhere = new SvelteSet<string>();
  /** Runs to read again (another context wrote them), gathered for REREAD_MS. */
  readonly #changed = new Set<string>();
  #rereadTimer: ReturnType<typeof setTimeout> | undefined;
  /** When each run was last read on its own (performance.now()), for refresh to keep. */
  readonly #readAt = new Map<string, number>();
  #watchTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped when the browser closes the database under the page (site data cleared). */
  #losses = 0;
  #lostAt = -Infinity;

  constructor(scoring?: PageScoring) {
    this.#scoring = scoring;
    this.#pageRuns = new PageRuns(scoring);
    this.#planner = new RunPlanner(scoring);
    this.#viewer = new RunViewer({
      reportError: (message) => (this.error = message),
      secrets: () => this.judge?.keys.held() ?? [],
    });
    this.#import = new DatasetImport({
      datasets: () => this.datasets,
      removeDataset: (id) => this.removeDataset(id),
      refresh: () => this.refresh(),
      reportError: (message) => (this.error = message),
    });
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
    onRunNotice((notice) => {
      if (notice.type === 'changed') this.#runChanged(notice.runId);
      else if (this.isRunning(notice.runId)) this.#control(notice.runId, notice.action);
    });
    onDatabaseLost(() => this.#databaseLost());
  }

  get error(): string | undefined {
    const error = this.#error;
    return typeof error === 'object' ? tr(error) : error;
  }

  set error(message: string | undefined) {
    this.#error = message;
  }

  // ---- The import, for the view (./dataset-import.svelte.ts) ----

  get importing(): ImportState | undefined {
    return this.#import.importing;
  }

  importFile(file: File): Promise<StoredDataset | undefined> {
    return this.#import.importFile(file);
  }

  importWithMapping(choice: MappingChoice): Promise<StoredDataset | undefined> {
    return this.#import.importWithMapping(choice);
  }

  changeMapping(): void {
    this.#import.changeMapping();
  }

  cancelMapping(): void {
    this.#import.cancelMapping();
  }

  canChangeMapping(): boolean {
    return this.#import.canChangeMapping();
  }

  /** Stops the file being read or stored; the worker removes the rows it had stored. */
  cancelImport(): void {
    this.#import.cancel();
  }

  // ---- The open run, for the view (./dataset-run-view.svelte.ts) ----

  /** The run whose table and charts are shown. */
  get openRun(): OpenRun | undefined {
    return this.#viewer.openRun;
  }

  get calibration(): Calibration | undefined {
    return this.#viewer.calibration;
  }

  /** The run being read for the view, until it is shown. */
  get openingRun(): string | undefined {
    return this.#viewer.openingRun;
  }

  /** The open run's calibration is being computed (in its worker). */
  get calibrating(): boolean {
    return this.#viewer.calibrating;
  }

  open(runId: string): Promise<void> {
    return this.#viewer.open(runId);
  }

  /** One row of the open run with its results, read from storage when the user opens it. */
  rowCase(rowNumber: number): Promise<RowCase | undefined> {
    return this.#viewer.rowCase(rowNumber);
  }

  /** The open run's rows checked against its data set's checks (datasets/run-checks.ts). */
  checkRun(runId: string, assertions: AssertionEntry[], signal?: AbortSignal) {
    return this.#viewer.checkRun(runId, assertions, signal);
  }

  /** Downloads the open run as JSON (re-importable), CSV or a Markdown report. */
  download(format: ExportFormat): Promise<void> {
    return this.#viewer.download(format);
  }

  /** Downloads the open run as one self-contained HTML page (charts inline, no script). */
  downloadHtml(): void {
    this.#viewer.downloadHtml();
  }

  /** The judge LLM metrics of a run would use, when the page has one. */
  get judge(): JudgeSession | undefined {
    return this.#scoring?.judge;
  }

  async init(): Promise<void> {
    // Rows of an import that a closed tab or a crash cut short (its record, written last, never
    // was): not listed, but they take space. Another tab's import in progress holds its lock.
    await removeOrphanRows(await importsInProgress()).catch(() => undefined);
    await this.#settleJournaledStatuses();
    await this.refresh();
    // A run that was running when the page went away (reload, crash) picks up where it stopped:
    // its finished rows are stored, the worker skips them. A run with LLM metrics resumes only
    // if the judge's key is still here (kept for the tab or device); otherwise it waits, paused,
    // with a message saying why.
    // In another tab that runs it already, the lock refuses quietly (see #drive).
    for (const run of this.runs.filter((r) => r.status === 'running')) {
      void this.#drive(run.id, undefined, {
        quietIfBusy: true,
        retryFailed: true,
        onlyIfRunning: true,
      });
    }
  }

  async refresh(): Promise<void> {
    const started = performance.now();
    try {
      const [datasets, runs] = await Promise.all([listDatasets(), listRuns()]);
      this.datasets = datasets;
      // A run read again since this listing began (a notice) is newer than the listing's copy.
      this.runs = runs.map((run) =>
        (this.#readAt.get(run.id) ?? -Infinity) > started
          ? (this.runs.find((r) => r.id === run.id) ?? run)
          : run,
      );
      this.storage = await storageEstimate();
    } catch (error) {
      if (Date.now() - this.#lostAt < LOST_QUIET_MS) {
        // The database is still being cleared: the loss's own message stands; read again soon.
        setTimeout(() => void this.refresh(), WATCH_MS);
        return;
      }
      this.error = messageOf(error);
    }
    this.#watch();
  }

  // ---- Every view of a run equals the stored run ----

  /** Another context (a tab, the batch worker) or this page wrote the run: read it again soon. */
  #runChanged(runId: string): void {
    this.#changed.add(runId);
    if (this.#rereadTimer !== undefined) return;
    this.#rereadTimer = setTimeout(() => {
      this.#rereadTimer = undefined;
      void this.#reread();
    }, REREAD_MS);
  }

  async #reread(): Promise<void> {
    const ids = [...this.#changed];
    this.#changed.clear();
    const started = performance.now();
    const read = await Promise.all(
      ids.map((id) =>
        getRun(id).then(
          (run) => ({ id, run, ok: true }),
          () => ({ id, run: undefined, ok: false }),
        ),
      ),
    );
    // Applied to the lists as they are now, not as they were before the reads: progress and
    // refreshes that came in meanwhile stay.
    let runs = this.runs;
    let progress = this.progress;
    for (const { id, run, ok } of read) {
      if (!ok) continue;
      this.#readAt.set(id, started);
      runs = run ? withRun(runs, run) : runs.filter((r) => r.id !== id);
      // Progress is this page's own view of a run it drives; another driver's counters are the
      // stored ones.
      if (!this.isRunning(id) && id in progress) {
        const { [id]: _stale, ...rest } = progress;
        progress = rest;
      }
    }
    this.runs = runs;
    this.progress = progress;
    this.#watch();
  }

  /**
   * While a run is shown running, or driven in another tab, checks every WATCH_MS who holds it:
   * the list relays its buttons to the tab that drives it, and a run stored running that no tab
   * or worker holds (its tab was closed or crashed) is taken over here.
   */
  #watch(): void {
    if (this.#watchTimer !== undefined) return;
    if (!this.runs.some((r) => r.status === 'running' || this.#elsewhere.has(r.id))) return;
    this.#watchTimer = setTimeout(() => {
      void this.#checkDrivers().finally(() => {
        this.#watchTimer = undefined;
        this.#watch();
      });
    }, WATCH_MS);
  }

  async #checkDrivers(): Promise<void> {
    let held: Set<string> | undefined;
    try {
      held = await heldLockNames();
    } catch {
      return;
    }
    if (!held) return;
    for (const run of this.runs) {
      if (this.isRunning(run.id)) continue;
      if (held.has(runClaimName(run.id)) || held.has(runLockName(run.id))) {
        this.#elsewhere.add(run.id);
        // (a notice lost with a worker that closed its channel must not freeze the list)
        this.#runChanged(run.id);
        continue;
      }
      this.#elsewhere.delete(run.id);
      if (run.status !== 'running') continue;
      // Stored running and held by nobody: every drive holds its claim from before the run is
      // stored running to after its last status write, so the tab that drove it is gone.
      void this.#drive(run.id, undefined, {
        quietIfBusy: true,
        retryFailed: true,
        onlyIfRunning: true,
      });
    }
  }

  /** Applies a button pressed in this tab, or relayed from a tab that only shows the run. */
  #control(runId: string, action: RunControl): void {
    if (action === 'pause') {
      if (!this.#pageRuns.pause(runId)) this.#client().pause(runId);
    } else if (action === 'continue') {
      if (!this.#pageRuns.continue(runId)) this.#client().resume(runId);
    } else if (!this.#pageRuns.cancel(runId)) this.#client().cancel(runId);
  }

  /** A button for a run: applied here when this page drives it, else sent to the tab that does. */
  #press(runId: string, action: RunControl): void {
    if (this.isRunning(runId)) this.#control(runId, action);
    else if (this.#elsewhere.has(runId)) announceRun({ type: 'control', runId, action });
  }

  /**
   * After a drive, the stored status must say what happened: a run is never left "running" with
   * nothing running it (the runner's own status write failed, or the drive threw). Where IndexedDB
   * refuses even that write (storage full), the status is kept outside it
   * (../storage/run-status-journal.ts), so that a reload does not resume the run by itself.
   */
  async #settleStatus(runId: string, outcome?: PageRunOutcome, failure?: unknown): Promise<void> {
    let stored: StoredRun | undefined;
    try {
      stored = await getRun(runId);
    } catch {
      return;
    }
    if (!stored || stored.status !== 'running') return;
    const ended = RUN_STATUSES.find((s) => s === outcome?.status && s !== 'running');
    const status: RunStatus = ended ?? 'paused';
    const messageRef =
      failure !== undefined
        ? ref('runs.page.paused', { run: runLabel(stored), reason: messageOf(failure) })
        : outcome?.messageRef;
    const message = messageRef ? englishRef(messageRef) : outcome?.message;
    try {
      await updateRun(runId, {
        status,
        message: message ?? null,
        ...(messageRef ? { messageRef } : {}),
      });
    } catch {
      journalRunStatus(runId, {
        status,
        ...(message !== undefined ? { message } : {}),
        ...(messageRef ? { messageRef } : {}),
        at: Date.now(),
      });
      announceRunChange(runId);
    }
  }

  /** Statuses kept outside IndexedDB go into it once it takes them (there is room again). */
  async #settleJournaledStatuses(): Promise<void> {
    for (const runId of journaledRunIds()) {
      const entry = journaledStatus(runId);
      try {
        const run = await getRun(runId);
        if (!entry || !run || entry.at < run.updatedAt) {
          clearJournaledStatus(runId);
          continue;
        }
        await updateRun(runId, {
          status: entry.status,
          message: entry.message ?? null,
          ...(entry.messageRef ? { messageRef: entry.messageRef } : {}),
        });
      } catch {
        // Still no room: the journal keeps standing in for the record.
      }
    }
  }

  /**
   * The browser closed the database (the site's data was cleared): the runs this page drives
   * point at records that are gone. Stop them, say so once in plain words, and show what is left.
   */
  #databaseLost(): void {
    this.#losses++;
    this.#lostAt = Date.now();
    for (const runId of [...this.#driving]) this.#control(runId, 'cancel');
    // What was listed went with the data; the lists are read again once the database reopens.
    this.datasets = [];
    this.runs = [];
    this.progress = {};
    this.#viewer.closeIf(() => true);
    this.#error = ref('datasets.storage.lost');
    setTimeout(() => void this.refresh(), WATCH_MS);
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

  /** See RunPlanner.plan. */
  planRun(dataset: StoredDataset, metrics: readonly MetricId[]): Promise<BatchPlan> {
    return this.#planner.plan(dataset, metrics);
  }

  /**
   * Starts a run: in the batch worker when every metric can run there (the offline metrics, and
   * the task of prediction rows), else in the page with the judge (its cache and concurrency
   * limit), the offline metrics still going to the metric workers.
   */
  async startRun(dataset: StoredDataset, choice: RunChoice): Promise<void> {
    this.error = undefined;
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
          this.runs = withRun(this.runs, run);
          return run;
        });
      // Created under the claim the drive holds: a run is never stored running with no tab
      // holding it, so another tab may take over any run it finds so.
      await this.#drive(runId, models, { create });
    } catch (error) {
      this.#error = said(error);
    }
  }

  /**
   * Goes on with a paused run: the rows without a result, and the rows stored as failed (a run
   * paused by an outage holds the rows the outage failed; resuming means finishing the run).
   */
  async resume(runId: string, models?: ModelSource): Promise<void> {
    await this.#drive(runId, models ? ($state.snapshot(models) as ModelSource) : undefined, {
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
      this.#error = said(error);
      return;
    }
    await this.resume(runId, models);
  }

  /**
   * Scores the rows of a finished or paused run that were stored as failed again (and any row
   * without a result); their offline results are kept, and the judge's cache answers every call
   * that had worked, so only the failed calls are sent again.
   */
  async retryFailed(runId: string, models?: ModelSource): Promise<void> {
    await this.#drive(runId, models ? ($state.snapshot(models) as ModelSource) : undefined, {
      retryFailed: true,
    });
  }

  async #drive(runId: string, models?: ModelSource, options: DriveOptions = {}): Promise<void> {
    this.#resumeWhenOnline.delete(runId);
    if (this.#driving.has(runId)) {
      const run = this.runs.find((r) => r.id === runId);
      this.#error = run
        ? ref('datasets.start.runningAlready', { run: runLabel(run) })
        : ref('datasets.start.thisRunningAlready');
      return;
    }
    this.#driving.add(runId);
    this.#elsewhere.delete(runId);
    // A new start: the last outcome's progress (paused, stopped) must not show as this one's.
    const { [runId]: _previous, ...others } = this.progress;
    this.progress = others;
    const losses = this.#losses;
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
      if (!(options.quietIfBusy && busy) && losses === this.#losses) {
        this.#error = busy ? RUN_BUSY_REF : said(error);
      }
      await this.refresh();
    } finally {
      this.loadingStage = undefined;
      this.#driving.delete(runId);
    }
    // (once this drive has ended, or the new one would find the run still being driven)
    if (again) void this.#drive(runId, models, { retryFailed: true });
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
      this.#runChanged(runId);
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
                this.progress = { ...this.progress, [run.id]: p };
                // A model still loading is news only while the run moves.
                if (p.state !== 'running') this.loadingStage = undefined;
              },
              (batchState) => {
                this.runs = this.runs.map((r) => (r.id === run.id ? { ...r, batchState } : r));
              },
            )
          : await this.#client().run(
              runId,
              { ...(models ? { models } : {}), ...(retryFailed ? { retryFailed } : {}) },
              {
                onProgress: (p) => {
                  this.progress = { ...this.progress, [runId]: p };
                  if (p.state !== 'running') this.loadingStage = undefined;
                },
                onLoading: (l) =>
                  (this.loadingStage = `${localized(l.stage, l.stageRef)}${l.file ? ` · ${l.file}` : ''}`),
              },
            );
    } catch (error) {
      failure = error;
    }
    if (losses === this.#losses) await this.#settleStatus(runId, outcome, failure);
    if (failure !== undefined || !outcome) throw failure;
    this.loadingStage = undefined;
    let again = false;
    if (outcome.stoppedBy === 'offline' || outcome.stoppedBy === 'halted') {
      // Paused for the connection: say so on the run, and go on when it is back.
      // (the connection may be back already: the 'online' event came while the run stopped)
      if (browserOffline()) this.#resumeWhenOnline.add(runId);
      else again = true;
    } else if (
      outcome.message &&
      losses === this.#losses &&
      outcome.stoppedBy !== 'provider' &&
      outcome.stoppedBy !== 'outage' &&
      outcome.stoppedBy !== 'user'
    ) {
      // (a provider's reason is on the run's own line, next to its Resume button)
      this.#error = ('messageRef' in outcome ? outcome.messageRef : undefined) ?? outcome.message;
    }
    await this.refresh();
    if (outcome.status === 'done') await this.open(runId);
    return again;
  }

  pause(runId: string): void {
    this.#press(runId, 'pause');
  }

  continueRun(runId: string): void {
    this.#press(runId, 'continue');
  }

  cancel(runId: string): void {
    this.#press(runId, 'cancel');
  }

  /** Whether this page is driving the run now (reactive: see #driving). */
  isRunning(runId: string): boolean {
    return this.#driving.has(runId) || this.#pageRuns.has(runId);
  }

  /** Whether another tab (or its worker) drives the run: its buttons are relayed there. */
  runningElsewhere(runId: string): boolean {
    return this.#elsewhere.has(runId);
  }

  /** Imports a run exported as JSON (with its data set's rows), and opens it. */
  async importRunFile(file: File): Promise<void> {
    this.error = undefined;
    try {
      const data = parseRunExport(await file.text());
      const { run } = await importRunExport(data);
      await this.refresh();
      await this.open(run.id);
    } catch (error) {
      this.#error = ref('datasets.fileError', { file: file.name, reason: said(error) });
    }
  }

  async removeRun(runId: string): Promise<void> {
    // A run still scoring would otherwise fail its next row against a record that is gone.
    if (this.isRunning(runId)) this.cancel(runId);
    await deleteRun(runId);
    this.#viewer.closeIf((open) => open.run.id === runId);
    await this.refresh();
  }

  async removeDataset(datasetId: string): Promise<void> {
    for (const run of this.runs) {
      if (run.datasetId === datasetId && this.isRunning(run.id)) this.cancel(run.id);
    }
    await deleteDataset(datasetId);
    this.#viewer.closeIf((open) => open.dataset.id === datasetId);
    await this.refresh();
  }
}
