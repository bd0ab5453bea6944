/**
 * The page's data-set state: import (parsed in a worker, streamed, bad rows listed), the stored
 * data sets and runs, a batch run of the offline metrics in its own worker (rows stored as they
 * finish, so a reload resumes), and the finished run's table, charts, calibration and exports.
 */
import { APP_VERSION } from '../version.ts';
import { messageOf } from '../errors.ts';
import type { ParseReply, ParseRequest } from '../datasets/parse-protocol.ts';
import type { ParseSummary } from '../datasets/parse.ts';
import {
  describeChoice,
  reviewReasons,
  settledChoice,
  type DatasetSample,
  type MappingChoice,
} from '../datasets/mapping.ts';
import { BatchWorkerClient } from '../datasets/batch-protocol.ts';
import {
  createBatchRun,
  isJudgeMetric,
  PauseController,
  pageRowScorer,
  planBatch,
  RUN_BUSY_MESSAGE,
  runExecutor,
  runLockName,
  runStoredBatchLocked,
} from '../datasets/batch.ts';
import { exclusively } from '../datasets/lanes.ts';
import type { BatchPlan, BatchProgress } from '../datasets/batch.ts';
import {
  isCaseRow,
  type CaseRow,
  type DatasetDescription,
  type DatasetRow,
  type RowProblem,
} from '../rows/formats.ts';
import {
  deleteDataset,
  getDatasetRows,
  getRun,
  updateRun,
  deleteRun,
  listDatasets,
  listRuns,
  saveDataset,
  summarizeProblems,
} from '../storage/datasets.ts';
import type { StoredDataset, StoredRun } from '../storage/schema.ts';
import {
  exportFileName,
  importRunExport,
  parseRunExport,
  runToCsv,
  runToJson,
  runToMarkdown,
} from '../datasets/export.ts';
import { loadRunData, type RunData } from '../datasets/run-data.ts';
import { calibrationInput } from '../datasets/run-view.ts';
import type { Calibration } from '../datasets/calibration.ts';
import type { CalibrationClient } from '../datasets/calibration-protocol.ts';
import { startCalibrationWorker } from '../datasets/calibration-client.ts';
import { storageEstimate } from '../storage/quota.ts';
import type { StorageEstimateInfo } from '../storage/quota.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { ModelSource } from '../models/source.ts';
import type { CaseInput, MetricId, MetricResult } from '../metrics/types.ts';
import type { JudgeSession } from './judge.svelte.ts';

export interface ImportState {
  fileName: string;
  bytes: number;
  total: number;
  rows: number;
  problems: RowProblem[];
  detected?: DatasetDescription;
  error?: string;
  done: boolean;
  /** Set while the user confirms or changes the mapping: the editor shows instead of the import. */
  review?: MappingReview;
  /** The data set the import stored (once done). */
  datasetId?: string;
}

/** What the mapping editor starts from. */
export interface MappingReview {
  detected: DatasetDescription;
  sample: DatasetSample;
  /** The proposed mapping, or the one the data set was read with. */
  choice: MappingChoice;
  /** Why the file was not imported straight away; empty when the user asked to change it. */
  reasons: string[];
}

/**
 * One job in a fresh parse worker, ended by `finish` or by an `error` reply; the worker goes when
 * the job ends, so a large file's memory goes with it.
 */
function parseJob<T>(
  request: ParseRequest,
  onReply: (reply: ParseReply, finish: (value: T) => void) => void,
): Promise<T> {
  const worker = new Worker(new URL('../../../workers/dataset-parse.worker.ts', import.meta.url), {
    type: 'module',
    name: 'dataset-parse',
  });
  return new Promise<T>((resolve, reject) => {
    worker.addEventListener('message', (event: MessageEvent<ParseReply>) => {
      const reply = event.data;
      if (reply.type === 'error') reject(new Error(reply.message));
      else onReply(reply, resolve);
    });
    worker.addEventListener('error', (event) =>
      reject(new Error(`The file reader stopped: ${event.message || 'unknown error'}`)),
    );
    worker.postMessage(request);
  }).finally(() => worker.terminate());
}

