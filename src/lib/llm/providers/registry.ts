/**
 * One record per provider kind (issue 13): the settings' labels, default base URLs and models,
 * the CSP's connect-src hosts (hosts.ts), the key shapes redaction removes (redact.ts), the seed
 * prices (prices.ts), the key-storage ids "Forget all keys" clears (state/provider-keys.ts), which
 * settings the CLI requires (cli/llm-env.ts), the adapter, structured-output and embedding support.
 * Every one of those lists is built from this table, so adding a provider is a kind in
 * PROVIDER_KINDS (types.ts), a record here and its adapter module; the type makes the table
 * complete for every kind.
 *
 * Seed prices: shared PROVIDERS.md §14 (deepeval's model table of Aug 2026 and pricing summaries;
 * the Groq and Mistral rows are marked unverified there). Re-check against the official pages.
 */
import { PROVIDER_KINDS, type ProviderKind } from '../types.ts';
import { ANTHROPIC_BASE_URL, anthropicAdapter } from './anthropic.ts';
import { geminiEmbeddings, openAiEmbeddings } from './embeddings.ts';
import { GEMINI_BASE_URL, geminiAdapter } from './gemini.ts';
import { OPENAI_BASE_URL, openaiAdapter } from './openai.ts';
import { openaiCompatibleAdapter } from './openai-compatible.ts';
import type { ProviderRecord } from './record.ts';

/** Ollama's default; LM Studio :1234, llama.cpp :8080, vLLM :8000 are on loopback too. */
const LOCAL_BASE_URL = 'http://127.0.0.1:11434';

