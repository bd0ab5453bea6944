/**
 * A run's status when IndexedDB refuses to store it. A run stops because the disk budget is used
 * up, and then the write that would mark it paused fails for the same reason: the run stayed
 * "running" in storage while nothing ran, and the next page load resumed it, buying its answers
 * again. localStorage lives outside the quota that IndexedDB fills, so the page keeps the status
 * there until IndexedDB takes it; every read of a run (getRun, listRuns) lays the newer of the two
 * over the record. Workers have no localStorage: the page settles a run's status after each drive
 * (src/lib/state/datasets.svelte.ts).
 */
import type { MessageRef } from '../i18n/message.ts';
import type { RunStatus, StoredRun } from './schema.ts';

export interface JournaledStatus {
  status: RunStatus;
  message?: string;
  messageRef?: MessageRef;
  /** When the page decided it (ms): a record written later than this supersedes it. */
  at: number;
}

const PREFIX = 'sumlens.run-status.';

type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;

function storage(): StorageLike | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the status outside IndexedDB; false where there is no localStorage or it is full too. */
export function journalRunStatus(
  runId: string,
  entry: JournaledStatus,
  into: StorageLike | undefined = storage(),
): boolean {
  if (!into) return false;
  try {
    into.setItem(PREFIX + runId, JSON.stringify(entry));
    return true;
  } catch {
    return false;
  }
}

export function journaledStatus(
  runId: string,
  from: StorageLike | undefined = storage(),
): JournaledStatus | undefined {
  const raw = from?.getItem(PREFIX + runId);
  if (!raw) return undefined;
  try {
    const entry = JSON.parse(raw) as JournaledStatus;
    return typeof entry.status === 'string' && typeof entry.at === 'number' ? entry : undefined;
  } catch {
    return undefined;
  }
}

export function clearJournaledStatus(runId: string, from: StorageLike | undefined = storage()) {
  try {
    from?.removeItem(PREFIX + runId);
  } catch {
    // Nothing to clear where there is no storage.
  }
}

/** Every run id with a journaled status (to settle them into IndexedDB when it has room). */
export function journaledRunIds(from: StorageLike | undefined = storage()): string[] {
  const ids: string[] = [];
  if (!from) return ids;
  for (let i = 0; i < from.length; i++) {
    const key = from.key(i);
    if (key?.startsWith(PREFIX)) ids.push(key.slice(PREFIX.length));
  }
  return ids;
}

/** The run as the page must show it: the journaled status where it is newer than the record. */
export function withJournaledStatus(
  run: StoredRun,
  from: StorageLike | undefined = storage(),
): StoredRun {
  const entry = journaledStatus(run.id, from);
  if (!entry || entry.at < run.updatedAt) return run;
  const { message: _message, messageRef: _messageRef, ...rest } = run;
  return {
    ...rest,
    status: entry.status,
    ...(entry.message !== undefined ? { message: entry.message } : {}),
    ...(entry.messageRef ? { messageRef: entry.messageRef } : {}),
  };
}