/** An import that has read nothing of `file` yet. */
function freshImportState(file: File): ImportState {
  return { fileName: file.name, bytes: 0, total: file.size, rows: 0, problems: [], done: false };
}

/**
 * What a run that executes in the page (one with LLM metrics, or coherence on provider
 * embeddings) borrows from the single-case scoring: its metric workers for the offline metrics,
 * and the judge with the key, which never goes to a worker.
 */
export interface PageScoring {
  scoreInWorkers(
    ids: readonly MetricId[],
    input: CaseInput,
    settings: MetricSettings,
    models: ModelSource,
    signal: AbortSignal,
  ): Promise<MetricResult[]>;
  providerEmbeddingMetrics(
    ids: readonly MetricId[],
    input: CaseInput,
    settings: MetricSettings,
    signal: AbortSignal,
  ): Promise<MetricResult[]>;
  readonly judge: JudgeSession;
  /** Where transformer models come from, for runs resumed without the page's choice. */
  readonly models: ModelSource;
}

/** What the user chose for a run. */
export interface RunChoice {
  metrics: MetricId[];
  settings: MetricSettings;
  models: ModelSource;
  /** Prediction data sets: the TinyEval/LongBench task (default: the data set's). */
  task?: string;
}

/** A run executing in the page, with the switches the run list's buttons use. */
interface PageRun {
  cancel: AbortController;
  pause: PauseController;
  /** Stops the run as paused with a reason (the browser went offline). */
  halt: AbortController;
}

/** Why the page paused its runs when the browser went offline. */
const OFFLINE_MESSAGE =
  'The browser is offline: the run is paused and goes on by itself when the connection is back.';

function browserOffline(): boolean {
  return globalThis.navigator?.onLine === false;
}

/** Rows whose texts the plan's judge estimate looks at; the median-length one stands for all. */
const PLAN_SAMPLE_ROWS = 50;

export class DatasetSession {
  datasets = $state.raw<StoredDataset[]>([]);
  runs = $state.raw<StoredRun[]>([]);
  importing = $state.raw<ImportState | undefined>();
  progress = $state.raw<Record<string, BatchProgress>>({});
  /** The run whose table and charts are shown. */
  openRun = $state.raw<RunData | undefined>();
  calibration = $state.raw<Calibration | undefined>();
  /** The run being read for the view, until it is shown. */
  openingRun = $state<string | undefined>();
  /** The open run's calibration is being computed (in its worker). */
  calibrating = $state(false);
  storage = $state.raw<StorageEstimateInfo | undefined>();
  error = $state<string | undefined>();
  loadingStage = $state<string | undefined>();

  #batch: BatchWorkerClient | undefined;
  readonly #scoring: PageScoring | undefined;
  readonly #pageRuns = new Map<string, PageRun>();
  readonly #planSamples = new Map<string, Promise<CaseRow | undefined>>();
  /** Bumped when a page run starts or ends: `isRunning` reads a plain map. */
  #pageRunsVersion = $state(0);
  /** Runs paused because the browser went offline: resumed when it is back online. */
  readonly #resumeWhenOnline = new Set<string>();

