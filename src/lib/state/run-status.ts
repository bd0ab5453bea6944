/**
 * A run's stored status after a drive, and statuses kept outside IndexedDB while it was full
 * (../storage/run-status-journal.ts) written back once it takes them.
 */
import { messageOf } from '../errors.ts';
import { englishRef, ref } from '../i18n/message.ts';
import { runLabel } from '../datasets/names.ts';
import { announceRunChange } from '../storage/run-changes.ts';
import {
  clearJournaledStatus,
  journaledRunIds,
  journaledStatus,
  journalRunStatus,
} from '../storage/run-status-journal.ts';
import { getRun, updateRun } from '../storage/runs.ts';
import { RUN_STATUSES, type RunStatus, type StoredRun } from '../storage/schema.ts';
import type { PageRunOutcome } from './page-runs.svelte.ts';

/**
 * After a drive, the stored status must say what happened: a run is never left "running" with
 * nothing running it (the runner's own status write failed, or the drive threw). Where IndexedDB
 * refuses even that write (storage full), the status is kept outside it
 * (../storage/run-status-journal.ts), so that a reload does not resume the run by itself.
 */
export async function settleRunStatus(
  runId: string,
  outcome?: PageRunOutcome,
  failure?: unknown,
): Promise<void> {
  let stored: StoredRun | undefined;
  try {
    stored = await getRun(runId);
  } catch {
    return;
  }
  if (!stored || stored.status !== 'running') return;
  const ended = RUN_STATUSES.find((s) => s === outcome?.status && s !== 'running');
  const status: RunStatus = ended ?? 'paused';
  const messageRef =
    failure !== undefined
      ? ref('runs.page.paused', { run: runLabel(stored), reason: messageOf(failure) })
      : outcome?.messageRef;
  const message = messageRef ? englishRef(messageRef) : outcome?.message;
  try {
    await updateRun(runId, {
      status,
      message: message ?? null,
      ...(messageRef ? { messageRef } : {}),
    });
  } catch {
    journalRunStatus(runId, {
      status,
      ...(message !== undefined ? { message } : {}),
      ...(messageRef ? { messageRef } : {}),
      at: Date.now(),
    });
    announceRunChange(runId);
  }
}

/** Statuses kept outside IndexedDB go into it once it takes them (there is room again). */
export async function settleJournaledStatuses(): Promise<void> {
  for (const runId of journaledRunIds()) {
    const entry = journaledStatus(runId);
    try {
      const run = await getRun(runId);
      if (!entry || !run || entry.at < run.updatedAt) {
        clearJournaledStatus(runId);
        continue;
      }
      await updateRun(runId, {
        status: entry.status,
        message: entry.message ?? null,
        ...(entry.messageRef ? { messageRef: entry.messageRef } : {}),
      });
    } catch {
      // Still no room: the journal keeps standing in for the record.
    }
  }
}
