/** Page steps the data-set end-to-end tests share. */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import {
  humanColumnLabel,
  labelledHeader,
  scoreColumnLabel,
} from '../../../src/lib/datasets/column-labels.ts';

/** Picks a file in the data-set view and waits until it is listed as one more data set. */
export async function importDataset(page: Page, file: string): Promise<void> {
  const before = await page.getByTestId('dataset-item').count();
  await page.getByTestId('dataset-file').setInputFiles(file);
  await expect
    .poll(() => page.getByTestId('dataset-item').count(), { timeout: 60_000 })
    .toBe(before + 1);
}

/** Every record of one of the app's IndexedDB stores, as the app stored it. */
export function storedRecords<T>(page: Page, store: string): Promise<T[]> {
  return page.evaluate(
    (name) =>
      new Promise<T[]>((resolve, reject) => {
        const open = indexedDB.open('sumlens');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const request = open.result.transaction(name).objectStore(name).getAll();
          request.onsuccess = () => {
            open.result.close();
            resolve(request.result as T[]);
          };
          request.onerror = () => reject(request.error);
        };
      }),
    store,
  );
}

/** The ids of the runs in the list now. */
export function listedRunIds(page: Page): Promise<string[]> {
  return page
    .getByTestId('run-item')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-run-id') ?? ''));
}

/** The list item of one run, by its id. */
export function listedRun(page: Page, runId: string) {
  return page.locator(`[data-testid="run-item"][data-run-id="${runId}"]`);
}

/**
 * Clicks `start` (a button that starts one run) and answers the id of the run it added to the
 * list: the one id that was not listed before.
 */
export async function startedRun(page: Page, start: () => Promise<void>): Promise<string> {
  const before = new Set(await listedRunIds(page));
  await start();
  let id: string | undefined;
  await expect
    .poll(
      async () => {
        id = (await listedRunIds(page)).find((r) => !before.has(r));
        return id;
      },
      { timeout: 30_000 },
    )
    .toBeTruthy();
  return id!;
}

/** The CSV export's header of a score column (`ROUGE-L [rouge-l]`). */
export function scoreHeader(column: string): string {
  return labelledHeader(scoreColumnLabel(column), column);
}

/** The CSV export's header of a human rating column (`quality (human) [human:quality]`). */
export function humanHeader(name: string): string {
  return labelledHeader(humanColumnLabel(name), `human:${name}`);
}

/** A score column's label as the run summary shows it, as a pattern (it may hold parentheses). */
export function labelPattern(column: string): string {
  return scoreColumnLabel(column).replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}
