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

/** Fills the page's provider settings so that its LLM requests go to `fake`. */
export async function configureProvider(
  page: Page,
  fake: Pick<FakeLlm, 'url'>,
  { kind, model, key }: ProviderChoice,
): Promise<void> {
  const provider = page.getByTestId('provider-settings');
  if ((await provider.getAttribute('open')) === null) await provider.locator('summary').click();
  await page.getByTestId('provider-kind').selectOption(kind);
  await page.getByTestId('provider-model').fill(model);
  await page.getByTestId('provider-base-url').fill(fake.url);
  if (key !== undefined) {
    await page.getByTestId('provider-key').fill(key);
    await page.getByTestId('provider-key-save').click();
  }
}
