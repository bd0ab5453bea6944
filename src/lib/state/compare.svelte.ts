/**
 * The page's side of the compare view: its state lives in the URL hash (compare-view.ts), so a
 * reload or a bookmark opens the same comparison; the calibration worker reads both sides and
 * answers the numbers (compare-data.ts); the two summaries of the chosen pair are read from
 * storage on their own and diffed word by word (jsdiff). Its exports (JSON, pairs and summary CSV,
 * Markdown, HTML) are built here from the numbers the view holds (datasets/export/file.ts).
 */
import { diffWords, type ChangeObject } from 'diff';
import { messageOf } from '../errors.ts';
import type { CompareAnswer, SideInfo } from '../datasets/compare-data.ts';
import type { SideSpec } from '../datasets/compare.ts';
import {
  formatCompareHash,
  isCompareHash,
  parseCompareHash,
  type CompareState,
} from '../datasets/compare-view.ts';
import { comparisonFile, type ComparisonFormat } from '../datasets/export/file.ts';
import {
  comparisonTitle,
  type ComparisonReport,
  type ComparisonSide,
} from '../datasets/export/comparison-report.ts';
import { defaultCompareColumn } from '../datasets/human-ratings.ts';
import { isCaseRow, type DatasetRow } from '../rows/formats.ts';
import { getDatasetRow } from '../storage/datasets.ts';
import { formatTime } from '../ui/locale-format.ts';
import { saveFile } from '../ui/save-file.ts';
import { t } from '../i18n/i18n.svelte.ts';
import { startCalibrationWorker, type CalibrationClient } from '../workers/calibration-client.ts';
import { isCancelled } from '../workers/rpc.ts';

export interface PairTexts {
  key: string;
  a: string;
  b: string;
  parts: ChangeObject<string>[];
}

function textOf(row: DatasetRow | undefined): string {
  if (!row) return '';
  return isCaseRow(row) ? row.input.summary : row.input.prediction;
}

/** A side as the view's pickers name it: the system when it is one, data set and date. */
function sideLabel(spec: SideSpec, info: SideInfo | undefined): string {
  const run = info ? `${info.datasetName} · ${formatTime(info.createdAt)}` : spec.runId;
  return spec.system ? `system ${spec.system} · ${run}` : run;
}

function sameSide(x: SideSpec | undefined, y: SideSpec | undefined): boolean {
  return x?.runId === y?.runId && x?.system === y?.system;
}

export interface CompareSessionOptions {
  /** The keys the page holds: redacted from the exports wherever they appear. */
  secrets?: () => readonly string[];
}

export class CompareSession {
  state = $state.raw<CompareState | null>(null);
  answer = $state.raw<CompareAnswer | undefined>();
  loading = $state(false);
  error = $state<string | undefined>();
  texts = $state.raw<PairTexts | undefined>();

  #worker: CalibrationClient | undefined;
  #job: AbortController | undefined;
  #loaded: { a: SideSpec; b: SideSpec | undefined } | undefined;
  #textsFor = 0;
  readonly #secrets: () => readonly string[];

  constructor(options: CompareSessionOptions = {}) {
    this.#secrets = options.secrets ?? (() => []);
  }

  /** Reads the hash, and follows it when the user goes back or forward. */
  init(): void {
    this.#fromHash();
    globalThis.addEventListener?.('hashchange', () => this.#fromHash());
  }

  #fromHash(): void {
    const state = parseCompareHash(location.hash);
    this.state = state;
    if (state) void this.#load();
  }