  constructor(scoring?: PageScoring) {
    this.#scoring = scoring;
    // Judge calls cannot work offline: pause the page's runs rather than fail their rows, and go
    // on when the connection is back (only runs this tab paused for that reason).
    globalThis.addEventListener?.('offline', () => {
      for (const [runId, run] of this.#pageRuns) {
        this.#resumeWhenOnline.add(runId);
        run.halt.abort(OFFLINE_MESSAGE);
      }
    });
    globalThis.addEventListener?.('online', () => {
      const waiting = [...this.#resumeWhenOnline];
      this.#resumeWhenOnline.clear();
      for (const runId of waiting) if (!this.isRunning(runId)) void this.resume(runId);
    });
  }

  /** The judge LLM metrics of a run would use, when the page has one. */
  get judge(): JudgeSession | undefined {
    return this.#scoring?.judge;
  }
  #calibrator: CalibrationClient | undefined;
  /** Counts `open` calls, so that a slow one never overwrites a later one's run. */
  #opening = 0;

  async init(): Promise<void> {
    await this.refresh();
    // A run that was running when the page went away (reload, crash) picks up where it stopped:
    // its finished rows are stored, the worker skips them. A run with LLM metrics resumes only
    // if the judge's key is still here (kept for the tab or device); otherwise it waits, paused,
    // with a message saying why.
    // In another tab that runs it already, the lock refuses quietly (see #drive).
    for (const run of this.runs.filter((r) => r.status === 'running')) {
      void this.#drive(run.id, undefined, { quietIfBusy: true, retryFailed: true });
    }
  }

  async refresh(): Promise<void> {
    try {
      [this.datasets, this.runs] = await Promise.all([listDatasets(), listRuns()]);
      this.storage = await storageEstimate();
    } catch (error) {
      this.error = messageOf(error);
    }
  }

  /**
   * The file last dropped, what its first records showed, and the data set made from it: kept for
   * this visit so that its mapping can be changed and the file read again.
   */
  #lastImport:
    | {
        file: File;
        detected: DatasetDescription;
        sample: DatasetSample;
        choice?: MappingChoice;
        datasetId?: string;
      }
    | undefined;
  /** Counts imports, so that a file dropped while another is read takes over the import panel. */
  #importJob = 0;

  /**
   * Reads the first records of a dropped file (in a worker) and imports it straight away when
   * detection is sure and the proposed mapping works; otherwise shows the mapping editor first.
   */
  async importFile(file: File): Promise<StoredDataset | undefined> {
    this.error = undefined;
    this.#lastImport = undefined;
    const job = ++this.#importJob;
    const state = freshImportState(file);
    const show = () => {
      if (job === this.#importJob) this.importing = { ...state };
    };
    show();
    let found: { detected: DatasetDescription; sample: DatasetSample };
    try {
      found = await parseJob<{ detected: DatasetDescription; sample: DatasetSample }>(
        { type: 'detect', id: crypto.randomUUID(), file, fileName: file.name },
        (reply, finish) => {
          if (reply.type === 'progress') {
            state.bytes = reply.bytes;
            show();
          } else if (reply.type === 'sample') {
            finish({ detected: reply.detected, sample: reply.sample });
          }
        },
      );
    } catch (error) {
      state.error = messageOf(error);
      show();
      return undefined;
    }
    if (job !== this.#importJob) return undefined;
    const { detected, sample } = found;
    state.detected = detected;
    if (sample.records === 0) {
      state.problems = sample.problems;
      state.error = `No row of ${file.name} could be read${sample.problems[0] ? `: ${sample.problems[0].reason}` : '.'}`;
      show();
      return undefined;
    }
    this.#lastImport = { file, detected, sample };
    const choice: MappingChoice = settledChoice({
      mapping: detected.mapping,
      ...(detected.task ? { task: detected.task } : {}),
    });
    const reasons = reviewReasons(detected, sample, choice);
    if (reasons.length > 0) {
      state.review = { detected, sample, choice, reasons };
      show();
      return undefined;
    }
    return this.#importWith(choice, job);
  }

  /** Imports the file under review with the user's mapping (replacing what it was imported as). */
  async importWithMapping(choice: MappingChoice): Promise<StoredDataset | undefined> {
    if (!this.#lastImport) return undefined;
    return this.#importWith(settledChoice(choice), ++this.#importJob);
  }

  /** Opens the mapping editor on the file just imported, with the mapping it was read with. */
  changeMapping(): void {
    const last = this.#lastImport;
    const imp = this.importing;
    if (!last || !imp) return;
    const choice = last.choice ?? { mapping: last.detected.mapping };
    this.importing = {
      ...imp,
      review: { detected: last.detected, sample: last.sample, choice, reasons: [] },
    };
  }

  /** Closes the mapping editor: back to the imported data set, or no import at all. */
  cancelMapping(): void {
    const imp = this.importing;
    if (!imp?.review) return;
    if (this.#lastImport?.datasetId) {
      this.importing = { ...imp, review: undefined };
    } else {
      this.#lastImport = undefined;
      this.importing = undefined;
    }
  }

  /** Whether the import panel may offer "Change mapping": the file is kept and its data set stored. */
  canChangeMapping(): boolean {
    const id = this.importing?.datasetId;
    return (
      id !== undefined &&
      this.#lastImport?.datasetId === id &&
      this.datasets.some((d) => d.id === id)
    );
  }

  /** Parses the whole file with `choice` (streamed), stores its rows, then drops what it replaces. */
  async #importWith(choice: MappingChoice, job: number): Promise<StoredDataset | undefined> {
    const last = this.#lastImport;
    if (!last) return undefined;
    const { file } = last;
    this.error = undefined;
    const state: ImportState = { ...freshImportState(file), detected: last.detected };
    const show = () => {
      if (job === this.#importJob) this.importing = { ...state };
    };
    show();
    const rows: DatasetRow[] = [];
    try {
      const summary = await parseJob<ParseSummary | undefined>(
        {
          type: 'parse',
          id: crypto.randomUUID(),
          file,
          fileName: file.name,
          mapping: choice.mapping,
        },
        (reply, finish) => {
          switch (reply.type) {
            case 'progress':
              state.bytes = reply.bytes;
              break;
            case 'detected':
              state.detected = reply.detected;
              break;
            case 'rows':
              rows.push(...reply.rows);
              state.rows = rows.length;
              break;
            case 'problems':
              state.problems = [...state.problems, ...reply.problems];
              break;
            case 'done':
              finish(reply.summary);
              return;
            case 'sample':
              return;
          }
          show();
        },
      );
      if (rows.length === 0) {
        throw new Error(
          `No row of ${file.name} could be read${state.problems[0] ? `: ${state.problems[0].reason}` : '.'}`,
        );
      }
      const read = summary?.detected ?? state.detected;
      if (!read) throw new Error(`${file.name}: the format could not be recognised.`);
      const detected: DatasetDescription = {
        ...read,
        ...(choice.task ? { task: choice.task } : {}),
        description: describeChoice(choice, {
          ...last.sample,
          fileRecords: rows.length,
        }),
      };
      state.detected = detected;
      const dataset = await saveDataset(
        {
          id: crypto.randomUUID(),
          name: file.name.replace(/\.(jsonl|json|csv)$/iu, ''),
          createdAt: Date.now(),
          kind: choice.mapping.kind,
          format: detected.format,
          mapping: choice.mapping,
          ...(choice.task ? { task: choice.task } : {}),
          problems: summarizeProblems(state.problems),
          fileName: file.name,
          bytes: file.size,
        },
        rows,
      );
      // The new rows are stored: only now does the data set they replace go (with its runs).
      const replaced = last.datasetId;
      last.datasetId = dataset.id;
      last.choice = choice;
      if (replaced !== undefined) await this.removeDataset(replaced);
      state.done = true;
      state.datasetId = dataset.id;
      show();
      await this.refresh();
      return dataset;
    } catch (error) {
      state.error = messageOf(error);
      // Back to the editor with the mapping that failed, so that it can be changed and tried again.
      state.review = { detected: last.detected, sample: last.sample, choice, reasons: [] };
      show();
      return undefined;
    }
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
   * What a run will do before it starts: rows × metrics, where it executes, and for LLM metrics
   * the judge calls, tokens and cost (estimated on a sample row of median length; unknown prices
   * stay unknown).
   */
  async planRun(dataset: StoredDataset, metrics: readonly MetricId[]): Promise<BatchPlan> {
    const predictions = dataset.kind === 'prediction' || dataset.kind === 'sft';
    const chosen = predictions ? [] : [...metrics];
    const judgeIds = chosen.filter(isJudgeMetric);
    if (judgeIds.length === 0 || !this.#scoring) return planBatch(dataset.rowCount, chosen);
    const median = await this.#planSample(dataset.id);
    const judge = this.#scoring.judge;
    const planned = median ? judge.plan(median.input, judgeIds) : undefined;
    return planBatch(
      dataset.rowCount,
      chosen,
      planned
        ? {
            plan: planned.plan,
            provider: judge.provider.kind,
            model: judge.provider.model.trim(),
            prices: $state.snapshot(judge.prices),
          }
        : undefined,
    );
  }

  /**
   * The row of median length among the first ones, read once per data set: the setup re-plans on
   * every choice, and the rows do not change.
   */
  #planSample(datasetId: string): Promise<CaseRow | undefined> {
    let sample = this.#planSamples.get(datasetId);
    if (!sample) {
      sample = getDatasetRows(datasetId, -Infinity, PLAN_SAMPLE_ROWS).then((rows) => {
        const cases = rows.filter(isCaseRow);
        const lengthOf = (r: CaseRow) =>
          r.input.source.length + r.input.summary.length + (r.input.reference?.length ?? 0);
        return cases.sort((a, b) => lengthOf(a) - lengthOf(b))[Math.floor(cases.length / 2)];
      });
      // A failed read is tried again next time rather than remembered.
      sample.catch(() => this.#planSamples.delete(datasetId));
      this.#planSamples.set(datasetId, sample);
    }
    return sample;
  }

  /**
   * Starts a run: in the batch worker when every metric can run there (the offline metrics, and
   * the task of prediction rows), else in the page with the judge (its cache and concurrency
   * limit), the offline metrics still going to the metric workers.
   */
  async startRun(dataset: StoredDataset, choice: RunChoice): Promise<void> {
    this.error = undefined;
    // The page's settings are reactive proxies, which IndexedDB and postMessage cannot clone.
    const settings = $state.snapshot(choice.settings) as MetricSettings;
    const models = $state.snapshot(choice.models) as ModelSource;
    const predictions = dataset.kind === 'prediction' || dataset.kind === 'sft';
    const metrics = predictions ? [] : [...choice.metrics];
    const task = choice.task ?? dataset.task;
    try {
      if (!predictions && metrics.length === 0) throw new Error('Choose at least one metric.');
      if (predictions && !task) {
        throw new Error(
          'This data set holds predictions: choose its task (trec, multi_news, custom:rouge-l, …) to score them.',
        );
      }
      const inPage = runExecutor(metrics, settings) === 'page';
      let judge: { provider: JudgeSession['provider']['kind']; model: string } | undefined;
      let judgeSettings;
      let concurrency: number | undefined;
      if (inPage) {
        if (!this.#scoring) throw new Error('LLM metrics cannot run here: no judge is attached.');
        const session = this.#scoring.judge;
        if (metrics.some(isJudgeMetric)) {
          // Fails now, with the judge's own words, rather than on every row.
          judgeSettings = session.batchJudge().settings;
          judge = { provider: session.provider.kind, model: session.provider.model.trim() };
        }
        concurrency = session.provider.concurrency;
      }
      const run = await createBatchRun({
        dataset,
        metrics,
        settings: {
          metrics: settings,
          ...(judgeSettings ? { judge: judgeSettings } : {}),
          ...(task ? { task } : {}),
          ...(concurrency ? { concurrency } : {}),
        },
        ...(judge ? { judge } : {}),
        appVersion: APP_VERSION,
      });
      this.runs = [run, ...this.runs];
      await this.#drive(run.id, models);
    } catch (error) {
      this.error = messageOf(error);
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
   * Scores the rows of a finished or paused run that were stored as failed again (and any row
   * without a result); their offline results are kept, and the judge's cache answers every call
   * that had worked, so only the failed calls are sent again.
   */
  async retryFailed(runId: string, models?: ModelSource): Promise<void> {
    await this.#drive(runId, models ? ($state.snapshot(models) as ModelSource) : undefined, {
      retryFailed: true,
    });
  }

  async #drive(
    runId: string,
    models?: ModelSource,
    options: { retryFailed?: boolean; quietIfBusy?: boolean } = {},
  ): Promise<void> {
    this.#resumeWhenOnline.delete(runId);
    try {
      const run = await getRun(runId);
      if (!run) throw new Error('This run no longer exists (was it deleted?).');
      const retryFailed = options.retryFailed ?? false;
      const outcome =
        runExecutor(run.metrics, run.settings.metrics) === 'page'
          ? await this.#driveInPage(run, models, retryFailed)
          : await this.#client().run(
              runId,
              { ...(models ? { models } : {}), ...(retryFailed ? { retryFailed } : {}) },
              {
                onProgress: (p) => (this.progress = { ...this.progress, [runId]: p }),
                onLoading: (l) => (this.loadingStage = `${l.stage}${l.file ? ` · ${l.file}` : ''}`),
              },
            );
      this.loadingStage = undefined;
      if (outcome.stoppedBy === 'offline' || outcome.stoppedBy === 'halted') {
        // Paused for the connection: say so on the run, and go on when it is back.
        // (the connection may be back already: the 'online' event came while the run stopped)
        if (browserOffline()) this.#resumeWhenOnline.add(runId);
        else void this.#drive(runId, models, { retryFailed: true });
      } else if (
        outcome.message &&
        outcome.stoppedBy !== 'provider' &&
        outcome.stoppedBy !== 'outage'
      ) {
        // (a provider's reason is on the run's own line, next to its Resume button)
        this.error = outcome.message;
      }
      await this.refresh();
      if (outcome.status === 'done') await this.open(runId);
    } catch (error) {
      const message = messageOf(error);
      if (!(options.quietIfBusy && message === RUN_BUSY_MESSAGE)) this.error = message;
      await this.refresh();
    }
  }

  /**
   * A run with LLM metrics, in the page: the key stays here. Refuses to go on with another judge
   * than the one it started with, so that one run never mixes two judges' scores. Everything
   * happens under the run's Web Lock, so that only the tab that runs it writes its status: a
   * second tab without the key must not rewrite a running run as paused.
   */
  #driveInPage(
    run: StoredRun,
    models: ModelSource | undefined,
    retryFailed: boolean,
  ): Promise<{ status: string; message?: string; stoppedBy?: string }> {
    return exclusively(runLockName(run.id), RUN_BUSY_MESSAGE, () =>
      this.#driveInPageLocked(run, models, retryFailed),
    );
  }

  async #driveInPageLocked(
    run: StoredRun,
    models: ModelSource | undefined,
    retryFailed: boolean,
  ): Promise<{ status: string; message?: string; stoppedBy?: string }> {
    const scoring = this.#scoring;
    if (!scoring) throw new Error('LLM metrics cannot run here: no judge is attached.');
    let judge: ReturnType<JudgeSession['batchJudge']> | undefined;
    try {
      if (run.metrics.some(isJudgeMetric)) {
        const wanted = run.backends.judge;
        const now = scoring.judge.provider;
        if (wanted && (wanted.provider !== now.kind || wanted.model !== now.model.trim())) {
          throw new Error(
            `This run is judged by ${wanted.provider}/${wanted.model}: choose that provider and model under "LLM judge provider" to resume it (one run never mixes two judges).`,
          );
        }
        const fresh = scoring.judge.batchJudge();
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
      const message = `${run.datasetName}: the run is paused. ${messageOf(error)}`;
      await updateRun(run.id, { status: 'paused', message }).catch(() => undefined);
      return { status: 'paused', message };
    }
    const settings = run.settings.metrics;
    const modelSource = models ?? ($state.snapshot(scoring.models) as ModelSource);
    const scoreRow = pageRowScorer({
      metrics: run.metrics,
      settings,
      offline: (ids, input, signal) =>
        scoring.scoreInWorkers(ids, input, settings, modelSource, signal),
      extra: (ids, input, signal) => scoring.providerEmbeddingMetrics(ids, input, settings, signal),
      ...(judge ? { judge } : {}),
      isOffline: browserOffline,
    });
    const handle: PageRun = {
      cancel: new AbortController(),
      pause: new PauseController(),
      halt: new AbortController(),
    };
    this.#pageRuns.set(run.id, handle);
    this.#pageRunsVersion++;
    try {
      if (browserOffline()) handle.halt.abort(OFFLINE_MESSAGE);
      return await runStoredBatchLocked(run.id, {
        scoreRow,
        onProgress: (p) => (this.progress = { ...this.progress, [run.id]: p }),
        signal: handle.cancel.signal,
        pause: handle.pause,
        halt: handle.halt.signal,
        retryFailed,
      });
    } finally {
      this.#pageRuns.delete(run.id);
      this.#pageRunsVersion++;
    }
  }

  pause(runId: string): void {
    const page = this.#pageRuns.get(runId);
    if (page) page.pause.pause();
    else this.#client().pause(runId);
  }

  continueRun(runId: string): void {
    const page = this.#pageRuns.get(runId);
    if (page) page.pause.resume();
    else this.#client().resume(runId);
  }

  cancel(runId: string): void {
    const page = this.#pageRuns.get(runId);
    if (page) page.cancel.abort();
    else this.#client().cancel(runId);
  }

  isRunning(runId: string): boolean {
    void this.#pageRunsVersion;
    return this.#pageRuns.has(runId) || (this.#batch?.isRunning(runId) ?? false);
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
      this.error = `${file.name}: ${messageOf(error)}`;
    }
  }

  async open(runId: string): Promise<void> {
    // User Timing, for DevTools and bench/responsive.ts.
    performance.mark('sumlens:open');
    const opening = ++this.#opening;
    // Another run's figures must not stand under this one's name while it is read: the same run
    // opened again keeps its figures on screen until the new ones arrive.
    if (this.openRun && this.openRun.run.id !== runId) {
      this.openRun = undefined;
      this.calibration = undefined;
    }
    this.openingRun = runId;
    try {
      const data = await loadRunData(runId);
      if (opening !== this.#opening) return;
      this.openRun = data;
      this.openingRun = undefined;
      if (data.dataset.humanColumns.length === 0) {
        this.calibration = undefined;
        return;
      }
      this.calibrating = true;
      const started = performance.now();
      // Let the view of the run render first: the rows for the worker are built in a task of
      // their own.
      await new Promise((resolve) => setTimeout(resolve, 0));
      this.#calibrator ??= startCalibrationWorker();
      const calibration = await this.#calibrator.calibrate(calibrationInput(data));
      performance.measure('sumlens:calibration', { start: started });
      if (opening === this.#opening) this.calibration = calibration;
    } catch (error) {
      if (opening === this.#opening) this.error = messageOf(error);
    } finally {
      if (opening === this.#opening) {
        this.calibrating = false;
        this.openingRun = undefined;
      }
    }
  }

  async removeRun(runId: string): Promise<void> {
    // A run still scoring would otherwise fail its next row against a record that is gone.
    if (this.isRunning(runId)) this.cancel(runId);
    await deleteRun(runId);
    if (this.openRun?.run.id === runId) this.openRun = undefined;
    await this.refresh();
  }

  async removeDataset(datasetId: string): Promise<void> {
    for (const run of this.runs) {
      if (run.datasetId === datasetId && this.isRunning(run.id)) this.cancel(run.id);
    }
    await deleteDataset(datasetId);
    if (this.openRun?.dataset.id === datasetId) this.openRun = undefined;
    await this.refresh();
  }

  /** Downloads the open run as JSON (re-importable), CSV or a Markdown report. */
  download(kind: 'json' | 'csv' | 'md'): void {
    const data = this.openRun;
    if (!data) return;
    const text =
      kind === 'json'
        ? runToJson(data, { secrets: this.judge?.keys.held() ?? [] })
        : kind === 'csv'
          ? runToCsv(data)
          : runToMarkdown(data, this.calibration ? { calibration: this.calibration } : {});
    const type =
      kind === 'json' ? 'application/json' : kind === 'csv' ? 'text/csv' : 'text/markdown';
    const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
    const link = document.createElement('a');
    link.href = url;
    link.download = exportFileName(data, kind);
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
