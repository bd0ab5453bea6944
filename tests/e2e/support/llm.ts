/** Page steps for the end-to-end tests that talk to the loopback fake provider. */
import type { Page } from 'playwright-core';
import type { ProviderKind } from '../../../src/lib/llm/types.ts';
import type { FakeLlm } from '../../helpers/fake-llm.ts';

export interface ProviderChoice {
  kind: ProviderKind;
  model: string;
  /** Saved for the session when given; a local model (openai-compatible) may need none. */
  key?: string;
}

/**
 * Opens the provider settings panel and waits until it is open. A click on its summary can land
 * beside it while a just-loaded page still lays out on a busy machine: the panel stays closed, its
 * text reads as empty and its buttons never become clickable (the fault suite's key scenario, once,
 * with both cores busy).
 */
export async function openProviderSettings(page: Page): Promise<void> {
  const panel = page.getByTestId('provider-settings');
  const opened = page.locator('[data-testid="provider-settings"][open]');
  for (let attempt = 1; (await panel.getAttribute('open')) === null; attempt++) {
    if (attempt > 5) throw new Error('The provider settings panel did not open after 5 clicks');
    await panel.locator('summary').click();
    await opened.waitFor({ timeout: 2_000 }).catch(() => undefined);
  }
}

/** Fills the page's provider settings so that its LLM requests go to `fake`. */
export async function configureProvider(
  page: Page,
  fake: Pick<FakeLlm, 'url'>,
  { kind, model, key }: ProviderChoice,
): Promise<void> {
  await openProviderSettings(page);
  await page.getByTestId('provider-kind').selectOption(kind);
  await page.getByTestId('provider-model').fill(model);
  await page.getByTestId('provider-base-url').fill(fake.url);
  if (key !== undefined) {
    await page.getByTestId('provider-key').fill(key);
    await page.getByTestId('provider-key-save').click();
  }
}

/**
 * Ticks these judge metrics in the judge panel (open, with the judge on): a new user starts with
 * the small default set, and the tests that look at every LLM card ask for all of them.
 */
export async function tickJudgeMetrics(page: Page, ids: readonly string[]): Promise<void> {
  for (const id of ids) await page.getByTestId(`judge-metric-${id}`).check();
}
