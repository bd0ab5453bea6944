/**
 * The Judge client: retries and backoff, cancellation and timeouts, `n` samples, adapting to
 * refused parameters, JSON repair, the response cache and key scrubbing. Pure logic runs on an
 * injected fetch; anything about sockets (cancel in flight, concurrency) on the loopback fake.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cacheKeyFor, MemoryResponseCache } from '../../../src/lib/llm/cache.ts';
import { currentTraits } from '../../../src/lib/llm/capabilities.ts';
import { backoffDelay, createJudge, defaultSleep } from '../../../src/lib/llm/client.ts';
import { ConcurrencyLimiter } from '../../../src/lib/llm/limiter.ts';
import type { JudgeRequest, ProviderConfig } from '../../../src/lib/llm/types.ts';
import {
  anthropicSuccess,
  fakeError,
  geminiSuccess,
  openaiSuccess,
  startFakeLlm,
  textReply,
  type FakeLlm,
} from '../../helpers/fake-llm.ts';
import {
  fixture,
  KEYS,
  recordingSleep,
  rejection,
  resetLlmState,
  scriptedFetch,
} from './_support.ts';

const OPENAI: ProviderConfig = { kind: 'openai', model: 'gpt-4.1-mini', apiKey: KEYS.openai };
const ANTHROPIC: ProviderConfig = {
  kind: 'anthropic',
  model: 'claude-haiku-4-5',
  apiKey: KEYS.anthropic,
};
const GEMINI: ProviderConfig = { kind: 'gemini', model: 'gemini-2.0-flash', apiKey: KEYS.gemini };
const ASK: JudgeRequest = { messages: [{ role: 'user', content: 'Score this.' }] };
const Verdict = z.object({ reasoning: z.string(), score: z.number().int().min(1).max(5) });

beforeEach(resetLlmState);

describe('retries', () => {
  it('waits as long as the body says ("try again in 0.05s"), then succeeds', async () => {
    const { fetch, calls } = scriptedFetch([
      fakeError('openai', 'rate-limit') as never,
      { body: openaiSuccess({ text: '4' }) },
    ]);
    const { sleep, delays } = recordingSleep();
    const res = await createJudge(OPENAI, { fetch, sleep }).complete(ASK);
    expect(res.choices[0].text).toBe('4');
    expect(delays).toEqual([50]);
    expect(calls).toHaveLength(2);
    expect(res.calls).toBe(2);
  });

  it('uses Gemini RetryInfo', async () => {
    const { fetch } = scriptedFetch([
      fakeError('gemini', 'rate-limit') as never,
      { body: geminiSuccess() },
    ]);
    const { sleep, delays } = recordingSleep();
    await createJudge(GEMINI, { fetch, sleep }).complete(ASK);
    expect(delays).toEqual([36_200]);
  });

  it('fails at once when the server asks for more than 120 s', async () => {
    const { fetch, calls } = scriptedFetch([fixture('openai-errors.json').azure_429_day]);
    const { sleep, delays } = recordingSleep();
    const err = await rejection(createJudge(OPENAI, { fetch, sleep }).complete(ASK));
    expect(err.kind).toBe('rate-limit');
    expect(err.message).toMatch(/asks to wait 86400 s/);
    expect(delays).toEqual([]);
    expect(calls).toHaveLength(1);
  });

  it('backs off exponentially with full jitter when there is no hint', async () => {
    const { fetch, calls } = scriptedFetch([
      fakeError('openai', 'server') as never,
      fakeError('openai', 'overloaded') as never,
      { body: openaiSuccess() },
    ]);
    const { sleep, delays } = recordingSleep();
    await createJudge(OPENAI, { fetch, sleep, random: () => 0.5 }).complete(ASK);
    expect(delays).toEqual([500, 1000]);
    expect(calls).toHaveLength(3);
    expect(backoffDelay(10, () => 1)).toBe(30_000);
  });

  it('uses a larger base for Anthropic 529 overloaded', async () => {
    const { fetch } = scriptedFetch([
      fakeError('anthropic', 'overloaded') as never,
      { body: anthropicSuccess() },
    ]);
    const { sleep, delays } = recordingSleep();
    await createJudge(ANTHROPIC, { fetch, sleep, random: () => 0.5 }).complete(ASK);
    expect(delays).toEqual([1500]);
  });

  it('gives up after maxAttempts and says so', async () => {
    const { fetch, calls } = scriptedFetch([fakeError('anthropic', 'server') as never]);
    const { sleep } = recordingSleep();
    const err = await rejection(
      createJudge(ANTHROPIC, { fetch, sleep, maxAttempts: 3 }).complete(ASK),
    );
    expect(err.kind).toBe('server');
    expect(err.message).toMatch(/Gave up after 3 attempts/);
    expect(calls).toHaveLength(3);
  });

  it.each([
    ['openai', 'quota', 'quota'],
    ['anthropic', 'spend-limit', 'quota'],
    ['gemini', 'per-day-quota', 'quota'],
    ['openai', 'bad-key', 'auth'],
    ['gemini', 'bad-key', 'auth'],
    ['anthropic', 'forbidden', 'permission'],
    ['openai', 'model-not-found', 'model-not-found'],
    ['gemini', 'context-length', 'context-too-long'],
    ['openai', 'content-filter', 'content-filter'],
    ['anthropic', 'bad-request', 'bad-request'],
  ] as const)('never retries %s %s', async (wire, kind, expected) => {
    const config = wire === 'openai' ? OPENAI : wire === 'anthropic' ? ANTHROPIC : GEMINI;
    const { fetch, calls } = scriptedFetch([fakeError(wire, kind) as never]);
    const { sleep, delays } = recordingSleep();
    const err = await rejection(createJudge(config, { fetch, sleep }).complete(ASK));
    expect(err.kind).toBe(expected);
    expect(calls).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('retries a network error at most twice', async () => {
    const { fetch, calls } = scriptedFetch([{ throws: new TypeError('Failed to fetch') }]);
    const { sleep } = recordingSleep();
    const err = await rejection(createJudge(OPENAI, { fetch, sleep }).complete(ASK));
    expect(err.kind).toBe('network');
    expect(err.message).toMatch(/Could not reach OpenAI at api\.openai\.com/);
    expect(calls).toHaveLength(3);
  });

  it('names an unnamed server by its address once', async () => {
    const { fetch } = scriptedFetch([{ throws: new TypeError('Failed to fetch') }]);
    const { sleep } = recordingSleep();
    const config: ProviderConfig = {
      kind: 'openai-compatible',
      model: 'm',
      baseUrl: 'http://127.0.0.1:5999/v1',
    };
    const err = await rejection(createJudge(config, { fetch, sleep }).complete(ASK));
    expect(err.message).toMatch(/^Could not reach the server at 127\.0\.0\.1:5999\. /u);
    expect(err.message.split('127.0.0.1:5999')).toHaveLength(2);
  });

  it('stops a backoff sleep when the request is cancelled', async () => {
    const { fetch, calls } = scriptedFetch([fakeError('openai', 'server') as never]);
    const controller = new AbortController();
    const started = Date.now();
    const pending = createJudge(OPENAI, {
      fetch,
      sleep: defaultSleep,
      random: () => 0.99,
    }).complete({
      ...ASK,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 30);
    const err = await rejection(pending);
    expect(err.kind).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(900);
    expect(calls).toHaveLength(1);
  });

  it('turns a hung call into a timeout', async () => {
    const fetch = ((_url: unknown, init?: RequestInit) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () =>
          reject(new DOMException('aborted', 'AbortError')),
        );
      })) as typeof globalThis.fetch;
    const err = await rejection(createJudge(OPENAI, { fetch, timeoutMs: 30 }).complete(ASK));
    expect(err.kind).toBe('timeout');
  });

  it('reports a bad base URL on the first call, not when the judge is built', async () => {
    for (const baseUrl of [undefined, 'not a url']) {
      const judge = createJudge({ kind: 'openai-compatible', model: 'm', baseUrl });
      expect((await rejection(judge.complete(ASK))).kind).toBe('bad-request');
      expect((await rejection(judge.capabilities())).message).toMatch(/base URL/);
    }
  });

  it('refuses before any call without a key, and when already cancelled', async () => {
    const { fetch, calls } = scriptedFetch([{ body: openaiSuccess() }]);
    expect(
      (await rejection(createJudge({ ...OPENAI, apiKey: '' }, { fetch }).complete(ASK))).kind,
    ).toBe('auth');
    const controller = new AbortController();
    controller.abort();
    expect(
      (
        await rejection(
          createJudge(OPENAI, { fetch }).complete({ ...ASK, signal: controller.signal }),
        )
      ).kind,
    ).toBe('cancelled');
    expect(calls).toHaveLength(0);
  });
});

describe('answers that are not answers', () => {
  it('a refusal, a content filter, a thinking-eaten budget', async () => {
    const cases: Array<[ProviderConfig, unknown, string]> = [
      [OPENAI, fixture('openai-refusal.json').response, 'refusal'],
      [ANTHROPIC, fixture('anthropic-text.json').refusal, 'refusal'],
      [
        { ...GEMINI, model: 'gemini-2.5-flash' },
        fixture('gemini-json.json').safety,
        'content-filter',
      ],
      [
        { ...GEMINI, model: 'gemini-2.5-flash' },
        fixture('gemini-json.json').max_tokens_no_parts,
        'truncated',
      ],
      [
        { ...GEMINI, model: 'gemini-2.5-flash' },
        fixture('gemini-json.json').prompt_blocked,
        'content-filter',
      ],
      [OPENAI, openaiSuccess({ text: '' }), 'malformed-output'],
    ];
    for (const [config, body, kind] of cases) {
      const { fetch } = scriptedFetch([{ body }]);
      const err = await rejection(createJudge(config, { fetch }).complete(ASK));
      expect(err.kind, JSON.stringify(body).slice(0, 80)).toBe(kind);
    }
  });

  it('keeps a cut-off sample that has text (a 1-token G-Eval answer ends with "length")', async () => {
    const { fetch } = scriptedFetch([
      { body: openaiSuccess({ text: '4', finishReason: 'length' }) },
    ]);
    const res = await createJudge(OPENAI, { fetch }).complete({ ...ASK, maxTokens: 1 });
    expect(res.choices[0]).toMatchObject({ text: '4', finishReason: 'length' });
  });
});

describe('capabilities decide the request', () => {
  it('clamps top_logprobs and leaves logprobs out where the table says none', async () => {
    const { fetch, calls } = scriptedFetch([{ body: openaiSuccess() }]);
    await createJudge(OPENAI, { fetch }).complete({ ...ASK, topLogprobs: 50 });
    expect(calls[0].body).toMatchObject({ logprobs: true, top_logprobs: 20 });
    const o3 = scriptedFetch([{ body: openaiSuccess() }]);
    await createJudge({ ...OPENAI, model: 'o3-mini' }, { fetch: o3.fetch }).complete({
      ...ASK,
      topLogprobs: 5,
      temperature: 0,
    });
    expect(o3.calls[0].body).not.toHaveProperty('logprobs');
    // Reasoning models only take their default temperature.
    expect(o3.calls[0].body).not.toHaveProperty('temperature');
  });

  it('drops logprobs after a 403 and remembers it', async () => {
    const { fetch, calls } = scriptedFetch((call) =>
      call.body.logprobs
        ? (fakeError('openai', 'logprobs-forbidden') as never)
        : { body: openaiSuccess() },
    );
    const judge = createJudge({ ...OPENAI, model: 'gpt-4o' }, { fetch });
    const res = await judge.complete({ ...ASK, topLogprobs: 20 });
    expect(res.choices[0].logprobs).toBeUndefined();
    expect(res.calls).toBe(2);
    await judge.complete({ ...ASK, topLogprobs: 20 });
    expect(calls.map((c) => !!c.body.logprobs)).toEqual([true, false, false]);
    expect((await judge.capabilities()).logprobs).toBe(false);
  });

  it('steps top_logprobs down 20 → 5 on a range error', async () => {
    const range = fixture('openai-errors.json').ollama_top_logprobs_range;
    const { fetch, calls } = scriptedFetch((call) =>
      call.body.top_logprobs > 5 ? range : { body: openaiSuccess() },
    );
    await createJudge(OPENAI, { fetch }).complete({ ...ASK, topLogprobs: 20 });
    expect(calls.map((c) => c.body.top_logprobs)).toEqual([20, 5]);
    expect(currentTraits(OPENAI).maxTopLogprobs).toBe(5);
  });

  it('resends without temperature when the model refuses it', async () => {
    const body = fixture('anthropic-errors.json').temperature_rejected;
    const { fetch, calls } = scriptedFetch((call) =>
      'temperature' in call.body ? body : { body: anthropicSuccess() },
    );
    await createJudge(ANTHROPIC, { fetch }).complete({ ...ASK, temperature: 0 });
    expect(calls.map((c) => c.body.temperature)).toEqual([0, undefined]);
  });

  it('falls back to JSON in the prompt when the server refuses json_schema', async () => {
    const groq: ProviderConfig = {
      kind: 'openai-compatible',
      model: 'llama-3.1-8b-instant',
      apiKey: KEYS.groq,
      baseUrl: 'https://api.groq.com/openai/v1',
    };
    const refused = fixture('openai-errors.json').groq_json_schema_400;
    const { fetch, calls } = scriptedFetch((call) =>
      call.body.response_format
        ? refused
        : { body: openaiSuccess({ text: 'Sure: {"reasoning": "ok", "score": 4}' }) },
    );
    const { value } = await createJudge(groq, { fetch }).completeJson({
      ...ASK,
      json: { name: 'verdict', schema: Verdict },
    });
    expect(value).toEqual({ reasoning: 'ok', score: 4 });
    expect(calls).toHaveLength(2);
    const prompt = calls[1].body.messages.at(-1).content as string;
    expect(prompt).toMatch(/^Score this\.\n\nAnswer with JSON only/);
    expect(prompt).toContain('"score"');
  });
});

describe('n samples', () => {
  it('asks once with n where the provider has it', async () => {
    const { fetch, calls } = scriptedFetch([{ body: openaiSuccess({ texts: ['3', '4', '4'] }) }]);
    const res = await createJudge(OPENAI, { fetch }).complete({ ...ASK, n: 3, temperature: 1 });
    expect(calls).toHaveLength(1);
    expect(calls[0].body.n).toBe(3);
    expect(res.choices.map((c) => c.text)).toEqual(['3', '4', '4']);
    expect(res.calls).toBe(1);
  });

  it('sends K calls to Anthropic and sums usage', async () => {
    const { fetch, calls } = scriptedFetch((_call, i) => ({
      body: anthropicSuccess({ text: String(i + 1), usage: { input: 10, output: 1 } }),
    }));
    const res = await createJudge(ANTHROPIC, { fetch }).complete({ ...ASK, n: 4, temperature: 1 });
    expect(calls).toHaveLength(4);
    expect(calls.every((c) => !('n' in c.body))).toBe(true);
    expect(res.choices.map((c) => c.text).sort()).toEqual(['1', '2', '3', '4']);
    expect(res.usage).toEqual({ input: 40, output: 4 });
    expect(res.calls).toBe(4);
  });

  it('tops up when a server ignores n, and stops sending it', async () => {
    const { fetch, calls } = scriptedFetch([{ body: openaiSuccess({ text: '4' }) }]);
    const judge = createJudge(OPENAI, { fetch });
    const res = await judge.complete({ ...ASK, n: 3 });
    expect(res.choices).toHaveLength(3);
    expect(calls.map((c) => c.body.n)).toEqual([3, undefined, undefined]);
    expect((await judge.capabilities()).n).toBe(false);
  });

  it('splits into single calls after "Multiple candidates is not enabled"', async () => {
    const refused = fixture('gemini-errors.json').candidates_not_enabled;
    const { fetch, calls } = scriptedFetch((call) =>
      call.body.generationConfig.candidateCount ? refused : { body: geminiSuccess() },
    );
    const res = await createJudge(GEMINI, { fetch }).complete({ ...ASK, n: 3 });
    expect(res.choices).toHaveLength(3);
    expect(calls).toHaveLength(4);
    expect(res.calls).toBe(4);
  });

  it('fails the whole request on the first hard error', async () => {
    const { fetch } = scriptedFetch((_call, i) =>
      i === 1 ? (fakeError('anthropic', 'bad-key') as never) : { body: anthropicSuccess() },
    );
    const err = await rejection(createJudge(ANTHROPIC, { fetch }).complete({ ...ASK, n: 3 }));
    expect(err.kind).toBe('auth');
  });
});

describe('completeJson', () => {
  const json = { name: 'verdict', schema: Verdict };

  it('uses each provider’s structured output', async () => {
    const seen: Record<string, unknown> = {};
    for (const config of [OPENAI, ANTHROPIC, GEMINI]) {
      const body =
        config.kind === 'anthropic'
          ? anthropicSuccess({ toolInput: { reasoning: 'r', score: 3 }, toolName: 'verdict' })
          : config.kind === 'gemini'
            ? geminiSuccess({ text: '{"reasoning":"r","score":3}' })
            : openaiSuccess({ text: JSON.stringify({ reasoning: 'r', score: 3 }) });
      const { fetch, calls } = scriptedFetch([{ body }]);
      const { value, response } = await createJudge(config, { fetch }).completeJson({
        ...ASK,
        json,
      });
      expect(value).toEqual({ reasoning: 'r', score: 3 });
      expect(response.calls).toBe(1);
      seen[config.kind] = calls[0].body;
    }
    expect(seen.openai).toMatchObject({
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'verdict',
          strict: true,
          schema: { additionalProperties: false, required: ['reasoning', 'score'] },
        },
      },
    });
    expect(seen.anthropic).toMatchObject({
      tool_choice: { type: 'tool', name: 'verdict' },
      tools: [{ name: 'verdict' }],
    });
    expect(seen.gemini).toMatchObject({
      generationConfig: {
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object' },
      },
    });
  });

  it('repairs locally before asking the model again', async () => {
    const { fetch, calls } = scriptedFetch([
      { body: openaiSuccess({ text: "```json\n{reasoning: 'ok', score: 5,}\n```" }) },
    ]);
    const { value } = await createJudge(OPENAI, { fetch }).completeJson({ ...ASK, json });
    expect(value).toEqual({ reasoning: 'ok', score: 5 });
    expect(calls).toHaveLength(1);
  });

  it('makes one repair call with the zod issues, then succeeds', async () => {
    const { fetch, calls } = scriptedFetch([
      {
        body: openaiSuccess({
          text: '{"reasoning": "ok", "score": "five"}',
          usage: { input: 10, output: 5 },
        }),
      },
      {
        body: openaiSuccess({
          text: '{"reasoning": "ok", "score": 5}',
          usage: { input: 20, output: 5 },
        }),
      },
    ]);
    const { value, response } = await createJudge(OPENAI, { fetch }).completeJson({ ...ASK, json });
    expect(value).toEqual({ reasoning: 'ok', score: 5 });
    expect(calls).toHaveLength(2);
    const repair = calls[1].body.messages;
    expect(repair.at(-2)).toEqual({
      role: 'assistant',
      content: '{"reasoning": "ok", "score": "five"}',
    });
    expect(repair.at(-1).content).toBe(
      'Your reply did not match the required JSON schema: score: expected number, received string. Reply with valid JSON only.\n' +
        'The schema:\n{"type":"object","properties":{"reasoning":{"type":"string"},"score":{"type":"integer","minimum":1,"maximum":5}},"required":["reasoning","score"]}',
    );
    expect(response.calls).toBe(2);
    expect(response.usage).toEqual({ input: 30, output: 10 });
    expect(response.choices[0].text).toBe('{"reasoning": "ok", "score": 5}');
  });

  it('fails with malformed-output after one failed repair', async () => {
    const { fetch, calls } = scriptedFetch([
      { body: openaiSuccess({ text: 'I rate it four out of five.' }) },
    ]);
    const err = await rejection(createJudge(OPENAI, { fetch }).completeJson({ ...ASK, json }));
    expect(err.kind).toBe('malformed-output');
    expect(err.message).toMatch(/even after one repair request: the reply contains no JSON/);
    expect(calls).toHaveLength(2);
  });

  it('never trusts JSON that was cut off', async () => {
    const { fetch, calls } = scriptedFetch([{ body: fixture('anthropic-text.json').max_tokens }]);
    const err = await rejection(createJudge(ANTHROPIC, { fetch }).completeJson({ ...ASK, json }));
    expect(err.kind).toBe('truncated');
    expect(calls).toHaveLength(1);
  });

  it('uses JSON mode plus the schema in the prompt for DeepSeek', async () => {
    const deepseek: ProviderConfig = {
      kind: 'openai-compatible',
      model: 'deepseek-chat',
      apiKey: 'sk-deepseek-0123456789',
      baseUrl: 'https://api.deepseek.com',
    };
    const { fetch, calls } = scriptedFetch([
      { body: fixture('deepseek-json-object.json').response },
    ]);
    const { value } = await createJudge(deepseek, { fetch }).completeJson({
      ...ASK,
      json: { name: 'v', schema: z.object({ reasoning: z.string(), score: z.number() }) },
    });
    expect(value).toEqual({ reasoning: 'ok', score: 3 });
    expect(calls[0].body.response_format).toEqual({ type: 'json_object' });
    expect(calls[0].body.messages[0].content).toMatch(/JSON Schema/);
  });
});

describe('response cache', () => {
  const request: JudgeRequest = { ...ASK, cacheKey: { case: 'c1', metric: 'geval', v: 1 } };

  it('answers a repeat with zero HTTP calls', async () => {
    const cache = new MemoryResponseCache();
    const { fetch, calls } = scriptedFetch([{ body: openaiSuccess({ text: '4' }) }]);
    const judge = createJudge(OPENAI, { fetch, cache });
    const first = await judge.complete(request);
    const second = await judge.complete({
      ...request,
      messages: [{ role: 'user', content: 'other nonce' }],
    });
    expect(first).toMatchObject({ calls: 1, fromCache: false });
    expect(second).toMatchObject({ calls: 0, fromCache: true, choices: first.choices });
    expect(calls).toHaveLength(1);
    // No cacheKey: no cache.
    await judge.complete(ASK);
    expect(calls).toHaveLength(2);
  });

  it('keys on provider, host, model and settings, never the API key', async () => {
    const a = await cacheKeyFor(OPENAI, request);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(await cacheKeyFor({ ...OPENAI, apiKey: 'sk-another-key-000000' }, request)).toBe(a);
    expect(await cacheKeyFor({ ...OPENAI, apiKey: undefined }, request)).toBe(a);
    expect(
      await cacheKeyFor(
        { ...OPENAI, concurrency: 1 },
        { ...request, cacheKey: { v: 1, metric: 'geval', case: 'c1' } },
      ),
    ).toBe(a);
    for (const other of [
      cacheKeyFor({ ...OPENAI, model: 'gpt-4o' }, request),
      cacheKeyFor({ ...OPENAI, baseUrl: 'https://proxy.example.com/v1' }, request),
      cacheKeyFor(OPENAI, { ...request, temperature: 1 }),
      cacheKeyFor(OPENAI, { ...request, n: 5 }),
      cacheKeyFor(OPENAI, { ...request, topLogprobs: 5 }),
      cacheKeyFor(OPENAI, { ...request, json: { name: 'x', schema: Verdict } }),
      cacheKeyFor(OPENAI, { ...request, cacheKey: { case: 'c2', metric: 'geval', v: 1 } }),
    ]) {
      expect(await other).not.toBe(a);
    }
  });

  it('stores only successes, and validates cached JSON again', async () => {
    const cache = new MemoryResponseCache();
    const failing = scriptedFetch([fakeError('openai', 'bad-key') as never]);
    await rejection(createJudge(OPENAI, { fetch: failing.fetch, cache }).complete(request));
    expect(cache.size).toBe(0);
    const { fetch, calls } = scriptedFetch([
      { body: openaiSuccess({ text: '{"reasoning":"r","score":2}' }) },
    ]);
    const judge = createJudge(OPENAI, { fetch, cache });
    const json = { name: 'verdict', schema: Verdict };
    await judge.completeJson({ ...request, json });
    const hit = await judge.completeJson({ ...request, json });
    expect(hit).toMatchObject({
      value: { reasoning: 'r', score: 2 },
      response: { fromCache: true, calls: 0 },
    });
    expect(calls).toHaveLength(1);
    const stored = await cache.get(await cacheKeyFor(OPENAI, { ...request, json }));
    expect(stored).toMatchObject({ fromCache: false, calls: 1 });
    expect(JSON.stringify(stored)).not.toContain(KEYS.openai);
  });
});

describe('keys never leak', () => {
  it('scrubs a key the server echoes, whatever its shape', async () => {
    for (const [config, key] of [
      [OPENAI, KEYS.openai],
      [
        {
          kind: 'openai-compatible',
          model: 'm',
          apiKey: KEYS.custom,
          baseUrl: 'http://localhost:8000/v1',
        },
        KEYS.custom,
      ],
      [
        {
          kind: 'openai-compatible',
          model: 'm',
          apiKey: KEYS.openrouter,
          baseUrl: 'https://openrouter.ai/api/v1',
        },
        KEYS.openrouter,
      ],
      [GEMINI, KEYS.gemini],
      [ANTHROPIC, KEYS.anthropic],
    ] as Array<[ProviderConfig, string]>) {
      const { fetch } = scriptedFetch([
        {
          status: 401,
          body: {
            error: {
              message: `Invalid key ${key} (also Bearer ${key})`,
              type: 'invalid_request_error',
            },
          },
        },
      ]);
      const err = await rejection(createJudge(config, { fetch }).complete(ASK));
      expect(err.message).not.toContain(key);
      expect(JSON.stringify(err)).not.toContain(key);
      expect(String(err)).not.toContain(key);
    }
  });

  it('scrubs keys from repair prompts echoed into malformed-output messages too', async () => {
    const { fetch } = scriptedFetch([
      { body: openaiSuccess({ text: `{"reasoning": "${KEYS.openai}", "score": 9}` }) },
    ]);
    const err = await rejection(
      createJudge(OPENAI, { fetch }).completeJson({ ...ASK, json: { name: 'v', schema: Verdict } }),
    );
    expect(err.message).not.toContain(KEYS.openai);
  });
});

describe('over loopback', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.reset();
    fake.setHandler((req) => ({ ...textReply(req, '7'), delayMs: 25 }));
  });

  it('keeps at most `concurrency` calls in flight per provider host', async () => {
    const judge = createJudge({ ...OPENAI, baseUrl: fake.url, concurrency: 2 });
    const results = await Promise.all(Array.from({ length: 8 }, () => judge.complete(ASK)));
    expect(results).toHaveLength(8);
    expect(fake.requests).toHaveLength(8);
    expect(fake.maxInFlight).toBe(2);
  });

  it('K samples share the limit too', async () => {
    const judge = createJudge({ ...ANTHROPIC, baseUrl: fake.url, concurrency: 3 });
    const res = await judge.complete({ ...ASK, n: 7 });
    expect(res.choices).toHaveLength(7);
    expect(fake.requests).toHaveLength(7);
    expect(fake.maxInFlight).toBe(3);
  });

  it('cancels a call in flight', async () => {
    fake.setHandler((req) => ({ ...textReply(req, '7'), delayMs: 5_000 }));
    const controller = new AbortController();
    const started = Date.now();
    const pending = createJudge({ ...GEMINI, baseUrl: fake.url }).complete({
      ...ASK,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    expect((await rejection(pending)).kind).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('retries a dropped connection, then succeeds', async () => {
    fake.script({ network: true });
    const { sleep } = recordingSleep();
    const res = await createJudge({ ...OPENAI, baseUrl: fake.url }, { sleep }).complete(ASK);
    expect(res.calls).toBe(2);
  });

  it('a 429 from the fake: body hint, then success', async () => {
    fake.script(fakeError('openai', 'rate-limit'));
    const { sleep, delays } = recordingSleep();
    const res = await createJudge({ ...OPENAI, baseUrl: fake.url }, { sleep }).complete(ASK);
    expect(delays).toEqual([50]);
    expect(res.choices[0].text).toBe('7');
  });
});

describe('ConcurrencyLimiter', () => {
  it('halves after a 429 and recovers slowly', async () => {
    const limiter = new ConcurrencyLimiter(4);
    limiter.onRateLimit();
    expect(limiter.limit).toBe(2);
    limiter.onRateLimit();
    limiter.onRateLimit();
    expect(limiter.limit).toBe(1);
    for (let i = 0; i < 3; i++) limiter.onSuccess();
    expect(limiter.limit).toBe(1);
    limiter.onSuccess();
    expect(limiter.limit).toBe(2);
    for (let i = 0; i < 100; i++) limiter.onSuccess();
    expect(limiter.limit).toBe(4);
  });

  it('lets a waiting caller give up', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ kind: 'cancelled' });
    release();
    expect(limiter.inFlight).toBe(0);
  });
});
