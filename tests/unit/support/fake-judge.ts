/**
 * The loopback fake provider (tests/helpers/fake-llm.ts) as a judge on each wire, for tests that
 * run the judge metrics through the real client: `useFakeLlm` starts the fake for the describe
 * block and resets it (and the client's per-provider state) before each test; `fakeJudge` is the
 * client pointed at it on the wire asked for (PROVIDERS.md: OpenAI chat completions, Anthropic
 * messages, Gemini generateContent).
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { resetCapabilityCache } from '../../../src/lib/llm/capabilities.ts';
import { createJudge } from '../../../src/lib/llm/client.ts';
import { resetLimiters } from '../../../src/lib/llm/limiter.ts';
import type { ProviderConfig } from '../../../src/lib/llm/types.ts';
import { startFakeLlm, type FakeLlm, type Wire } from '../../helpers/fake-llm.ts';

/** A provider of each wire, with a key that only the fake accepts. */
export const FAKE_PROVIDERS: Record<Wire, ProviderConfig> = {
  openai: { kind: 'openai', model: 'gpt-4.1-mini', apiKey: 'sk-test-fake-openai' },
  anthropic: { kind: 'anthropic', model: 'claude-haiku-4-5', apiKey: 'sk-ant-test-fake' },
  gemini: { kind: 'gemini', model: 'gemini-2.5-flash', apiKey: 'AIza-test-fake-gemini' },
};

export const WIRES = Object.keys(FAKE_PROVIDERS) as Wire[];

/** Starts the fake for the enclosing describe block; the getter gives the running one. */
export function useFakeLlm(): () => FakeLlm {
  let fake: FakeLlm | undefined;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    resetCapabilityCache();
    resetLimiters();
    fake?.reset();
  });
  return () => {
    if (!fake) throw new Error('the fake provider is started in beforeAll');
    return fake;
  };
}

/** The real client on `wire`, pointed at the fake. */
export function fakeJudge(
  fake: FakeLlm,
  wire: Wire,
  options: Parameters<typeof createJudge>[1] = {},
): ReturnType<typeof createJudge> {
  return createJudge({ ...FAKE_PROVIDERS[wire], baseUrl: fake.url }, options);
}
