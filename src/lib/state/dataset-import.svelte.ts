/**
 * The page's side of importing a data set file: the first records are read in a parse worker
 * (`detect`) and the mapping confirmed or changed (MappingEditor), then the worker reads the whole
 * file and stores its rows itself (`import`): the page receives progress, bad rows and the summary,
 * never the rows. One job per fresh worker, so a large file's memory goes with the worker; a new
 * import, `cancel` or leaving the page cancels the job, and the worker removes what it wrote.
 */
import { messageOf } from '../errors.ts';
import { englishRef, ref, type MessageRef } from '../i18n/message.ts';
import { describeChoiceRef, reviewReasons, settledChoice } from '../datasets/mapping/checks.ts';
import type { MappingChoice } from '../datasets/mapping/fields.ts';
import type { DatasetSample } from '../datasets/mapping/sample.ts';
import { described } from '../datasets/detect/describe.ts';
import type { DatasetDescription, RowProblem } from '../rows/formats.ts';
import { getDataset } from '../storage/datasets.ts';
import type { StoredDataset } from '../storage/schema.ts';
import { parseApi } from '../workers/parse-api.ts';
import {
  isCancelled,
  WorkerClient,
  type MethodName,
  type ParamsOf,
  type ProgressOf,
  type ResultOf,
} from '../workers/rpc.ts';

export interface ImportState {
  fileName: string;
  bytes: number;
  total: number;
  rows: number;
  problems: RowProblem[];
  detected?: DatasetDescription;
  error?: string;
  /** `error` as a message, where the page words it (an error's own words have none). */
  errorRef?: MessageRef;
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

type ParseMethods = typeof parseApi.methods;

/** One call in a fresh parse worker, which goes when the call ends. */
async function parseJob<K extends MethodName<ParseMethods>>(
  method: K,
  params: ParamsOf<ParseMethods, K>,
  signal: AbortSignal,
  onProgress: (item: ProgressOf<ParseMethods, K>) => void,
): Promise<ResultOf<ParseMethods, K>> {
  const client = new WorkerClient(
    parseApi,
    new Worker(new URL('../../../workers/dataset-parse.worker.ts', import.meta.url), {
      type: 'module',
      name: 'dataset-parse',
    }),
  );
  try {
    return await client.call(method, params, { signal, onProgress });
  } finally {
    // After the reply (a cancel included): the worker has removed what a cancelled import wrote.
    client.terminate();
  }
}

/** An import that has read nothing of `file` yet. */
function freshImportState(file: File): ImportState {
  return { fileName: file.name, bytes: 0, total: file.size, rows: 0, problems: [], done: false };
}

/** What the import needs of the data-set session around it. */
export interface ImportHost {
  /** The data sets listed now. */
  datasets(): readonly StoredDataset[];
  /** Deletes the data set a re-import replaces (with its runs). */
  removeDataset(id: string): Promise<void>;
  refresh(): Promise<void>;
  reportError(message: string | undefined): void;
}

export class DatasetImport {
  importing = $state.raw<ImportState | undefined>();

  readonly #host: ImportHost;
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
  /** Cancels the parse worker's job under way. */
  #running: AbortController | undefined;

  constructor(host: ImportHost) {
    this.#host = host;
    // A closed tab or a reload ends the worker anyway; cancelling first lets it remove its rows.
    globalThis.addEventListener?.('pagehide', () => this.cancel());
  }

  /** Stops the file being read or stored, if any; what it had stored is removed. */
  cancel(): void {
    this.#running?.abort();
    this.#running = undefined;
  }

  #start(): { job: number; signal: AbortSignal } {
    this.cancel();
    const controller = new AbortController();
    this.#running = controller;
    return { job: ++this.#importJob, signal: controller.signal };
  }

