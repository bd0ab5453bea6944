/** Saved cases and the history list. */
import { db } from './db.ts';
import type { Draft, HistoryEntry, StoredCase } from './schema.ts';

export function historyEntryOf(stored: StoredCase): HistoryEntry {
  const title = stored.input.summary.trim().replace(/\s+/gu, ' ').slice(0, 120);
  return {
    id: stored.id,
    createdAt: stored.createdAt,
    title,
    summaryChars: stored.input.summary.length,
    sourceChars: stored.input.source.length,
    hasReference: Boolean(stored.input.reference?.trim()),
    scores: stored.results.map(({ id, status, score, raw, backend }) => ({
      id,
      status,
      score,
      ...(raw === undefined ? {} : { raw }),
      backend,
    })),
  };
}

export async function saveCase(stored: StoredCase): Promise<HistoryEntry> {
  const entry = historyEntryOf(stored);
  const database = await db();
  const tx = database.transaction(['cases', 'history'], 'readwrite');
  await Promise.all([
    tx.objectStore('cases').put(stored),
    tx.objectStore('history').put(entry),
    tx.done,
  ]);
  return entry;
}

/** Newest first. */
export async function listHistory(): Promise<HistoryEntry[]> {
  const entries = await (await db()).getAllFromIndex('history', 'by-created');
  return entries.reverse();
}

export async function getCase(id: string): Promise<StoredCase | undefined> {
  return (await db()).get('cases', id);
}

export async function deleteCase(id: string): Promise<void> {
  const tx = (await db()).transaction(['cases', 'history'], 'readwrite');
  await Promise.all([
    tx.objectStore('cases').delete(id),
    tx.objectStore('history').delete(id),
    tx.done,
  ]);
}

export async function deleteAllCases(): Promise<void> {
  const tx = (await db()).transaction(['cases', 'history'], 'readwrite');
  await Promise.all([tx.objectStore('cases').clear(), tx.objectStore('history').clear(), tx.done]);
}

export async function saveDraft(draft: Omit<Draft, 'key'>): Promise<void> {
  await (await db()).put('drafts', { key: 'current', ...draft });
}

export async function loadDraft(): Promise<Draft | undefined> {
  return (await db()).get('drafts', 'current');
}
