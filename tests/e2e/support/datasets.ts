/** Page steps the data-set end-to-end tests share. */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/** Picks a file in the data-set view and waits until it is listed as one more data set. */
export async function importDataset(page: Page, file: string): Promise<void> {
  const before = await page.getByTestId('dataset-item').count();
  await page.getByTestId('dataset-file').setInputFiles(file);
  await expect
    .poll(() => page.getByTestId('dataset-item').count(), { timeout: 60_000 })
    .toBe(before + 1);
}
