import type { Page } from 'playwright-core';

export interface StoredResult {
  id: string;
  score: number | null;
  raw?: number;
  backend: string;
  notes?: string[];
  details: {
    pairs?: { similarity: number | null }[];
    adjacentPairs?: { similarity: number | null }[];
    entities?: { start: number; end: number; text: string; label: string }[];
  };
}

/** The results of the newest saved case, read from IndexedDB the way the app stored them. */
export async function latestResults(page: Page): Promise<Record<string, StoredResult>> {
  return page.evaluate(
    () =>
      new Promise<Record<string, StoredResult>>((done, fail) => {
        const open = indexedDB.open('sumlens');
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const request = open.result.transaction('cases').objectStore('cases').getAll();
          request.onerror = () => fail(request.error);
          request.onsuccess = () => {
            const cases = request.result as { createdAt: number; results: StoredResult[] }[];
            cases.sort((a, b) => b.createdAt - a.createdAt);
            const newest = cases[0]?.results ?? [];
            done(Object.fromEntries(newest.map((r) => [r.id, r])));
            open.result.close();
          };
        };
      }),
  );
}

/** The summary of the unsaved draft the app keeps in IndexedDB (undefined when none is stored). */
export async function storedDraftSummary(page: Page): Promise<string | undefined> {
  return page.evaluate(
    () =>
      new Promise<string | undefined>((done, fail) => {
        const open = indexedDB.open('sumlens');
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const request = open.result.transaction('drafts').objectStore('drafts').get('current');
          request.onerror = () => fail(request.error);
          request.onsuccess = () => {
            const draft = request.result as { input?: { summary?: string } } | undefined;
            done(draft?.input?.summary);
            open.result.close();
          };
        };
      }),
  );
}
