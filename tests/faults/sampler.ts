/**
 * Samples a run while it runs, not only once it has settled: every ~250 ms, in each tab that
 * shows it, the run item (status word, rows, request counter) against the stored run record
 * (read from IndexedDB in the same page at the same moment), and whether anything holds the
 * run's Web Lock. A difference that lasts over a second is a finding:
 *
 * - ghost: the item says running (or pausing) and no tab or worker holds the run's lock, i.e.
 *   "Running" with nothing running;
 * - status: the word shown, or the item's data-status (its contract for tests and tools), is not
 *   the stored status (paused/stopped against paused, and so on);
 * - progress: the rows done or failed shown are not the stored counts;
 * - counter: the requests shown are not the stored request counter.
 */
import type { Page } from 'playwright-core';
import type { FaultLlm } from '../helpers/fault-llm.ts';
import {
  fail,
  inBatchPage,
  startAndReach,
  type BatchOpen,
  type BatchPage,
  type BodyResult,
  type SuiteEnv,
} from './harness.ts';
import { sampleRun, type RunSampleView } from './page.ts';
import type { ReportRow } from './report.ts';

export const SAMPLE_MS = 250;
/** How long a difference may last. */
export const TOLERANCE_MS = 1_000;

export interface Sample extends RunSampleView {
  tab: string;
  /** ms since the sampler started. */
  t: number;
  /** Requests the provider had received by then. */
  sent: number;
}

type Finding = 'ghost' | 'status' | 'progress' | 'counter';

export interface Episode {
  tab: string;
  kind: Finding;
  from: number;
  to: number;
  /** What the first sample of it showed. */
  detail: string;
}

/** The shown status words that mean "something is running this run". */
const ACTIVE = new Set(['running', 'pausing', 'cancelling']);

/** Whether the word shown may stand for the stored status (transitions count for both ends). */
export function statusAgrees(word: string, stored: string | undefined): boolean {
  switch (word) {
    case 'running':
      return stored === 'running';
    case 'pausing':
      return stored === 'running' || stored === 'paused';
    case 'paused':
    case 'stopped':
      return stored === 'paused';
    case 'cancelling':
      return stored === 'running' || stored === 'cancelled';
    default:
      return word === stored;
  }
}

/** The findings of one sample (empty when the item agrees with the record). */
export function findings(s: RunSampleView): Array<{ kind: Finding; detail: string }> {
  const out: Array<{ kind: Finding; detail: string }> = [];
  const shown = s.shown;
  if (!shown) return out;
  const stored = s.stored;
  if (ACTIVE.has(shown.word) && !s.locked)
    out.push({
      kind: 'ghost',
      detail: `shown ${shown.word} at ${shown.done}/${shown.total}, no lock held, stored ${stored?.status ?? 'gone'}`,
    });
  if (!stored) {
    out.push({ kind: 'status', detail: `shown ${shown.word}, the stored run is gone` });
    return out;
  }
  if (!statusAgrees(shown.word, stored.status))
    out.push({ kind: 'status', detail: `shown ${shown.word}, stored ${stored.status}` });
  else if (shown.dataStatus !== null && !statusAgrees(shown.dataStatus, stored.status))
    out.push({
      kind: 'status',
      detail: `shown ${shown.word} but data-status ${shown.dataStatus}, stored ${stored.status}`,
    });
  if (shown.done !== stored.done || shown.failed !== stored.failed)
    out.push({
      kind: 'progress',
      detail: `shown ${shown.done} done/${shown.failed} failed, stored ${stored.done}/${stored.failed}`,
    });
  if ((shown.requests ?? 0) !== (stored.requests ?? 0))
    out.push({
      kind: 'counter',
      detail: `shown ${shown.requests ?? 'no'} requests, stored ${stored.requests ?? 0}`,
    });
  return out;
}

/** Runs of consecutive samples of a tab with the same finding that last over `TOLERANCE_MS`. */
export function episodes(samples: readonly Sample[], tolerance = TOLERANCE_MS): Episode[] {
  const out: Episode[] = [];
  const tabs = [...new Set(samples.map((s) => s.tab))];
  for (const tab of tabs) {
    const mine = samples.filter((s) => s.tab === tab);
    const open = new Map<Finding, Episode>();
    const close = (kind: Finding) => {
      const e = open.get(kind);
      if (e && e.to - e.from > tolerance) out.push(e);
      open.delete(kind);
    };
    for (const s of mine) {
      const now = new Map(findings(s).map((f) => [f.kind, f.detail]));
      for (const kind of [...open.keys()]) if (!now.has(kind)) close(kind);
      for (const [kind, detail] of now) {
        const e = open.get(kind);
        if (e) e.to = s.t;
        else open.set(kind, { tab, kind, from: s.t, to: s.t, detail });
      }
    }
    for (const kind of [...open.keys()]) close(kind);
  }
  return out.sort((a, b) => a.from - b.from);
}

