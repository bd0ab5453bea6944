/**
 * The capability table (PROVIDERS.md §0, §12.3), context windows, the one-time logprob probe and
 * the test-connection helper.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  contextWindow,
  flavorOf,
  staticCapabilities,
  tableTraits,
  type CapabilityStore,
} from '../../../src/lib/llm/capabilities.ts';
import { createJudge, testConnection } from '../../../src/lib/llm/client.ts';
import type { Capabilities, ProviderConfig } from '../../../src/lib/llm/types.ts';
import { fakeError, geminiSuccess, openaiSuccess } from '../../helpers/fake-llm.ts';
import { fixture, KEYS, resetLlmState, scriptedFetch } from './_support.ts';

const compat = (baseUrl: string, model = 'm'): ProviderConfig => ({
  kind: 'openai-compatible',
  model,
  baseUrl,
});

beforeEach(resetLlmState);

describe('static table', () => {
  it('recognises OpenAI-compatible hosts', () => {
    expect(flavorOf(compat('https://openrouter.ai/api/v1'))).toBe('openrouter');
    expect(flavorOf(compat('https://api.groq.com/openai/v1'))).toBe('groq');
    expect(flavorOf(compat('https://api.mistral.ai/v1'))).toBe('mistral');
    expect(flavorOf(compat('https://api.deepseek.com'))).toBe('deepseek');
    expect(flavorOf(compat('http://localhost:11434/v1'))).toBe('ollama');
    expect(flavorOf(compat('http://127.0.0.1:1234/v1'))).toBe('lmstudio');
    expect(flavorOf(compat('http://localhost:8080'))).toBe('llamacpp');
    expect(flavorOf(compat('http://192.168.1.20:8000/v1'))).toBe('vllm');
    expect(flavorOf(compat('http://[::1]:5000/v1'))).toBe('local');
    expect(flavorOf(compat('https://my-gw.example.com/v1'))).toBe('custom');
    expect(flavorOf(compat('https://res.openai.azure.com/openai/v1'))).toBe('azure');
  });

  it.each([
    ['Anthropic', { kind: 'anthropic', model: 'claude-haiku-4-5' }],
    ['Groq', compat('https://api.groq.com/openai/v1')],
    ['Mistral', compat('https://api.mistral.ai/v1')],
    ['LM Studio', compat('http://localhost:1234/v1')],
    ['DeepSeek', compat('https://api.deepseek.com', 'deepseek-chat')],
  ] as Array<[string, ProviderConfig]>)('%s: no logprobs, never probed', (_name, config) => {
    expect(staticCapabilities(config)).toMatchObject({ logprobs: false, maxTopLogprobs: 0 });
    expect(tableTraits(config).probe).toBe(false);
  });

  it('OpenAI: reasoning models have no logprobs and only their default temperature', () => {
    for (const model of [
      'o1',
      'o3-mini',
      'o4-mini',
      'gpt-5',
      'gpt-5-mini',
      'gpt-5.1',
      'gpt-5.4-mini',
    ]) {
      expect(staticCapabilities({ kind: 'openai', model }), model).toMatchObject({
        logprobs: false,
        temperature: 'default-only',
      });
    }
    for (const model of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1-mini', 'ft:gpt-4o-mini:org::abc']) {
      expect(staticCapabilities({ kind: 'openai', model }), model).toMatchObject({
        logprobs: true,
        maxTopLogprobs: 20,
        temperature: 'any',
        n: true,
        jsonSchema: true,
      });
    }
    expect(staticCapabilities({ kind: 'openai', model: 'gpt-5.4' })).toMatchObject({
      logprobs: true,
      maxTopLogprobs: 5,
    });
  });

  it('Gemini: 2.5 has no logprobs on the Gemini API, 2.0 does; 3.x has no candidateCount', () => {
    expect(staticCapabilities({ kind: 'gemini', model: 'gemini-2.5-flash' })).toMatchObject({
      logprobs: false,
      n: true,
    });
    expect(staticCapabilities({ kind: 'gemini', model: 'gemini-2.0-flash' })).toMatchObject({
      logprobs: true,
      n: true,
    });
    expect(staticCapabilities({ kind: 'gemini', model: 'gemini-3-flash' })).toMatchObject({
      logprobs: false,
      n: false,
    });
  });

  it('n, JSON mode and temperature per provider', () => {
    expect(staticCapabilities(compat('https://openrouter.ai/api/v1')).n).toBe(false);
    expect(staticCapabilities(compat('https://api.groq.com/openai/v1')).n).toBe(false);
    expect(staticCapabilities(compat('http://localhost:11434')).n).toBe(false);
    expect(staticCapabilities(compat('https://api.mistral.ai/v1')).n).toBe(true);
    expect(staticCapabilities(compat('https://api.deepseek.com')).jsonSchema).toBe(false);
    expect(
      staticCapabilities({ kind: 'anthropic', model: 'claude-3-5-haiku-latest' }).temperature,
    ).toBe('any');
    expect(
      staticCapabilities({ kind: 'anthropic', model: 'claude-sonnet-4-5-20250929' }).temperature,
    ).toBe('any');
    expect(staticCapabilities({ kind: 'anthropic', model: 'claude-opus-4-7' }).temperature).toBe(
      'default-only',
    );
  });

  it('context windows, 8k for unknown local models', () => {
    expect(contextWindow({ kind: 'openai', model: 'gpt-4.1-mini' })).toBe(1_047_576);
    expect(contextWindow({ kind: 'openai', model: 'gpt-4o-mini' })).toBe(128_000);
    expect(contextWindow({ kind: 'anthropic', model: 'claude-haiku-4-5' })).toBe(200_000);
    expect(contextWindow({ kind: 'gemini', model: 'gemini-2.5-flash' })).toBe(1_048_576);
    expect(contextWindow(compat('https://openrouter.ai/api/v1', 'openai/gpt-4o'))).toBe(128_000);
    expect(contextWindow(compat('http://localhost:8080', 'my-finetune'))).toBe(8_192);
    expect(contextWindow(compat('http://10.0.0.5:5000/v1', 'llama3.1'))).toBe(8_192);
    expect(contextWindow(compat('http://localhost:11434', 'llama3.1'))).toBe(4_096);
    expect(contextWindow(compat('https://my-gw.example.com/v1', 'unknown'))).toBe(32_768);
  });
});

describe('probe', () => {
  const OPENAI: ProviderConfig = { kind: 'openai', model: 'gpt-4o-mini', apiKey: KEYS.openai };
  const seven = (k: number) => ({
    body: openaiSuccess({
      logprobs: [
        {
          token: '7',
          logprob: -0.01,
          top: Array.from({ length: k }, (_, i) => [String(i), -1 - i] as [string, number]),
        },
      ],
    }),
  });

  it('asks "Reply with the digit 7" with one token and top 20, once per provider+model', async () => {
    const { fetch, calls } = scriptedFetch([seven(20)]);
    const judge = createJudge(OPENAI, { fetch });
    const caps = await Promise.all([judge.capabilities(), judge.capabilities()]);
    expect(caps[0]).toEqual({
      logprobs: true,
      maxTopLogprobs: 20,
      n: true,
      jsonSchema: true,
      temperature: 'any',
      source: 'probe',
    });
    expect(calls).toHaveLength(1);
    expect(calls[0].body).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Reply with the digit 7' }],
      temperature: 0,
      max_completion_tokens: 1,
      logprobs: true,
      top_logprobs: 20,
    });
    await createJudge(OPENAI, { fetch }).capabilities();
    expect(calls).toHaveLength(1);
  });

  it('steps down 20 → 5 → 1 on range errors', async () => {
    const range = fixture('openai-errors.json').ollama_top_logprobs_range;
    const { fetch, calls } = scriptedFetch((call) =>
      call.body.top_logprobs > 1 ? range : seven(1),
    );
    const caps = await createJudge(OPENAI, { fetch }).capabilities();
    expect(calls.map((c) => c.body.top_logprobs)).toEqual([20, 5, 1]);
    expect(caps).toMatchObject({ logprobs: true, maxTopLogprobs: 1 });
  });

  it('a 200 with null logprobs means unsupported (OpenRouter, LM Studio)', async () => {
    const config = {
      ...compat('https://openrouter.ai/api/v1', 'meta-llama/llama-3.1-8b-instruct'),
      apiKey: KEYS.openrouter,
    };
    const { fetch, calls } = scriptedFetch([{ body: openaiSuccess() }]);
    expect(await createJudge(config, { fetch }).capabilities()).toMatchObject({
      logprobs: false,
      source: 'probe',
    });
    expect(calls[0].body.provider).toEqual({ require_parameters: true });
  });

  it.each([
    [
      'OpenAI 403',
      { kind: 'openai', model: 'gpt-5', apiKey: 'k' },
      fakeError('openai', 'logprobs-forbidden'),
    ],
    [
      'Gemini "not enabled"',
      { kind: 'gemini', model: 'gemini-2.5-flash', apiKey: 'k' },
      fakeError('gemini', 'logprobs-forbidden'),
    ],
  ] as Array<[string, ProviderConfig, never]>)(
    '%s mentioning logprobs means unsupported',
    async (_label, config, reply) => {
      const { fetch, calls } = scriptedFetch([reply]);
      expect(await createJudge(config, { fetch }).capabilities()).toMatchObject({
        logprobs: false,
        maxTopLogprobs: 0,
        source: 'probe',
      });
      expect(calls).toHaveLength(1);
    },
  );

  it('finds Gemini 2.0 logprobs with responseLogprobs', async () => {
    const config: ProviderConfig = {
      kind: 'gemini',
      model: 'gemini-2.0-flash',
      apiKey: KEYS.gemini,
    };
    const { fetch, calls } = scriptedFetch([
      {
        body: geminiSuccess({
          logprobs: [
            {
              token: '7',
              logprob: -0.1,
              top: [
                ['7', -0.1],
                ['1', -3],
              ],
            },
          ],
        }),
      },
    ]);
    expect(await createJudge(config, { fetch }).capabilities()).toMatchObject({
      logprobs: true,
      maxTopLogprobs: 2,
    });
    expect(calls[0].body.generationConfig).toEqual({
      temperature: 0,
      maxOutputTokens: 1,
      responseLogprobs: true,
      logprobs: 20,
    });
  });

  it('never probes Anthropic', async () => {
    const { fetch, calls } = scriptedFetch([{ body: {} }]);
    const caps = await createJudge(
      { kind: 'anthropic', model: 'claude-haiku-4-5', apiKey: 'k' },
      { fetch },
    ).capabilities();
    expect(caps).toMatchObject({ logprobs: false, n: false, source: 'table' });
    expect(calls).toHaveLength(0);
  });

  it('surfaces a bad key, keeps the table after a transient failure', async () => {
    const bad = scriptedFetch([fakeError('openai', 'bad-key') as never]);
    await expect(createJudge(OPENAI, { fetch: bad.fetch }).capabilities()).rejects.toMatchObject({
      kind: 'auth',
    });
    const flaky = scriptedFetch([fakeError('openai', 'server') as never]);
    const caps = await createJudge(OPENAI, { fetch: flaky.fetch, maxAttempts: 1 }).capabilities();
    expect(caps.source).toBe('table');
    // Not cached: the next call probes again.
    const ok = scriptedFetch([seven(20)]);
    expect((await createJudge(OPENAI, { fetch: ok.fetch }).capabilities()).source).toBe('probe');
  });

  it('reads and writes the persistent store', async () => {
    const saved = new Map<string, Capabilities>();
    const store: CapabilityStore = {
      get: async (key) => saved.get(key),
      set: async (key, caps) => void saved.set(key, caps),
    };
    const { fetch, calls } = scriptedFetch([seven(20)]);
    await createJudge(OPENAI, { fetch, capabilityStore: store }).capabilities();
    expect([...saved.keys()]).toEqual(['openai|api.openai.com|gpt-4o-mini']);
    expect(JSON.stringify([...saved])).not.toContain(KEYS.openai);
    resetLlmState();
    const caps = await createJudge(OPENAI, { fetch, capabilityStore: store }).capabilities();
    expect(caps).toMatchObject({ logprobs: true, source: 'probe' });
    expect(calls).toHaveLength(1);
  });

  it('probe results steer later calls', async () => {
    const local = compat('http://127.0.0.1:5000/v1', 'some-model');
    const { fetch, calls } = scriptedFetch([seven(5)]);
    const judge = createJudge(local, { fetch });
    await judge.complete({ messages: [{ role: 'user', content: 'x' }], topLogprobs: 20 });
    expect(calls[0].body).not.toHaveProperty('logprobs');
    await judge.capabilities();
    await judge.complete({ messages: [{ role: 'user', content: 'x' }], topLogprobs: 20 });
    expect(calls[2].body).toMatchObject({ logprobs: true, top_logprobs: 5 });
  });
});

describe('testConnection', () => {
  it('reports the model on success', async () => {
    const { fetch } = scriptedFetch([{ body: openaiSuccess({ text: 'OK' }) }]);
    expect(
      await testConnection(
        { kind: 'openai', model: 'gpt-4.1-mini', apiKey: KEYS.openai },
        { fetch },
      ),
    ).toEqual({
      ok: true,
      model: 'gpt-4.1-mini-2025-04-14',
      message: 'Connected: gpt-4.1-mini-2025-04-14 answered.',
      messageRef: { key: 'llm.test.connected', values: { model: 'gpt-4.1-mini-2025-04-14' } },
    });
  });

  it('says what is wrong in plain words, without the key', async () => {
    const { fetch } = scriptedFetch([
      {
        ...fakeError('openai', 'bad-key'),
        body: {
          error: { message: `Incorrect API key provided: ${KEYS.openai}`, code: 'invalid_api_key' },
        },
      } as never,
    ]);
    const res = await testConnection(
      { kind: 'openai', model: 'gpt-4.1-mini', apiKey: KEYS.openai },
      { fetch },
    );
    expect(res.ok).toBe(false);
    expect(res.kind).toBe('auth');
    expect(res.message).toMatch(/^OpenAI rejected the API key/);
    expect(res.message).not.toContain(KEYS.openai);
  });

  it('counts a reasoning model that spent its tokens thinking as connected', async () => {
    const { fetch } = scriptedFetch([
      { body: openaiSuccess({ text: '', finishReason: 'length' }) },
    ]);
    expect(
      (await testConnection({ kind: 'openai', model: 'gpt-5', apiKey: 'k' }, { fetch })).ok,
    ).toBe(true);
  });

  it('explains an unreachable local server', async () => {
    const { fetch } = scriptedFetch([{ throws: new TypeError('Failed to fetch') }]);
    const res = await testConnection(compat('http://localhost:11434/v1', 'llama3.2'), {
      fetch,
      sleep: async () => {},
    });
    expect(res).toMatchObject({ ok: false, kind: 'network' });
    expect(res.message).toMatch(/OLLAMA_ORIGINS/);
  });
});