  /**
   * Reads the first records of a dropped file (in a worker) and imports it straight away when
   * detection is sure and the proposed mapping works; otherwise shows the mapping editor first.
   */
  async importFile(file: File): Promise<StoredDataset | undefined> {
    this.#host.reportError(undefined);
    this.#lastImport = undefined;
    const { job, signal } = this.#start();
    const state = freshImportState(file);
    const show = () => {
      if (job === this.#importJob) this.importing = { ...state };
    };
    show();
    let found: { detected: DatasetDescription; sample: DatasetSample };
    try {
      found = await parseJob('detect', { file, fileName: file.name }, signal, (item) => {
        state.bytes = item.bytes;
        show();
      });
    } catch (error) {
      if (isCancelled(error)) return undefined;
      state.error = messageOf(error);
      show();
      return undefined;
    }
    if (job !== this.#importJob) return undefined;
    const { detected, sample } = found;
    state.detected = detected;
    if (sample.records === 0) {
      state.problems = sample.problems;
      const first = sample.problems[0];
      state.errorRef = first
        ? ref('datasets.import.noRowReadable', {
            file: file.name,
            reason: first.reasonRef ?? first.reason,
          })
        : ref('datasets.import.noRowReadableNoReason', { file: file.name });
      state.error = englishRef(state.errorRef);
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
    return this.#importWith(choice);
  }

  /** Imports the file under review with the user's mapping (replacing what it was imported as). */
  async importWithMapping(choice: MappingChoice): Promise<StoredDataset | undefined> {
    if (!this.#lastImport) return undefined;
    return this.#importWith(settledChoice(choice));
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
      this.#host.datasets().some((d) => d.id === id)
    );
  }

  /** Reads and stores the whole file with `choice` (in the worker), then drops what it replaces. */
  async #importWith(choice: MappingChoice): Promise<StoredDataset | undefined> {
    const last = this.#lastImport;
    if (!last) return undefined;
    const { file } = last;
    const replacedName = this.#host.datasets().find((d) => d.id === last.datasetId)?.name;
    const { job, signal } = this.#start();
    this.#host.reportError(undefined);
    const state: ImportState = { ...freshImportState(file), detected: last.detected };
    const show = () => {
      if (job === this.#importJob) this.importing = { ...state };
    };
    show();
    try {
      const summary = await parseJob(
        'import',
        {
          file,
          fileName: file.name,
          mapping: choice.mapping,
          ...(choice.task ? { task: choice.task } : {}),
          // The data set read again keeps its name: it replaces the one it was imported as.
          ...(replacedName ? { name: replacedName } : {}),
        },
        signal,
        (item) => {
          switch (item.type) {
            case 'bytes':
              state.bytes = item.bytes;
              break;
            case 'detected':
              state.detected = item.detected;
              break;
            case 'stored':
              state.rows = item.rows;
              break;
            case 'problems':
              state.problems = [...state.problems, ...item.problems];
              break;
            default: {
              const unreachable: never = item;
              throw new Error(`Unhandled import progress ${JSON.stringify(unreachable)}`);
            }
          }
          show();
        },
      );
      state.rows = summary.rows;
      state.detected = {
        ...summary.detected,
        ...(choice.task ? { task: choice.task } : {}),
        ...described(describeChoiceRef(choice, { ...last.sample, fileRecords: summary.rows })),
      };
      const dataset = await getDataset(summary.datasetId);
      if (!dataset) throw new Error(`${file.name}: the data set was stored but cannot be read.`);
      // The new rows are stored: only now does the data set they replace go (with its runs).
      const replaced = last.datasetId;
      last.datasetId = dataset.id;
      last.choice = choice;
      if (replaced !== undefined) await this.#host.removeDataset(replaced);
      state.done = true;
      state.datasetId = dataset.id;
      show();
      await this.#host.refresh();
      return dataset;
    } catch (error) {
      if (isCancelled(error)) return undefined;
      state.error = messageOf(error);
      // Back to the editor with the mapping that failed, so that it can be changed and tried again.
      state.review = { detected: last.detected, sample: last.sample, choice, reasons: [] };
      show();
      return undefined;
    } finally {
      if (job === this.#importJob) this.#running = undefined;
    }
  }
}
