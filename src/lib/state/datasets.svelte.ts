/**
 * The page's data-set state: import (parsed in a worker, streamed, bad rows listed), the stored
 * data sets and runs, a batch run of the offline metrics in its own worker (rows stored as they
 * finish, so a reload resumes), and the finished run's table, charts, calibration and exports.
 */
import type { DatasetDescription, DatasetRow, RowProblem } from '../datasets/formats.ts';
import type { ParseReply, ParseRequest } from '../datasets/parse-protocol.ts';
import type { ParseSummary } from '../datasets/parse.ts';
import { BatchWorkerClient } from '../datasets/batch-protocol.ts';
import type { BatchProgress } from '../datasets/batch.ts';
import {
  createRun,
  deleteDataset,
  deleteRun,
  listDatasets,
  listRuns,
  saveDataset,
  summarizeProblems,
} from '../storage/datasets.ts';
import type { StoredDataset, StoredRun } from '../storage/schema.ts';
import {
  calibrationInput,
  exportFileName,
  loadRunData,
  runToCsv,
  runToJson,
  runToMarkdown,
} from '../datasets/export.ts';
import type { RunData } from '../datasets/export.ts';
import type { Calibration } from '../datasets/calibration.ts';
import type { CalibrationClient } from '../datasets/calibration-protocol.ts';
import { startCalibrationWorker } from '../datasets/calibration-client.ts';
import { storageEstimate } from '../storage/quota.ts';
import type { StorageEstimateInfo } from '../storage/quota.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { ModelSource } from '../models/source.ts';
import { OFFLINE_METRIC_IDS } from '../metrics/types.ts';
import type { MetricId } from '../metrics/types.ts';

const APP_VERSION = '0.1.0';

