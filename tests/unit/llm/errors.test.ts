/**
 * The error table (PROVIDERS.md §13) against the providers' real error bodies: every LlmError
 * kind, the capability errors the client adapts to, and retry hints read from bodies.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { tableTraits } from '../../../src/lib/llm/capabilities.ts';
import {
  CapabilityError,
  parseDuration,
  retryHintFromHeaders,
  retryHintFromText,
  type CapabilityParam,
} from '../../../src/lib/llm/errors.ts';
import { adapterFor } from '../../../src/lib/llm/providers/index.ts';
import type { LlmError, LlmErrorKind, ProviderConfig } from '../../../src/lib/llm/types.ts';
import { fixture, resetLlmState } from './_support.ts';

const CONFIGS = {
  openai: { kind: 'openai', model: 'gpt-4.1-mini', apiKey: 'k' },
  anthropic: { kind: 'anthropic', model: 'claude-haiku-4-5', apiKey: 'k' },
  gemini: { kind: 'gemini', model: 'gemini-2.5-flash', apiKey: 'k' },
  openrouter: {
    kind: 'openai-compatible',
    model: 'openai/gpt-4o',
    baseUrl: 'https://openrouter.ai/api/v1',
  },
  groq: {
    kind: 'openai-compatible',
    model: 'llama-3.1-8b-instant',
    baseUrl: 'https://api.groq.com/openai/v1',
  },
  deepseek: {
    kind: 'openai-compatible',
    model: 'deepseek-chat',
    baseUrl: 'https://api.deepseek.com',
  },
  mistral: {
    kind: 'openai-compatible',
    model: 'mistral-small-latest',
    baseUrl: 'https://api.mistral.ai/v1',
  },
  ollama: { kind: 'openai-compatible', model: 'llama3.2', baseUrl: 'http://localhost:11434/v1' },
  llamacpp: { kind: 'openai-compatible', model: 'any', baseUrl: 'http://localhost:8080' },
} satisfies Record<string, ProviderConfig>;

function classify(
  name: keyof typeof CONFIGS,
  reply: { status: number; body: unknown },
  headers?: Headers,
): LlmError {
  const config: ProviderConfig = CONFIGS[name];
  const t = tableTraits(config);
  return adapterFor(config.kind).classifyError(
    reply.status,
    JSON.stringify(reply.body),
    { provider: config.kind, name: t.name, model: config.model, local: t.local },
    headers,
  );
}

beforeEach(resetLlmState);

describe('error classification', () => {
  const openai = fixture('openai-errors.json');
  const anthropic = fixture('anthropic-errors.json');
  const gemini = fixture('gemini-errors.json');

  const table: Array<
    [string, keyof typeof CONFIGS, { status: number; body: unknown }, LlmErrorKind]
  > = [
    ['OpenAI 401 invalid_api_key', 'openai', openai.invalid_api_key, 'auth'],
    ['OpenAI 404 model_not_found', 'openai', openai.model_not_found, 'model-not-found'],
    [
      'OpenAI 400 context_length_exceeded',
      'openai',
      openai.context_length_exceeded,
      'context-too-long',
    ],
    ['OpenAI 429 rate_limit_exceeded', 'openai', openai.rate_limit_exceeded, 'rate-limit'],
    ['OpenAI 429 insufficient_quota', 'openai', openai.insufficient_quota, 'quota'],
    ['OpenAI 500', 'openai', openai.server_error, 'server'],
    ['Azure 400 content_filter', 'openai', openai.azure_content_filter, 'content-filter'],
    ['Azure 429 retry after 60 seconds', 'openai', openai.azure_429, 'rate-limit'],
    ['OpenRouter 402', 'openrouter', openai.openrouter_402, 'quota'],
    ['OpenRouter 403 moderation', 'openrouter', openai.openrouter_403_moderation, 'content-filter'],
    ['Groq 429', 'groq', openai.groq_rate_limit, 'rate-limit'],
    ['DeepSeek 402 Insufficient Balance', 'deepseek', openai.deepseek_402, 'quota'],
    ['DeepSeek 503 overloaded', 'deepseek', openai.deepseek_503, 'server'],
    ['Mistral 422 validation', 'mistral', openai.mistral_422, 'capability'],
    ['Ollama 404 model not pulled', 'ollama', openai.ollama_model_not_found, 'model-not-found'],
    ['llama.cpp 503 loading', 'llamacpp', openai.llamacpp_loading, 'server'],
    ['llama.cpp context size', 'llamacpp', openai.llamacpp_context, 'context-too-long'],
    ['Anthropic 401', 'anthropic', anthropic.authentication_error, 'auth'],
    ['Anthropic 401 missing browser header', 'anthropic', anthropic.cors_header_missing, 'auth'],
    ['Anthropic org blocks browsers', 'anthropic', anthropic.cors_org_blocked, 'permission'],
    ['Anthropic 400 credit balance', 'anthropic', anthropic.credit_balance, 'quota'],
    ['Anthropic 402 billing', 'anthropic', anthropic.billing_error, 'quota'],
    ['Anthropic 403', 'anthropic', anthropic.permission_error, 'permission'],
    ['Anthropic 404 model', 'anthropic', anthropic.not_found_error, 'model-not-found'],
    ['Anthropic 413', 'anthropic', anthropic.request_too_large, 'context-too-long'],
    ['Anthropic 400 prompt too long', 'anthropic', anthropic.prompt_too_long, 'context-too-long'],
    ['Anthropic 429', 'anthropic', anthropic.rate_limit_error, 'rate-limit'],
    ['Anthropic 429 spend limit', 'anthropic', anthropic.spend_limit, 'quota'],
    ['Anthropic 500', 'anthropic', anthropic.api_error, 'server'],
    ['Anthropic 529 overloaded', 'anthropic', anthropic.overloaded_error, 'server'],
    ['Gemini 400 API_KEY_INVALID', 'gemini', gemini.api_key_invalid, 'auth'],
    ['Gemini 403 referrer blocked', 'gemini', gemini.permission_denied, 'permission'],
    ['Gemini 404', 'gemini', gemini.not_found, 'model-not-found'],
    ['Gemini 400 context', 'gemini', gemini.context_too_long, 'context-too-long'],
    ['Gemini 429 per minute', 'gemini', gemini.rate_limit_per_minute, 'rate-limit'],
    ['Gemini 429 per day', 'gemini', gemini.quota_per_day, 'quota'],
    ['Gemini 500', 'gemini', gemini.internal, 'server'],
    ['Gemini 503', 'gemini', gemini.unavailable, 'server'],
    ['Gemini 504', 'gemini', gemini.deadline, 'server'],
    [
      'Unknown 400',
      'openai',
      { status: 400, body: { error: { message: 'Invalid value' } } },
      'bad-request',
    ],
  ];

  it.each(table)('%s → %s', (_label, provider, reply, kind) => {
    const err = classify(provider, reply);
    expect(err.kind).toBe(kind);
    expect(err.status).toBe(reply.status);
    expect(err.message.length).toBeGreaterThan(20);
  });

  const capabilities: Array<
    [string, keyof typeof CONFIGS, { status: number; body: unknown }, CapabilityParam]
  > = [
    ['OpenAI 403 logprobs', 'openai', openai.logprobs_forbidden, 'logprobs'],
    ['OpenAI 400 logprobs param', 'openai', openai.logprobs_unsupported_400, 'logprobs'],
    ['OpenAI temperature', 'openai', openai.temperature_unsupported, 'temperature'],
    ['Groq logprobs', 'groq', openai.groq_logprobs_400, 'logprobs'],
    ['Groq n', 'groq', openai.groq_n_400, 'n'],
    ['Groq json_schema', 'groq', openai.groq_json_schema_400, 'json'],
    ['Ollama top_logprobs range', 'ollama', openai.ollama_top_logprobs_range, 'top_logprobs'],
    ['Anthropic temperature', 'anthropic', anthropic.temperature_rejected, 'temperature'],
    ['Gemini logprobs not enabled', 'gemini', gemini.logprobs_not_enabled, 'logprobs'],
    ['Gemini multiple candidates', 'gemini', gemini.candidates_not_enabled, 'n'],
  ];

  it.each(capabilities)('%s → capability %s', (_label, provider, reply, param) => {
    const err = classify(provider, reply);
    expect(err).toBeInstanceOf(CapabilityError);
    expect((err as CapabilityError).param).toBe(param);
  });

  it('says plain words, naming the provider and model', () => {
    expect(classify('openai', openai.invalid_api_key).message).toMatch(
      /^OpenAI rejected the API key/,
    );
    expect(classify('gemini', gemini.quota_per_day).message).toMatch(/daily quota/);
    expect(classify('anthropic', anthropic.not_found_error).message).toContain(
      '"claude-haiku-4-5"',
    );
    expect(classify('ollama', { status: 403, body: '' }).message).toMatch(/OLLAMA_ORIGINS/);
  });

  it('takes retry hints from the body: OpenAI, Azure, Gemini RetryInfo (fractional)', () => {
    expect(classify('openai', openai.rate_limit_exceeded).retryAfterMs).toBe(1200);
    expect(classify('openai', openai.azure_429).retryAfterMs).toBe(60_000);
    expect(classify('groq', openai.groq_rate_limit).retryAfterMs).toBe(179_560);
    expect(classify('gemini', gemini.rate_limit_per_minute).retryAfterMs).toBe(36_000);
    expect(classify('gemini', gemini.rate_limit_fractional).retryAfterMs).toBe(45_838);
  });

  it('prefers readable headers: retry-after-ms, retry-after seconds or date', () => {
    const body = anthropic.rate_limit_error;
    expect(classify('anthropic', body, new Headers({ 'retry-after': '3' })).retryAfterMs).toBe(
      3000,
    );
    expect(classify('anthropic', body, new Headers({ 'retry-after-ms': '250' })).retryAfterMs).toBe(
      250,
    );
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(
      retryHintFromHeaders(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now),
    ).toBe(5000);
    expect(retryHintFromHeaders(new Headers())).toBeUndefined();
  });
});

describe('durations and hints', () => {
  it.each([
    ['1.2s', 1200],
    ['20ms', 20],
    ['172.799999ms', 172.799999],
    ['6m0s', 360_000],
    ['2m59.56s', 179_560],
    ['45.837906927s', 45_838],
    ['1h2m3s', 3_723_000],
  ])('parseDuration(%s) = %d', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 3);
  });

  it('finds hints in prose, or none', () => {
    expect(retryHintFromText('Please try again in 0.05s. Visit')).toBe(50);
    expect(retryHintFromText('Please retry in 36.2s.')).toBe(36_200);
    expect(retryHintFromText('Please retry after 86400 seconds.')).toBe(86_400_000);
    expect(retryHintFromText('try again in a few minutes')).toBeUndefined();
    expect(parseDuration('soon')).toBeUndefined();
  });
});
