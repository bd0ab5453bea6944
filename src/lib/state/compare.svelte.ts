/**
 * The page's side of the compare view: its state lives in the URL hash (compare-view.ts), so a
 * reload or a bookmark opens the same comparison; the calibration worker reads both sides and
 * answers the numbers (compare-data.ts); the two summaries of the chosen pair are read from
 * storage on their own and diffed word by word (jsdiff).
 */
import { diffWords, type ChangeObject } from 'diff';
import { messageOf } from '../errors.ts';
import type { CompareAnswer } from '../datasets/compare-data.ts';
import type { SideSpec } from '../datasets/compare.ts';
import {
  formatCompareHash,
  isCompareHash,
  parseCompareHash,
  type CompareState,
} from '../datasets/compare-view.ts';
import { comparisonToHtml } from '../datasets/export/html.ts';
import { isCaseRow, type DatasetRow } from '../rows/formats.ts';
import { getDatasetRow } from '../storage/datasets.ts';
import { formatTime } from '../ui/format.ts';
import { saveFile } from '../ui/save-file.ts';
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

function sameSide(x: SideSpec | undefined, y: SideSpec | undefined): boolean {
  return x?.runId === y?.runId && x?.system === y?.system;
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

  /** A side as the view names it: data set, date, and the system when it is one. */
  label(which: 'a' | 'b'): string {
    const spec = which === 'a' ? this.state?.a : this.state?.b;
    const sides = this.answer?.sides ?? [];
    const info = sides.find((s) => s.runId === spec?.runId);
    if (!spec) return '—';
    const run = info ? `${info.datasetName} · ${formatTime(info.createdAt)}` : spec.runId;
    return spec.system ? `${run} · system ${spec.system}` : run;
  }

  downloadHtml(): void {
    const comparison = this.answer?.comparison;
    const state = this.state;
    if (!comparison || !state) return;
    const labelA = this.label('a');
    const labelB = this.label('b');
    const day = new Date().toISOString().slice(0, 10);
    saveFile({
      text: comparisonToHtml({
        title: `SumLens comparison: ${labelB} against ${labelA}`,
        labelA,
        labelB,
        comparison,
        leaderboard: this.answer?.leaderboard ?? null,
        ...(state.metric ? { metric: state.metric } : {}),
        createdAt: Date.now(),
      }),
      fileName: `sumlens-comparison-${day}.html`,
      type: 'text/html;charset=utf-8',
    });
  }
}

export { isCompareHash };
