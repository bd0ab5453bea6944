/**
 * The page's data-set state: the stored data sets and runs, a batch run of the offline metrics in
 * its own worker (rows stored as they finish, so a reload resumes) or in the page
 * (./page-runs.svelte.ts), and the finished run's table, charts, calibration and exports, built in
 * the calibration worker (./dataset-run-view.svelte.ts). The import (./dataset-import.svelte.ts)
 * reads and stores a file in a worker. Both are re-exposed here for the view, as are the runs'
 * buttons, which ./run-driver.svelte.ts applies.
 */
import { tr } from '../i18n/i18n.svelte.ts';
import { ref, type MessageRef } from '../i18n/message.ts';
import { said } from '../i18n/said-error.ts';
import { messageOf } from '../errors.ts';
import type { MappingChoice } from '../datasets/mapping/fields.ts';
import type { BatchPlan, BatchProgress } from '../datasets/batch.ts';
import { onDatabaseLost } from '../storage/db.ts';
import { onRunNotice } from '../storage/run-changes.ts';
import { deleteDataset, listDatasets, removeOrphanRows } from '../storage/datasets.ts';
import { deleteRun, listRuns } from '../storage/runs.ts';
import type { RunCeiling, StoredDataset, StoredRun } from '../storage/schema.ts';
import type { ExportFormat } from '../datasets/export/file.ts';
import { importRunExport, parseRunExport } from '../datasets/export/json.ts';
import type { Calibration } from '../datasets/calibration.ts';
import { storageEstimate } from '../storage/quota.ts';
import type { StorageEstimateInfo } from '../storage/quota.ts';
import type { ModelSource } from '../models/source.ts';
import type { MetricId } from '../metrics/types.ts';
import type { JudgeSession } from './judge.svelte.ts';
import { DatasetImport, type ImportState } from './dataset-import.svelte.ts';
import type { PageScoring } from './page-runs.svelte.ts';
import { RunDriver } from './run-driver.svelte.ts';
import { settleJournaledStatuses } from './run-status.ts';
import { importsInProgress, readRuns, withRun, without, type RunChoice } from './run-list.ts';
import { RunPlanner } from './run-plan.svelte.ts';
import { RunViewer, type OpenRun, type RowCase } from './dataset-run-view.svelte.ts';
import type { AssertionEntry } from '../assertions/assertion.ts';

export type { ImportState, MappingReview } from './dataset-import.svelte.ts';
export type { PageScoring } from './page-runs.svelte.ts';
export type { OpenRun, RowCase } from './dataset-run-view.svelte.ts';

/** How often a page checks who drives the runs it shows as running, in ms. */
const WATCH_MS = 400;
/** Notices of changed runs are gathered this long before the runs are read again (row bursts). */
const REREAD_MS = 150;
/** After the site's data was cleared, storage errors this soon are the clearing's own. */
const LOST_QUIET_MS = 10_000;

export class DatasetSession {
  datasets = $state.raw<StoredDataset[]>([]);
  runs = $state.raw<StoredRun[]>([]);
  progress = $state.raw<Record<string, BatchProgress>>({});
  storage = $state.raw<StorageEstimateInfo | undefined>();
  /** A message (worded in the page's language when read), or an error's own words. */
  #error = $state.raw<MessageRef | string | undefined>();
  loadingStage = $state<string | undefined>();

