/**
 * How a stored run's record changes: usage added up, a status or setting updated. Plain
 * functions on the record; runs.ts reads and writes it in IndexedDB around them.
 */
import type { MessageRef } from '../i18n/message.ts';
import type { JudgeUsage, ProviderBatchState, RunCeiling, RunStatus, StoredRun } from './schema.ts';

export interface RunUpdate {
  status?: RunStatus;
  message?: string | null;
  /** `message` as a message of SumLens's own, for the page to word in its language. */
  messageRef?: MessageRef;
  /** Where the run's provider batch phase stands. */
  batchState?: ProviderBatchState;
  /** Judge settings or backends learnt after the start. */
  backends?: StoredRun['backends'];
  total?: number;
  /** A raised budget (or null: no ceiling, the user chose to go on past it). */
  ceiling?: RunCeiling | null;
}

/** `total` with `add` counted in (a new total when there was none). */
export function addUsage(total: JudgeUsage | undefined, add: JudgeUsage): JudgeUsage {
  const base = total ?? { input: 0, output: 0, calls: 0, httpCalls: 0, cachedCalls: 0 };
  const cachedInput =
    base.cachedInput === undefined && add.cachedInput === undefined
      ? undefined
      : (base.cachedInput ?? 0) + (add.cachedInput ?? 0);
  // A cost stays known only while every row's cost is known.
  const cost =
    (total === undefined || base.cost !== undefined) && add.cost !== undefined
      ? (base.cost ?? 0) + add.cost
      : undefined;
  return {
    input: base.input + add.input,
    output: base.output + add.output,
    ...(cachedInput === undefined ? {} : { cachedInput }),
    calls: base.calls + add.calls,
    httpCalls: base.httpCalls + add.httpCalls,
    cachedCalls: base.cachedCalls + add.cachedCalls,
    ...(cost === undefined ? {} : { cost }),
  };
}

/** Applies `update` to `run` in place and stamps it as updated now. */
export function applyUpdate(run: StoredRun, update: RunUpdate): void {
  const now = Date.now();
  if (update.status !== undefined) {
    run.status = update.status;
    if (update.status === 'done') run.finishedAt = now;
  }
  if (update.message === null) {
    delete run.message;
    delete run.messageRef;
  } else if (update.message !== undefined) {
    run.message = update.message;
    // A message of SumLens's own comes with its ref; any other text has none (a stale ref goes).
    if (update.messageRef) run.messageRef = update.messageRef;
    else delete run.messageRef;
  }
  if (update.backends) run.backends = update.backends;
  if (update.batchState) run.batchState = update.batchState;
  if (update.total !== undefined) run.counts = { ...run.counts, total: update.total };
  if (update.ceiling === null) delete run.settings.ceiling;
  else if (update.ceiling) run.settings.ceiling = update.ceiling;
  run.updatedAt = now;
}