export interface ImportState {
  fileName: string;
  bytes: number;
  total: number;
  rows: number;
  problems: RowProblem[];
  detected?: DatasetDescription;
  error?: string;
  done: boolean;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class DatasetSession {
  datasets = $state.raw<StoredDataset[]>([]);
  runs = $state.raw<StoredRun[]>([]);
  importing = $state.raw<ImportState | undefined>();
  progress = $state.raw<Record<string, BatchProgress>>({});
  /** The run whose table and charts are shown. */
  openRun = $state.raw<RunData | undefined>();
  calibration = $state.raw<Calibration | undefined>();
  /** The open run's calibration is being computed (in its worker). */
  calibrating = $state(false);
  storage = $state.raw<StorageEstimateInfo | undefined>();
  error = $state<string | undefined>();
  loadingStage = $state<string | undefined>();

  #batch: BatchWorkerClient | undefined;
  #calibrator: CalibrationClient | undefined;
  /** Counts `open` calls, so that a slow one never overwrites a later one's run. */
  #opening = 0;

  async init(): Promise<void> {
    await this.refresh();
    // A run that was running when the page went away (reload, crash) picks up where it stopped:
    // its finished rows are stored, the worker skips them.
    for (const run of this.runs.filter((r) => r.status === 'running')) void this.resume(run.id);
  }

  async refresh(): Promise<void> {
    try {
      [this.datasets, this.runs] = await Promise.all([listDatasets(), listRuns()]);
      this.storage = await storageEstimate();
    } catch (error) {
      this.error = messageOf(error);
    }
  }

  /** Parses a dropped file in a worker (streamed), then stores its rows. */
  async importFile(file: File): Promise<StoredDataset | undefined> {
    this.error = undefined;
    const state: ImportState = {
      fileName: file.name,
      bytes: 0,
      total: file.size,
      rows: 0,
      problems: [],
      done: false,
    };
    this.importing = { ...state };
    const rows: DatasetRow[] = [];
    const worker = new Worker(
      new URL('../../../workers/dataset-parse.worker.ts', import.meta.url),
      {
        type: 'module',
        name: 'dataset-parse',
      },
    );
    const id = crypto.randomUUID();
    try {
      const summary = await new Promise<ParseSummary | undefined>((resolve, reject) => {
        worker.addEventListener('message', (event: MessageEvent<ParseReply>) => {
          const reply = event.data;
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
              resolve(reply.summary);
              return;
            case 'error':
              if (reply.detected) state.detected = reply.detected;
              reject(new Error(reply.message));
              return;
          }
          this.importing = { ...state };
        });
        worker.addEventListener('error', (event) =>
          reject(new Error(`The file reader stopped: ${event.message || 'unknown error'}`)),
        );
        worker.postMessage({ type: 'parse', id, file, fileName: file.name } satisfies ParseRequest);
      });
      if (rows.length === 0) {
        throw new Error(
          `No row of ${file.name} could be read${state.problems[0] ? `: ${state.problems[0].reason}` : '.'}`,
        );
      }
      const detected = summary?.detected ?? state.detected;
      if (!detected) throw new Error(`${file.name}: the format could not be recognised.`);
      const dataset = await saveDataset(
        {
          id: crypto.randomUUID(),
          name: file.name.replace(/\.(jsonl|json|csv)$/iu, ''),
          createdAt: Date.now(),
          kind: detected.kind,
          format: detected.format,
          mapping: detected.mapping,
          ...(detected.task ? { task: detected.task } : {}),
          problems: summarizeProblems(state.problems),
          fileName: file.name,
          bytes: file.size,
        },
        rows,
      );
      state.done = true;
      this.importing = { ...state };
      await this.refresh();
      return dataset;
    } catch (error) {
      state.error = messageOf(error);
      this.importing = { ...state };
      return undefined;
    } finally {
      worker.terminate();
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

  /** Starts a run of the offline metrics (or the data set's task, for prediction rows). */
  async startRun(
    dataset: StoredDataset,
    settings: MetricSettings,
    models: ModelSource,
    metrics: readonly MetricId[] = OFFLINE_METRIC_IDS,
  ): Promise<void> {
    this.error = undefined;
    // The page's settings are reactive proxies, which IndexedDB and postMessage cannot clone.
    settings = $state.snapshot(settings) as MetricSettings;
    models = $state.snapshot(models) as ModelSource;
    try {
      const run = await createRun({
        id: crypto.randomUUID(),
        datasetId: dataset.id,
        datasetName: dataset.name,
        createdAt: Date.now(),
        metrics: dataset.kind === 'prediction' ? [] : [...metrics],
        settings: {
          metrics: settings,
          ...(dataset.task ? { task: dataset.task } : {}),
        },
        appVersion: APP_VERSION,
        total: dataset.rowCount,
      });
      this.runs = [run, ...this.runs];
      await this.#drive(run.id, models);
    } catch (error) {
      this.error = messageOf(error);
    }
  }

  async resume(runId: string, models?: ModelSource): Promise<void> {
    await this.#drive(runId, models ? ($state.snapshot(models) as ModelSource) : undefined);
  }

  async #drive(runId: string, models?: ModelSource): Promise<void> {
    try {
      const outcome = await this.#client().run(runId, models ? { models } : {}, {
        onProgress: (p) => (this.progress = { ...this.progress, [runId]: p }),
        onLoading: (l) => (this.loadingStage = `${l.stage}${l.file ? ` · ${l.file}` : ''}`),
      });
      this.loadingStage = undefined;
      if (outcome.message) this.error = outcome.message;
      await this.refresh();
      if (outcome.status === 'done') await this.open(runId);
    } catch (error) {
      this.error = messageOf(error);
      await this.refresh();
    }
  }

  pause(runId: string): void {
    this.#client().pause(runId);
  }

  continueRun(runId: string): void {
    this.#client().resume(runId);
  }

  cancel(runId: string): void {
    this.#client().cancel(runId);
  }

  isRunning(runId: string): boolean {
    return this.#batch?.isRunning(runId) ?? false;
  }

  async open(runId: string): Promise<void> {
    // User Timing, for DevTools and bench/responsive.ts.
    performance.mark('sumlens:open');
    const opening = ++this.#opening;
    try {
      const data = await loadRunData(runId);
      if (opening !== this.#opening) return;
      // The same run opened again keeps its figures on screen until the new ones arrive.
      if (this.openRun?.run.id !== runId) this.calibration = undefined;
      this.openRun = data;
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
      if (opening === this.#opening) this.calibrating = false;
    }
  }

  async removeRun(runId: string): Promise<void> {
    await deleteRun(runId);
    if (this.openRun?.run.id === runId) this.openRun = undefined;
    await this.refresh();
  }

  async removeDataset(datasetId: string): Promise<void> {
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
        ? runToJson(data)
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
