/**
 * The data-set page's runs as plain data: what the user chose for a new one, a run put in its
 * place in the list, a record read again, and the import locks that keep another tab's unfinished
 * rows from being swept away as orphans.
 */
import { importLockName } from '../storage/datasets.ts';
import { getRun } from '../storage/runs.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { MetricId } from '../metrics/types.ts';
import type { ModelSource } from '../models/source.ts';
import type { RunCeiling, StoredRun } from '../storage/schema.ts';

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

/** The list with `run` in its place (newest first), replacing its older copy. */
export function withRun(runs: readonly StoredRun[], run: StoredRun): StoredRun[] {
  const at = runs.findIndex((r) => r.id === run.id);
  if (at >= 0) return runs.map((r, i) => (i === at ? run : r));
  const before = runs.findIndex((r) => r.createdAt < run.createdAt);
  return before < 0 ? [...runs, run] : [...runs.slice(0, before), run, ...runs.slice(before)];
}

/** Whether another tab is importing a data set right now (it holds the data set's import lock). */
export async function importsInProgress(): Promise<(datasetId: string) => boolean> {
  const held = (await globalThis.navigator?.locks?.query())?.held ?? [];
  const names = new Set(held.map((lock) => lock.name));
  return (datasetId) => names.has(importLockName(datasetId));
}

/** `record` without `key`; the same object when it had none (no needless update). */
export function without<T>(record: Record<string, T>, key: string): Record<string, T> {
  if (!(key in record)) return record;
  const { [key]: _dropped, ...rest } = record;
  return rest;
}

/** The runs `ids` as stored now (undefined: deleted); a run that could not be read is left out. */
export async function readRuns(
  ids: readonly string[],
): Promise<Array<{ id: string; run: StoredRun | undefined }>> {
  const read = await Promise.all(
    ids.map((id) =>
      getRun(id).then(
        (run) => ({ id, run, ok: true }),
        () => ({ id, run: undefined, ok: false }),
      ),
    ),
  );
  return read.filter((r) => r.ok).map(({ id, run }) => ({ id, run }));
}
