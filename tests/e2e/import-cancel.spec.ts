/**
 * A parse job is cancelled for real: a second file dropped while a large one is still being read
 * and stored takes over the import, and the worker of the first removes the rows it had written,
 * so no half data set is listed and no orphan rows stay in IndexedDB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openApp, type App } from './support/browser.ts';

/** Rows per data set as IndexedDB holds them, read in the page. */
function storedRows(page: Page): Promise<Record<string, number>> {
  return page.evaluate(
    () =>
      new Promise<Record<string, number>>((resolve, reject) => {
        const open = indexedDB.open('sumlens');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const counts: Record<string, number> = {};
          const request = open.result
            .transaction('dataset-rows')
            .objectStore('dataset-rows')
            .openKeyCursor();
          request.onerror = () => reject(request.error);
          request.onsuccess = () => {
            const cursor = request.result;
            if (!cursor) {
              open.result.close();
              resolve(counts);
              return;
            }
            const [datasetId] = cursor.primaryKey as [string, number];
            counts[datasetId] = (counts[datasetId] ?? 0) + 1;
            cursor.continue();
          };
        };
      }),
  );
}

describe('cancelling an import', () => {
  let app: App;
  let page: Page;
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-import-cancel-'));

  beforeAll(async () => {
    app = await openApp();
    page = app.page;
  });

  afterAll(() => app?.close());

  it('a file dropped mid-import takes over, and the first leaves no rows behind', async () => {
    // Large enough that its rows are still being stored when the second file comes.
    const sentence =
      'The council met on Monday and agreed to repair the old bridge over the river. ';
    const big = join(dir, 'big-cases.jsonl');
    writeFileSync(
      big,
      Array.from({ length: 40_000 }, (_, i) =>
        JSON.stringify({
          source: `${i}. ${sentence.repeat(6)}`,
          summary: `Row ${i}: the bridge will be repaired.`,
        }),
      ).join('\n'),
    );
    const small = join(dir, 'small-cases.jsonl');
    writeFileSync(
      small,
      [1, 2, 3]
        .map((i) =>
          JSON.stringify({ source: `Source ${i}. ${sentence}`, summary: `Summary ${i}.` }),
        )
        .join('\n'),
    );

    await page.getByTestId('dataset-file').setInputFiles(big);
    const panel = page.getByTestId('dataset-import');
    // Some of its rows are stored, the import is not done.
    await expect
      .poll(
        async () =>
          Number(
            ((await panel.innerText()).match(/([\d,]+) rows? read/u)?.[1] ?? '0').replace(
              /,/gu,
              '',
            ),
          ),
        {
          timeout: 60_000,
        },
      )
      .toBeGreaterThan(0);
    expect(await panel.getAttribute('data-done')).toBe('false');
    expect(Object.values(await storedRows(page)).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);

    await page.getByTestId('dataset-file').setInputFiles(small);
    const items = page.getByTestId('dataset-item');
    await expect.poll(() => items.count(), { timeout: 60_000 }).toBe(1);
    expect(await items.first().innerText()).toMatch(/small-cases/u);
    await expect.poll(() => panel.innerText()).toMatch(/small-cases\.jsonl: 3 rows read/u);

    // The cancelled worker removed what it had written: only the small data set's rows remain.
    await expect
      .poll(async () => Object.values(await storedRows(page)), { timeout: 30_000 })
      .toEqual([3]);
    // And nothing lists the big file after a reload either.
    await page.reload();
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.first().innerText()).not.toMatch(/big-cases/u);
  });
});