export interface SamplerReport {
  samples: Sample[];
  episodes: Episode[];
}

/** Samples run `runId` in `tabs` until stopped; a tab that closes or reloads is skipped meanwhile. */
export class RunSampler {
  readonly samples: Sample[] = [];
  readonly #tabs = new Map<string, Page>();
  readonly #started = Date.now();
  #stopped = false;
  #report: SamplerReport | undefined;
  readonly #loop: Promise<void>;
  /** Called after each round of samples. */
  #waiters: Array<() => void> = [];

  constructor(
    private readonly fault: FaultLlm,
    private readonly runId: string,
    tabs: Record<string, Page>,
  ) {
    for (const [name, page] of Object.entries(tabs)) this.#tabs.set(name, page);
    this.#loop = this.#run();
  }

  /** ms since the sampler started (the samples' clock). */
  now(): number {
    return Date.now() - this.#started;
  }

  addTab(name: string, page: Page): void {
    this.#tabs.set(name, page);
  }

  removeTab(name: string): void {
    this.#tabs.delete(name);
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const began = Date.now();
      for (const [tab, page] of [...this.#tabs]) {
        if (page.isClosed()) continue;
        try {
          const view = await sampleRun(page, this.runId);
          this.samples.push({ ...view, tab, t: this.now(), sent: this.fault.log.length });
        } catch {
          // Reloading or closing: this tab has no sample this time.
        }
      }
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const w of waiters) w();
      // The sampling cadence, not a wait for a state.
      const rest = SAMPLE_MS - (Date.now() - began);
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    }
  }

  /** Resolves once a whole round of samples has been taken from now on. */
  async tick(): Promise<void> {
    if (this.#stopped) return;
    // The round under way may have started before the caller's moment: wait for the next one.
    await new Promise<void>((r) => this.#waiters.push(r));
    await new Promise<void>((r) => this.#waiters.push(r));
  }

  /** Stops sampling (once; later calls return the same report). */
  async stop(): Promise<SamplerReport> {
    this.#stopped = true;
    await this.#loop;
    for (const w of this.#waiters) w();
    this.#report ??= { samples: this.samples, episodes: episodes(this.samples) };
    return this.#report;
  }
}

const LABEL: Record<Finding, string> = {
  ghost: 'shown running with nothing running',
  status: 'status shown ≠ stored',
  progress: 'rows shown ≠ stored',
  counter: 'request counter shown ≠ stored',
};

/** The row's sampled figures and a failed check for every kind of finding seen. */
export function samplerNotes(r: ReportRow, report: SamplerReport): void {
  const by = (kind: Finding) => report.episodes.filter((e) => e.kind === kind);
  r.sampled = {
    samples: report.samples.length,
    ghosts: by('ghost').length,
    status: by('status').length + by('progress').length,
    counter: by('counter').length,
  };
  for (const kind of ['ghost', 'status', 'progress', 'counter'] as const) {
    const list = by(kind);
    if (list.length === 0) continue;
    const longest = list.reduce((a, b) => (b.to - b.from > a.to - a.from ? b : a));
    r.notes.push(
      fail(
        `${LABEL[kind]} for over ${TOLERANCE_MS / 1000} s, ${list.length}× (longest ${((longest.to - longest.from) / 1000).toFixed(1)} s in tab ${longest.tab}: ${longest.detail})`,
      ),
    );
  }
  if (report.samples.length === 0) r.notes.push(fail('the sampler read no run item'));
}

/** The samples of `tab` from `from` (sampler ms) on. */
export function samplesOf(report: SamplerReport, tab: string, from = 0): Sample[] {
  return report.samples.filter((s) => s.tab === tab && s.t >= from);
}

/**
 * A data-set scenario mid-run (`inBatchPage`): the run started, its answers `latencyMs` slow,
 * and waited on until `reach` rows are stored; from then on its item is sampled in tab A (the body
 * may add tabs, or stop the sampler early to read it), and the sampler's findings end the row.
 */
export function sampledRun(
  env: SuiteEnv,
  r: ReportRow,
  started: number,
  open: BatchOpen,
  at: { latencyMs: number; reach: number },
  body: (b: BatchPage, runId: string, sampler: RunSampler) => Promise<BodyResult>,
): Promise<ReportRow> {
  return inBatchPage(env, r, started, open, async (b) => {
    env.fault.setLatency(at.latencyMs);
    const runId = await startAndReach(b.fp.page, b.dataset, at.reach);
    const sampler = new RunSampler(env.fault, runId, { A: b.fp.page });
    try {
      return await body(b, runId, sampler);
    } finally {
      env.fault.setLatency(0);
      // One more round, so that what the list shows once the body is done is read too.
      await sampler.tick();
      samplerNotes(r, await sampler.stop());
    }
  });
}