  readonly #scoring: PageScoring | undefined;
  readonly #driver: RunDriver;
  readonly #import: DatasetImport;
  readonly #planner: RunPlanner;
  readonly #viewer: RunViewer;
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
    this.#driver = new RunDriver(
      {
        runs: () => this.runs,
        addRun: (run) => (this.runs = withRun(this.runs, run)),
        patchRun: (runId, change) =>
          (this.runs = this.runs.map((r) => (r.id === runId ? { ...r, ...change } : r))),
        setProgress: (runId, progress) => {
          const others = without(this.progress, runId);
          this.progress = progress ? { ...others, [runId]: progress } : others;
        },
        setError: (error) => (this.#error = error),
        setLoadingStage: (stage) => (this.loadingStage = stage),
        refresh: () => this.refresh(),
        open: (runId) => this.open(runId),
        runChanged: (runId) => this.#runChanged(runId),
        losses: () => this.#losses,
      },
      scoring,
    );
    onRunNotice((notice) => {
      if (notice.type === 'changed') this.#runChanged(notice.runId);
      else if (this.isRunning(notice.runId)) this.#driver.control(notice.runId, notice.action);
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
    await settleJournaledStatuses();
    await this.refresh();
    // A run that was running when the page went away (reload, crash) picks up where it stopped:
    // its finished rows are stored, the worker skips them. A run with LLM metrics resumes only
    // if the judge's key is still here (kept for the tab or device); otherwise it waits, paused,
    // with a message saying why.
    // In another tab that runs it already, the lock refuses quietly (see RunDriver.drive).
    for (const run of this.runs.filter((r) => r.status === 'running')) {
      void this.#driver.drive(run.id, undefined, {
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
    const read = await readRuns(ids);
    // Applied to the lists as they are now, not as they were before the reads: progress and
    // refreshes that came in meanwhile stay.
    let runs = this.runs;
    let progress = this.progress;
    for (const { id, run } of read) {
      this.#readAt.set(id, started);
      runs = run ? withRun(runs, run) : runs.filter((r) => r.id !== id);
      // Progress is this page's own view of a run it drives; another driver's counters are the
      // stored ones.
      if (!this.isRunning(id)) progress = without(progress, id);
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
    if (!this.runs.some((r) => r.status === 'running' || this.#driver.elsewhere.has(r.id))) return;
    this.#watchTimer = setTimeout(() => {
      void this.#driver.checkDrivers(this.runs).finally(() => {
        this.#watchTimer = undefined;
        this.#watch();
      });
    }, WATCH_MS);
  }

  /**
   * The browser closed the database (the site's data was cleared): the runs this page drives
   * point at records that are gone. Stop them, say so once in plain words, and show what is left.
   */
  #databaseLost(): void {
    this.#losses++;
    this.#lostAt = Date.now();
    this.#driver.cancelAll();
    // What was listed went with the data; the lists are read again once the database reopens.
    this.datasets = [];
    this.runs = [];
    this.progress = {};
    this.#viewer.closeIf(() => true);
    this.#error = ref('datasets.storage.lost');
    setTimeout(() => void this.refresh(), WATCH_MS);
  }

  /** See RunPlanner.plan. */
  planRun(dataset: StoredDataset, metrics: readonly MetricId[]): Promise<BatchPlan> {
    return this.#planner.plan(dataset, metrics);
  }

  /** Starts, resumes and the buttons of runs: see ./run-driver.svelte.ts. */
  startRun(dataset: StoredDataset, choice: RunChoice): Promise<void> {
    return this.#driver.startRun(dataset, choice);
  }

  resume(runId: string, models?: ModelSource): Promise<void> {
    return this.#driver.resume(runId, models);
  }

  resumePastCeiling(runId: string, ceiling: RunCeiling | null, models?: ModelSource) {
    return this.#driver.resumePastCeiling(runId, ceiling, models);
  }

  retryFailed(runId: string, models?: ModelSource): Promise<void> {
    return this.#driver.retryFailed(runId, models);
  }

  pause(runId: string): void {
    this.#driver.press(runId, 'pause');
  }

  continueRun(runId: string): void {
    this.#driver.press(runId, 'continue');
  }

  cancel(runId: string): void {
    this.#driver.press(runId, 'cancel');
  }

  /** Whether this page is driving the run now (reactive). */
  isRunning(runId: string): boolean {
    return this.#driver.isRunning(runId);
  }

  /** Whether another tab (or its worker) drives the run: its buttons are relayed there. */
  runningElsewhere(runId: string): boolean {
    return this.#driver.runningElsewhere(runId);
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