  #write(state: CompareState, push: boolean): void {
    this.state = state;
    const hash = formatCompareHash(state);
    if (location.hash === hash) return;
    if (push) history.pushState(null, '', hash);
    else history.replaceState(null, '', hash);
  }

  /** Opens the comparison of `a` (and `b`, once chosen). */
  open(a: SideSpec, b?: SideSpec): void {
    this.#write(
      { a, ...(b ? { b } : {}), sort: 'regression', changed: false, filterSide: 'b' },
      true,
    );
    void this.#load();
  }

  /** Changes the view's state; a new side reloads the numbers. */
  update(patch: Partial<CompareState>): void {
    if (!this.state) return;
    const next: CompareState = { ...this.state, ...patch };
    for (const key of Object.keys(patch) as (keyof CompareState)[]) {
      if (patch[key] === undefined) delete next[key];
    }
    this.#write(next, false);
    if (!sameSide(next.a, this.#loaded?.a) || !sameSide(next.b, this.#loaded?.b)) void this.#load();
    if (patch.pair !== undefined || 'pair' in patch) void this.#loadTexts();
  }

  close(): void {
    this.#job?.abort();
    this.state = null;
    this.answer = undefined;
    this.texts = undefined;
    this.#loaded = undefined;
    history.replaceState(null, '', location.pathname + location.search);
  }

  async #load(): Promise<void> {
    const state = this.state;
    if (!state) return;
    if (sameSide(state.a, this.#loaded?.a) && sameSide(state.b, this.#loaded?.b) && this.answer) {
      void this.#loadTexts();
      return;
    }
    this.#job?.abort();
    const job = (this.#job = new AbortController());
    this.loading = true;
    this.error = undefined;
    try {
      this.#worker ??= startCalibrationWorker();
      const answer = await this.#worker.call(
        'compareRuns',
        { a: state.a, ...(state.b ? { b: state.b } : {}) },
        { signal: job.signal },
      );
      if (job.signal.aborted) return;
      this.answer = answer;
      this.#loaded = { a: state.a, b: state.b };
      void this.#loadTexts();
    } catch (error) {
      if (!isCancelled(error) && !job.signal.aborted) this.error = messageOf(error);
    } finally {
      if (this.#job === job) this.loading = false;
    }
  }

  async #loadTexts(): Promise<void> {
    const state = this.state;
    const comparison = this.answer?.comparison;
    const ticket = ++this.#textsFor;
    if (!state?.pair || !comparison || !this.answer) {
      this.texts = undefined;
      return;
    }
    const i = comparison.keys.indexOf(state.pair);
    if (i < 0) {
      this.texts = undefined;
      return;
    }
    const [sideA, sideB = sideA] = this.answer.sides;
    try {
      const [ra, rb] = await Promise.all([
        getDatasetRow(sideA.datasetId, comparison.rowsA[i]),
        getDatasetRow(sideB.datasetId, comparison.rowsB[i]),
      ]);
      if (ticket !== this.#textsFor) return;
      const a = textOf(ra);
      const b = textOf(rb);
      this.texts = { key: state.pair, a, b, parts: diffWords(a, b) };
    } catch (error) {
      if (ticket === this.#textsFor) this.error = messageOf(error);
    }
  }

  /** The comparison as its exports read it: the sides the numbers were read for, or undefined. */
  report(): ComparisonReport | undefined {
    const answer = this.answer;
    const loaded = this.#loaded;
    if (!answer?.comparison || !loaded?.b) return undefined;
    const side = (spec: SideSpec): ComparisonSide | undefined => {
      const info = answer.sides.find((s) => s.runId === spec.runId);
      if (!info) return undefined;
      return {
        label: sideLabel(spec, info),
        runId: info.runId,
        runName: info.runName,
        datasetId: info.datasetId,
        datasetName: info.datasetName,
        runCreatedAt: info.createdAt,
        ...(spec.system === undefined ? {} : { system: spec.system }),
      };
    };
    const a = side(loaded.a);
    const b = side(loaded.b);
    if (!a || !b) return undefined;
    // The column the view shows: the one chosen, else the view's default (the quality estimate).
    const metric = defaultCompareColumn(answer.comparison.metrics, this.state?.metric);
    return {
      title: comparisonTitle(a.label, b.label, t),
      a,
      b,
      comparison: answer.comparison,
      leaderboard: answer.leaderboard,
      ...(metric ? { metric } : {}),
      createdAt: Date.now(),
    };
  }

  /** Downloads the comparison as JSON, the pairs or the summary as CSV, Markdown or HTML. */
  download(format: ComparisonFormat): void {
    const report = this.report();
    if (!report) return;
    try {
      saveFile(comparisonFile(report, format, { secrets: this.#secrets(), words: t }));
    } catch (error) {
      this.error = messageOf(error);
    }
  }
}

export { isCompareHash };
