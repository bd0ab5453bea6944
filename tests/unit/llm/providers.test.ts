/**
 * Each wire format against recorded-style fixtures (PROVIDERS.md shapes): the request we build for
 * a call equals the documented body, and the documented answers read back as choices, finish
 * reasons, normalised logprobs and usage.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { tableTraits } from '../../../src/lib/llm/capabilities.ts';
import type { ErrorContext } from '../../../src/lib/llm/errors.ts';
import { anthropicAdapter } from '../../../src/lib/llm/providers/anthropic.ts';
import { geminiAdapter, thinkingPlan } from '../../../src/lib/llm/providers/gemini.ts';
import { openaiAdapter } from '../../../src/lib/llm/providers/openai.ts';
import { openaiCompatibleAdapter } from '../../../src/lib/llm/providers/openai-compatible.ts';
import type { WireCall } from '../../../src/lib/llm/providers/shared.ts';
import { LlmError, type ProviderConfig } from '../../../src/lib/llm/types.ts';
import { fixture, KEYS, resetLlmState } from './_support.ts';

const SYS = 'You are an evaluator. Output only an integer score 1-5.';
const USER = '<rubric>...</rubric>\n<candidate id="c_7f3a">...</candidate>\nScore:';

function ctx(config: ProviderConfig): ErrorContext {
  const t = tableTraits(config);
  return { provider: config.kind, name: t.name, model: config.model, local: t.local };
}

function caught(fn: () => unknown): LlmError {
  try {
    fn();
  } catch (e) {
    if (e instanceof LlmError) return e;
    throw e;
  }
  throw new Error('expected an LlmError');
}

beforeEach(resetLlmState);

describe('OpenAI Chat Completions', () => {
  const config: ProviderConfig = { kind: 'openai', model: 'gpt-4.1-mini', apiKey: KEYS.openai };

  it('builds the G-Eval logprob request of §2.2', () => {
    const f = fixture('openai-geval-logprobs.json');
    const call: WireCall = {
      messages: [
        { role: 'system', content: SYS },
        { role: 'user', content: USER },
      ],
      temperature: 0,
      maxTokens: 2,
      n: 1,
      topLogprobs: 20,
    };
    const req = openaiAdapter.buildRequest(call, config, tableTraits(config));
    expect(req.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(req.headers).toEqual({
      'content-type': 'application/json',
      authorization: `Bearer ${KEYS.openai}`,
    });
    expect(req.body).toEqual(f.request);
  });

  it('reads tokens, top logprobs (-9999 included) and usage', () => {
    const f = fixture('openai-geval-logprobs.json');
    const parsed = openaiAdapter.parseResponse(f.response, { messages: [], n: 1 }, ctx(config));
    expect(parsed.model).toBe('gpt-4.1-mini-2025-04-14');
    expect(parsed.usage).toEqual({ input: 412, output: 1 });
    const [choice] = parsed.choices;
    expect(choice.text).toBe('4');
    expect(choice.finishReason).toBe('stop');
    expect(choice.logprobs).toHaveLength(2);
    expect(choice.logprobs![0]).toEqual({
      token: '4',
      logprob: -0.21,
      top: [
        { token: '4', logprob: -0.21 },
        { token: '3', logprob: -1.87 },
        { token: '5', logprob: -3.02 },
        { token: '2', logprob: -7.9 },
      ],
    });
    expect(choice.logprobs![1]).toEqual({ token: '<|end|>', logprob: -9999, top: [] });
  });

  it('builds the strict json_schema request of §2.4 and reads the JSON string back', () => {
    const f = fixture('openai-json-schema.json');
    const schema = f.request.response_format.json_schema.schema;
    const req = openaiAdapter.buildRequest(
      {
        messages: f.request.messages,
        temperature: 0,
        n: 1,
        json: { name: 'judge_verdict', mode: 'schema', schema, strict: true },
      },
      config,
      tableTraits(config),
    );
    expect(req.body).toEqual(f.request);
    const parsed = openaiAdapter.parseResponse(f.response, { messages: [], n: 1 }, ctx(config));
    expect(JSON.parse(parsed.choices[0].text)).toEqual({
      reasoning: 'Covers the main points.',
      score: 4,
      injection_suspected: false,
    });
    expect(parsed.usage).toEqual({ input: 380, output: 21, cachedInput: 128 });
  });

  it('sends n and orders choices by index', () => {
    const f = fixture('openai-n3.json');
    const cfg: ProviderConfig = { ...config, model: 'gpt-4o-mini' };
    const req = openaiAdapter.buildRequest(
      { messages: f.request.messages, temperature: 1, maxTokens: 1, n: 3 },
      cfg,
      tableTraits(cfg),
    );
    expect(req.body).toEqual(f.request);
    const parsed = openaiAdapter.parseResponse(f.response, { messages: [], n: 3 }, ctx(cfg));
    expect(parsed.choices.map((c) => [c.text, c.finishReason])).toEqual([
      ['4', 'length'],
      ['3', 'length'],
      ['4', 'length'],
    ]);
  });

  it('reads a refusal field as a refusal', () => {
    const parsed = openaiAdapter.parseResponse(
      fixture('openai-refusal.json').response,
      { messages: [], n: 1 },
      ctx(config),
    );
    expect(parsed.choices[0]).toEqual({ text: "I can't help with that", finishReason: 'refusal' });
  });

  it('honours a base URL with or without /v1', () => {
    for (const baseUrl of ['http://127.0.0.1:9/v1', 'http://127.0.0.1:9/', 'http://127.0.0.1:9']) {
      const cfg = { ...config, baseUrl };
      expect(openaiAdapter.buildRequest({ messages: [], n: 1 }, cfg, tableTraits(cfg)).url).toBe(
        'http://127.0.0.1:9/v1/chat/completions',
      );
    }
  });
});

describe('OpenAI-compatible servers', () => {
  it('uses max_tokens, omits Authorization without a key, strips inline thinking', () => {
    const config: ProviderConfig = {
      kind: 'openai-compatible',
      model: 'qwen3:8b',
      baseUrl: 'http://localhost:11434/v1',
    };
    const req = openaiCompatibleAdapter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }], temperature: 0, maxTokens: 5, n: 1 },
      config,
      tableTraits(config),
    );
    expect(req.url).toBe('http://localhost:11434/v1/chat/completions');
    expect(req.headers).toEqual({ 'content-type': 'application/json' });
    expect(req.body).toMatchObject({ max_tokens: 5 });
    expect(req.body).not.toHaveProperty('max_completion_tokens');
    const parsed = openaiCompatibleAdapter.parseResponse(
      {
        choices: [
          { index: 0, message: { content: '<think>hmm</think>\n{"a":1}' }, finish_reason: 'stop' },
        ],
      },
      { messages: [], n: 1 },
      ctx(config),
    );
    expect(parsed.choices[0].text).toBe('{"a":1}');
  });

  it("reads Ollama's logprobs (no refusal key, no bytes), keeping ▁/Ġ as spaces", () => {
    const config: ProviderConfig = {
      kind: 'openai-compatible',
      model: 'llama3.2',
      baseUrl: 'http://localhost:11434',
    };
    const parsed = openaiCompatibleAdapter.parseResponse(
      fixture('ollama-logprobs.json').response,
      { messages: [], n: 1 },
      ctx(config),
    );
    expect(parsed.choices[0].text).toBe(' 4');
    expect(parsed.choices[0].logprobs![0].top.map((t) => t.token)).toEqual([
      ' 4',
      ' 3',
      ' 5',
      ' 2',
    ]);
  });

  it('sends the key as Bearer and require_parameters to OpenRouter', () => {
    const config: ProviderConfig = {
      kind: 'openai-compatible',
      model: 'openai/gpt-4o-mini',
      apiKey: KEYS.openrouter,
      baseUrl: 'https://openrouter.ai/api/v1',
    };
    const req = openaiCompatibleAdapter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }], n: 1, topLogprobs: 5 },
      config,
      tableTraits(config),
    );
    expect(req.url).toBe('https://openrouter.ai/api/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${KEYS.openrouter}`);
    expect(req.body).toMatchObject({
      logprobs: true,
      top_logprobs: 5,
      provider: { require_parameters: true },
    });
  });

  it('uses json_object for DeepSeek and reads cache-hit usage', () => {
    const config: ProviderConfig = {
      kind: 'openai-compatible',
      model: 'deepseek-chat',
      apiKey: 'sk-deepseek0000000000',
      baseUrl: 'https://api.deepseek.com',
    };
    const req = openaiCompatibleAdapter.buildRequest(
      {
        messages: [{ role: 'user', content: 'json please' }],
        n: 1,
        json: { name: 'v', mode: 'object', schema: { type: 'object' }, strict: false },
      },
      config,
      tableTraits(config),
    );
    expect((req.body as Record<string, unknown>).response_format).toEqual({ type: 'json_object' });
    const parsed = openaiCompatibleAdapter.parseResponse(
      fixture('deepseek-json-object.json').response,
      { messages: [], n: 1 },
      ctx(config),
    );
    expect(parsed.usage).toEqual({ input: 120, output: 15, cachedInput: 64 });
  });

  it("throws on Mistral's finish_reason error and OpenRouter's HTTP-200 error body", () => {
    const mistral: ProviderConfig = {
      kind: 'openai-compatible',
      model: 'mistral-small-latest',
      baseUrl: 'https://api.mistral.ai/v1',
    };
    expect(
      caught(() =>
        openaiCompatibleAdapter.parseResponse(
          fixture('mistral-finish-error.json').response,
          { messages: [], n: 1 },
          ctx(mistral),
        ),
      ).kind,
    ).toBe('server');
    const or: ProviderConfig = {
      kind: 'openai-compatible',
      model: 'openai/gpt-4o-mini',
      baseUrl: 'https://openrouter.ai/api/v1',
    };
    const err = caught(() =>
      openaiCompatibleAdapter.parseResponse(
        fixture('openai-errors.json').openrouter_200_error.body,
        { messages: [], n: 1 },
        ctx(or),
      ),
    );
    expect(err.kind).toBe('rate-limit');
    expect(err.message).toContain('OpenRouter');
  });
});

describe('Anthropic Messages', () => {
  const config: ProviderConfig = {
    kind: 'anthropic',
    model: 'claude-haiku-4-5',
    apiKey: KEYS.anthropic,
  };

  it('builds the forced-tool request of §5.4 with the browser headers', () => {
    const f = fixture('anthropic-tool.json');
    const req = anthropicAdapter.buildRequest(
      {
        messages: [
          { role: 'system', content: 'You are an evaluator.' },
          { role: 'user', content: '...' },
        ],
        maxTokens: 512,
        n: 1,
        json: {
          name: 'record_verdict',
          mode: 'schema',
          schema: f.request.tools[0].input_schema,
          strict: false,
        },
      },
      config,
      tableTraits(config),
    );
    expect(req.url).toBe('https://api.anthropic.com/v1/messages');
    expect(req.headers).toEqual({
      'content-type': 'application/json',
      'x-api-key': KEYS.anthropic,
      'anthropic-version': '2023-06-01',
      'anthropic-dangerous-direct-browser-access': 'true',
    });
    expect(req.body).toEqual(f.request);
  });

  it('always sends max_tokens, merges same-role turns, clamps temperature to 1', () => {
    const req = anthropicAdapter.buildRequest(
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
        temperature: 1.5,
        n: 1,
      },
      config,
      tableTraits(config),
    );
    expect(req.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 1024,
      temperature: 1,
      messages: [{ role: 'user', content: 'a\n\nb' }],
    });
  });

  it('reads the tool input as JSON text and counts cache tokens as input', () => {
    const f = fixture('anthropic-tool.json');
    const parsed = anthropicAdapter.parseResponse(
      f.response,
      {
        messages: [],
        n: 1,
        json: { name: 'record_verdict', mode: 'schema', schema: {}, strict: false },
      },
      ctx(config),
    );
    expect(JSON.parse(parsed.choices[0].text)).toEqual({
      reasoning: 'Faithful and complete.',
      score: 4,
    });
    expect(parsed.choices[0].finishReason).toBe('stop');
    expect(parsed.usage).toEqual({ input: 590, output: 42, cachedInput: 200 });
  });

  it('maps stop reasons: end_turn, refusal, max_tokens', () => {
    const f = fixture('anthropic-text.json');
    const read = (body: unknown) =>
      anthropicAdapter.parseResponse(body, { messages: [], n: 1 }, ctx(config)).choices[0];
    expect(read(f.response)).toEqual({ text: '4', finishReason: 'stop' });
    expect(read(f.refusal)).toEqual({ text: '', finishReason: 'refusal' });
    expect(read(f.max_tokens).finishReason).toBe('length');
  });
});

describe('Gemini generateContent', () => {
  const config: ProviderConfig = { kind: 'gemini', model: 'gemini-2.0-flash', apiKey: KEYS.gemini };

  it('builds the logprob request of §6.2 with the key in a header, never the URL', () => {
    const f = fixture('gemini-logprobs.json');
    const req = geminiAdapter.buildRequest(
      {
        messages: [
          { role: 'system', content: SYS },
          { role: 'user', content: '<rubric>...</rubric> ... Score:' },
        ],
        temperature: 0,
        maxTokens: 4,
        n: 1,
        topLogprobs: 5,
      },
      config,
      tableTraits(config),
    );
    expect(req.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent',
    );
    expect(req.url).not.toContain('key=');
    expect(req.headers).toEqual({
      'content-type': 'application/json',
      'x-goog-api-key': KEYS.gemini,
    });
    expect(req.body).toEqual(f.request);
  });

  it('zips chosen and top candidates into normalised logprobs', () => {
    const parsed = geminiAdapter.parseResponse(
      fixture('gemini-logprobs.json').response,
      { messages: [], n: 1 },
      ctx(config),
    );
    expect(parsed.choices[0]).toEqual({
      text: '4',
      finishReason: 'stop',
      logprobs: [
        {
          token: '4',
          logprob: -0.21,
          top: [
            { token: '4', logprob: -0.21 },
            { token: '3', logprob: -1.9 },
            { token: '5', logprob: -3.1 },
          ],
        },
      ],
    });
    expect(parsed.usage).toEqual({ input: 402, output: 1 });
  });

  it('builds the 2.5 Flash JSON request of §6.4 with thinking off; skips thought parts', () => {
    const f = fixture('gemini-json.json');
    const cfg: ProviderConfig = { ...config, model: 'gemini-2.5-flash' };
    const req = geminiAdapter.buildRequest(
      {
        messages: [
          { role: 'system', content: 'You are an evaluator.' },
          { role: 'user', content: '...' },
        ],
        temperature: 0,
        maxTokens: 256,
        n: 1,
        json: {
          name: 'v',
          mode: 'schema',
          schema: f.request.generationConfig.responseJsonSchema,
          strict: false,
        },
      },
      cfg,
      tableTraits(cfg),
    );
    expect(req.body).toEqual(f.request);
    const parsed = geminiAdapter.parseResponse(f.response, { messages: [], n: 1 }, ctx(cfg));
    expect(JSON.parse(parsed.choices[0].text)).toEqual({ reasoning: 'Faithful.', score: 5 });
    // Thinking tokens are billed as output.
    expect(parsed.usage).toEqual({ input: 300, output: 42, cachedInput: 100 });
  });

  it('maps MAX_TOKENS without parts, SAFETY, and a blocked prompt', () => {
    const f = fixture('gemini-json.json');
    const cfg: ProviderConfig = { ...config, model: 'gemini-2.5-flash' };
    const read = (body: unknown) =>
      geminiAdapter.parseResponse(body, { messages: [], n: 1 }, ctx(cfg));
    expect(read(f.max_tokens_no_parts).choices[0]).toEqual({ text: '', finishReason: 'length' });
    expect(read(f.safety).choices[0].finishReason).toBe('content_filter');
    expect(caught(() => read(f.prompt_blocked)).kind).toBe('content-filter');
  });

  it('sends candidateCount for n and bounds thinking per model generation', () => {
    const req = geminiAdapter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }], n: 4, maxTokens: 2 },
      config,
      tableTraits(config),
    );
    expect((req.body as { generationConfig: unknown }).generationConfig).toEqual({
      maxOutputTokens: 2,
      candidateCount: 4,
    });
    expect(thinkingPlan('gemini-2.5-flash-lite')).toEqual({
      config: { thinkingBudget: 0 },
      headroom: 0,
    });
    expect(thinkingPlan('gemini-2.5-pro')?.config).toEqual({ thinkingBudget: 128 });
    expect(thinkingPlan('gemini-2.0-flash')).toBeUndefined();
    const pro: ProviderConfig = { ...config, model: 'gemini-2.5-pro' };
    const proReq = geminiAdapter.buildRequest(
      { messages: [{ role: 'user', content: 'x' }], n: 1, maxTokens: 2 },
      pro,
      tableTraits(pro),
    );
    expect(
      (proReq.body as { generationConfig: { maxOutputTokens: number } }).generationConfig
        .maxOutputTokens,
    ).toBe(130);
  });
});
