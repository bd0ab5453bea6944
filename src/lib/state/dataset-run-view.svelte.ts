/**
 * The page's side of a finished run's view: the calibration worker reads the run's rows and
 * results and posts the view's numbers (the score table, the ratings) and then its calibration;
 * the page keeps those and the run's and data set's records, never the rows. A row opened in the
 * single-case view is read on its own, and the CSV and Markdown exports are built in the worker;
 * the JSON export redacts the judge's keys, which stay on the page, so it is built here at click
 * time.
 */
import { messageOf } from '../errors.ts';
import type { Calibration } from '../datasets/calibration.ts';
import type { AssertionEntry } from '../assertions/assertion.ts';
import { startCalibrationWorker, type CalibrationClient } from '../workers/calibration-client.ts';
import { exportFile, exportFileName, type ExportFormat } from '../datasets/export/file.ts';
import { loadRunData, loadRunRecords } from '../datasets/run-data.ts';
import type { RunView } from '../datasets/run-view.ts';
import type { CaseInput, MetricResult } from '../metrics/types.ts';
import { isCaseRow } from '../rows/formats.ts';
import { openedRow } from '../datasets/row-language.ts';
import type { TextLanguage } from '../metrics/text/language.ts';
import { getDatasetRow } from '../storage/datasets.ts';
import { getRowResult } from '../storage/runs.ts';
import type { StoredDataset, StoredRun } from '../storage/schema.ts';
import { isCancelled } from '../workers/rpc.ts';
import { saveFile } from '../ui/save-file.ts';
import { runToHtml } from '../datasets/export/html.ts';
import { formatTime } from '../ui/locale-format.ts';
import { i18n, t } from '../i18n/i18n.svelte.ts';

/** The run on screen: its records and its view's numbers. */
export interface OpenRun {
  dataset: StoredDataset;
  run: StoredRun;
  view: RunView;
}

/** A case row as the single-case view takes it. */
export interface RowCase {
  /** The row's texts, with the language its run scored it in. */
  input: CaseInput;
  results: MetricResult[];
  /** That language and how it was found (detected, the script, the row's own column). */
  language?: TextLanguage;
}

export interface RunViewerHost {
  reportError(message: string): void;
  /** The judge's keys the page holds, redacted in a JSON export. */
  secrets(): string[];
}

export class RunViewer {
  /** The run whose table and charts are shown. */
  openRun = $state.raw<OpenRun | undefined>();
  calibration = $state.raw<Calibration | undefined>();
  /** The run being read for the view, until it is shown. */
  openingRun = $state<string | undefined>();
  /** The open run's calibration is being computed (in its worker). */
  calibrating = $state(false);

  readonly #host: RunViewerHost;
  #worker: CalibrationClient | undefined;
  /** Counts `open` calls, so that a slow one never overwrites a later one's run. */
  #opening = 0;
  /** The worker's job for the latest `open`, cancelled when another run is opened. */
  #job: AbortController | undefined;

  constructor(host: RunViewerHost) {
    this.#host = host;
  }

  #client(): CalibrationClient {
    this.#worker ??= startCalibrationWorker();
    return this.#worker;
  }

  async open(runId: string): Promise<void> {
    // User Timing, for DevTools and bench/responsive.ts.
    performance.mark('sumlens:open');
    const opening = ++this.#opening;
    this.#job?.abort();
    const job = (this.#job = new AbortController());
    const current = () => opening === this.#opening;
    // Another run's figures must not stand under this one's name while it is read: the same run
    // opened again keeps its figures on screen until the new ones arrive.
    if (this.openRun && this.openRun.run.id !== runId) {
      this.openRun = undefined;
      this.calibration = undefined;
    }
    this.openingRun = runId;
    try {
      const records = await loadRunRecords(runId);
      if (!current()) return;
      let calibrationStarted = 0;
      const calibration = await this.#client().call(
        'openRun',
        { runId },
        {
          signal: job.signal,
          onProgress: (view) => {
            if (!current()) return;
            this.openRun = { ...records, view };
            this.openingRun = undefined;
            if (records.dataset.humanColumns.length === 0) {
              this.calibration = undefined;
              return;
            }
            this.calibrating = true;
            calibrationStarted = performance.now();
          },
        },
      );
      if (!current()) return;
      if (calibration) {
        performance.measure('sumlens:calibration', { start: calibrationStarted });
        this.calibration = calibration;
      } else {
        this.calibration = undefined;
      }
    } catch (error) {
      if (current() && !isCancelled(error)) this.#host.reportError(messageOf(error));
    } finally {
      if (current()) {
        this.calibrating = false;
        this.openingRun = undefined;
      }
    }
  }

  /** A run's rows checked against a data set's checks, in the worker that reads its results. */
  checkRun(runId: string, assertions: AssertionEntry[], signal?: AbortSignal) {
    return this.#client().call('checkRun', { runId, assertions }, signal ? { signal } : {});
  }

  /** Closes the view when it shows what `shows` names (a run or data set being deleted). */
  closeIf(shows: (open: OpenRun) => boolean): void {
    if (this.openRun && shows(this.openRun)) this.openRun = undefined;
  }

  /** One row of the open run with its results, read when the user opens it; none for a row
   * without a case (a prediction row) or without results. */
  async rowCase(rowNumber: number): Promise<RowCase | undefined> {
    const open = this.openRun;
    if (!open) return undefined;
    try {
      const [row, result] = await Promise.all([
        getDatasetRow(open.dataset.id, rowNumber),
        getRowResult(open.run.id, rowNumber),
      ]);
      if (!row || !result || !isCaseRow(row)) return undefined;
      return { ...openedRow(row, result), results: result.results };
    } catch (error) {
      this.#host.reportError(messageOf(error));
      return undefined;
    }
  }

  /** Downloads the open run as one self-contained HTML page, built from the view's numbers. */
  downloadHtml(): void {
    const open = this.openRun;
    if (!open) return;
    const title = `${open.dataset.name} · ${formatTime(open.run.createdAt)}`;
    saveFile({
      text: runToHtml(
        {
          title,
          datasetName: open.dataset.name,
          createdAt: open.run.createdAt,
          status: open.run.status,
          table: open.view.table,
          ...(this.calibration ? { calibration: this.calibration } : {}),
        },
        t,
      ),
      fileName: exportFileName(open, 'html'),
      type: 'text/html;charset=utf-8',
    });
  }

  /** Downloads the open run as JSON (re-importable), CSV or a Markdown report. */
  async download(format: ExportFormat): Promise<void> {
    const open = this.openRun;
    if (!open) return;
    const runId = open.run.id;
    const calibration = this.calibration;
    try {
      const file =
        format === 'json'
          ? exportFile(await loadRunData(runId), 'json', { secrets: this.#host.secrets() })
          : await this.#client().call('exportRun', {
              runId,
              format,
              locale: i18n.locale,
              ...(format === 'md' && calibration ? { calibration } : {}),
            });
      saveFile(file);
    } catch (error) {
      this.#host.reportError(messageOf(error));
    }
  }
}