export const PROVIDERS = {
  openai: {
    label: 'OpenAI',
    name: 'OpenAI',
    defaultBaseUrl: OPENAI_BASE_URL,
    baseUrlRequired: false,
    keyRequired: true,
    defaultModel: 'gpt-4o-mini',
    hosts: [
      { id: 'openai', name: 'OpenAI', baseUrl: OPENAI_BASE_URL, connectSrc: [OPENAI_BASE_URL] },
    ],
    // sk- + 48 alphanumerics (legacy user keys); project, service-account, admin and older keys.
    keyShapes: [
      { kind: 'prefixed', prefix: 'sk-proj-' },
      { kind: 'prefixed', prefix: 'sk-svcacct-' },
      { kind: 'prefixed', prefix: 'sk-admin-' },
      { kind: 'prefixed', prefix: 'sk-None-' },
      { kind: 'random', prefix: 'sk-', chars: 'key', minLength: 20 },
    ],
    adapter: openaiAdapter,
    jsonSchema: 'strict-object',
    embeddings: openAiEmbeddings('text-embedding-3-small'),
    prices: [
      { model: 'gpt-4o-mini', inputPerMTok: 0.15, outputPerMTok: 0.6 },
      { model: 'gpt-4.1-mini', inputPerMTok: 0.4, outputPerMTok: 1.6 },
      { model: 'gpt-4.1-nano', inputPerMTok: 0.1, outputPerMTok: 0.4 },
      {
        model: 'gpt-5.4-mini',
        inputPerMTok: 0.75,
        outputPerMTok: 4.5,
        note: 'no logprobs: G-Eval samples',
      },
    ],
    keyStorageId: 'openai',
  },
  anthropic: {
    label: 'Anthropic',
    name: 'Anthropic',
    defaultBaseUrl: ANTHROPIC_BASE_URL,
    baseUrlRequired: false,
    keyRequired: true,
    defaultModel: 'claude-haiku-4-5',
    hosts: [
      {
        id: 'anthropic',
        name: 'Anthropic',
        baseUrl: ANTHROPIC_BASE_URL,
        connectSrc: [ANTHROPIC_BASE_URL],
      },
    ],
    // sk-ant-api03-… (API keys) and sk-ant-admin01-… (admin keys).
    keyShapes: [{ kind: 'prefixed', prefix: 'sk-ant-' }],
    adapter: anthropicAdapter,
    jsonSchema: 'object',
    embeddings: undefined,
    prices: [{ model: 'claude-haiku-4-5', inputPerMTok: 1, outputPerMTok: 5 }],
    keyStorageId: 'anthropic',
  },
  gemini: {
    label: 'Google Gemini',
    name: 'Google Gemini',
    defaultBaseUrl: GEMINI_BASE_URL,
    baseUrlRequired: false,
    keyRequired: true,
    defaultModel: 'gemini-2.0-flash',
    hosts: [
      {
        id: 'gemini',
        name: 'Google Gemini',
        baseUrl: GEMINI_BASE_URL,
        connectSrc: [GEMINI_BASE_URL],
      },
    ],
    // Google API keys: AIza + exactly 35 of [0-9A-Za-z_-].
    keyShapes: [{ kind: 'fixed', prefix: 'AIza', length: 35 }],
    adapter: geminiAdapter,
    jsonSchema: 'any',
    embeddings: geminiEmbeddings('text-embedding-004'),
    prices: [
      {
        model: 'gemini-2.5-flash',
        inputPerMTok: 0.3,
        outputPerMTok: 2.5,
        note: 'thinking tokens are billed as output',
      },
      { model: 'gemini-2.5-flash-lite', inputPerMTok: 0.1, outputPerMTok: 0.4 },
      { model: 'gemini-3.1-flash-lite', inputPerMTok: 0.25, outputPerMTok: 1.5 },
    ],
    keyStorageId: 'gemini',
  },
  'openai-compatible': {
    label: 'OpenAI-compatible (Ollama, LM Studio, vLLM, OpenRouter, Groq…)',
    name: 'an OpenAI-compatible server',
    defaultBaseUrl: LOCAL_BASE_URL,
    baseUrlRequired: true,
    keyRequired: false,
    defaultModel: 'llama3.1',
    // The compatible servers by their usual base URLs (capabilities.ts tells them apart).
    hosts: [
      {
        // https://{resource}.openai.azure.com/openai/v1; newer Foundry resources use the other two.
        id: 'azure',
        name: 'Azure OpenAI',
        connectSrc: [
          'https://*.openai.azure.com',
          'https://*.cognitiveservices.azure.com',
          'https://*.services.ai.azure.com',
        ],
      },
      {
        id: 'openrouter',
        name: 'OpenRouter',
        baseUrl: 'https://openrouter.ai/api',
        connectSrc: ['https://openrouter.ai'],
      },
      {
        id: 'groq',
        name: 'Groq',
        baseUrl: 'https://api.groq.com/openai',
        connectSrc: ['https://api.groq.com'],
      },
      {
        id: 'mistral',
        name: 'Mistral',
        baseUrl: 'https://api.mistral.ai',
        connectSrc: ['https://api.mistral.ai'],
      },
      {
        id: 'deepseek',
        name: 'DeepSeek',
        baseUrl: 'https://api.deepseek.com',
        connectSrc: ['https://api.deepseek.com'],
      },
      {
        id: 'local',
        name: 'a server on this machine (Ollama, LM Studio, llama.cpp, vLLM)',
        baseUrl: LOCAL_BASE_URL,
        connectSrc: ['http://127.0.0.1:*', 'http://localhost:*'],
      },
    ],
    // OpenRouter sk-or-v1- + 64 hex, Groq gsk_ + 52 alphanumerics, Azure AD bearer tokens (JWTs).
    keyShapes: [
      { kind: 'prefixed', prefix: 'sk-or-v1-' },
      { kind: 'random', prefix: 'gsk_', chars: 'alphanumeric', minLength: 20 },
      { kind: 'jwt' },
    ],
    adapter: openaiCompatibleAdapter,
    jsonSchema: 'strict-object',
    embeddings: openAiEmbeddings('nomic-embed-text'),
    prices: [
      {
        model: 'deepseek-chat',
        inputPerMTok: 0.28,
        outputPerMTok: 0.42,
        cachedInputPerMTok: 0.028,
        note: 'unverified',
      },
      {
        model: 'llama-3.1-8b-instant',
        inputPerMTok: 0.05,
        outputPerMTok: 0.08,
        note: 'Groq; unverified',
      },
      { model: 'mistral-small', inputPerMTok: 0.1, outputPerMTok: 0.3, note: 'unverified' },
    ],
    keyStorageId: 'openai-compatible',
  },
} satisfies Record<ProviderKind, ProviderRecord>;

/** The record of one kind, typed as the general record (the table's literal types are narrower). */
export function providerRecord(kind: ProviderKind): ProviderRecord {
  return PROVIDERS[kind];
}

/** Every record with its kind, in PROVIDER_KINDS order. */
export function providerRecords(): Array<[ProviderKind, ProviderRecord]> {
  return PROVIDER_KINDS.map((kind) => [kind, PROVIDERS[kind]]);
}

/** One value per kind, taken from its record: the lists the settings and the CLI show. */
export function byKind<T>(
  pick: (record: ProviderRecord, kind: ProviderKind) => T,
): Record<ProviderKind, T> {
  // Built from PROVIDER_KINDS itself, so every kind is a key; fromEntries cannot say so.
  return Object.fromEntries(
    providerRecords().map(([kind, record]) => [kind, pick(record, kind)]),
  ) as Record<ProviderKind, T>;
}
