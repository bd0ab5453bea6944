/**
 * The contract between the client and the four wire formats. The client decides *what* to ask
 * (after capability checks: a WireCall only carries parameters the model is believed to accept);
 * a provider module decides *how* it is spelled on the wire and how the answer reads back.
 */
import {
  classify,
  safeJson,
  type ErrorContext,
  type ErrorDetails,
  type ErrorHooks,
  wordedError,
} from '../errors.ts';
import type { JsonSchema } from '../json-schema.ts';
import {
  LlmError,
  type ChatMessage,
  type FinishReason,
  type JudgeChoice,
  type ProviderConfig,
  type TokenUsage,
} from '../types.ts';
import type { Traits } from '../capabilities.ts';

export interface WireJson {
  /** Sanitised to `[a-zA-Z0-9_-]{1,64}`. */
  name: string;
  /** 'schema': provider structured output; 'object': JSON mode without a schema (DeepSeek). */
  mode: 'schema' | 'object';
  schema: JsonSchema;
  /** OpenAI-style `strict: true` (the schema is then strict-compatible). */
  strict: boolean;
}

export interface WireCall {
  messages: ChatMessage[];
  /** Omitted from the body when undefined (models that only take their default). */
  temperature?: number;
  maxTokens?: number;
  /** Choices wanted from this one HTTP call (1 unless the provider has `n`). */
  n: number;
  /** Ask for logprobs with this many alternatives; undefined = don't ask. */
  topLogprobs?: number;
  json?: WireJson;
}

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface ParsedCompletion {
  choices: JudgeChoice[];
  usage: TokenUsage;
  /** The model version the server reports, when it does. */
  model?: string;
}

export interface ProviderAdapter {
  buildRequest(call: WireCall, config: ProviderConfig, traits: Traits): HttpRequest;
  /** Reads a 2xx body; throws LlmError for errors hidden in it (OpenRouter, blocked prompts). */
  parseResponse(body: unknown, call: WireCall, ctx: ErrorContext): ParsedCompletion;
  classifyError(status: number, bodyText: string, ctx: ErrorContext, headers?: Headers): LlmError;
}

/** `{base}` + path, tolerating a base that already ends in the version segment or slashes. */
export function joinUrl(base: string, versionSegment: string, rest: string): string {
  let b = base.trim().replace(/\/+$/, '');
  if (b.endsWith(`/${versionSegment}`)) b = b.slice(0, -versionSegment.length - 1);
  return `${b}/${versionSegment}/${rest.replace(/^\/+/, '')}`;
}

export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function systemText(messages: ChatMessage[]): string | undefined {
  const parts = messages.filter((m) => m.role === 'system').map((m) => m.content);
  return parts.length ? parts.join('\n\n') : undefined;
}

/** The configured base URL of a provider that has no default one (the compatible servers). */
export function requiredBaseUrl(config: ProviderConfig): string {
  if (config.baseUrl) return config.baseUrl;
  throw wordedError('bad-request', 'llm.error.needsBaseUrl', undefined, { provider: config.kind });
}

/**
 * Our finish reasons, each with the words a provider uses for it. The providers disagree on the
 * words (and on what a missing one means), not on how they are read: one reader below.
 */
export type FinishWords = ReadonlyArray<readonly [FinishReason, readonly string[]]>;

/** The finish reason a provider's word means; `missing` for none at all, 'other' for a new word. */
export function finishReasonOf(
  words: FinishWords,
  raw: unknown,
  missing: FinishReason = 'other',
): FinishReason {
  if (raw === null || raw === undefined) return missing;
  if (typeof raw !== 'string') return 'other';
  return words.find(([, spellings]) => spellings.includes(raw))?.[0] ?? 'other';
}

/** An error body that is not the provider's JSON: proxies answer with HTML, no use to a person. */
export function plainErrorDetails(rawText: string): ErrorDetails {
  return {
    message: rawText
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 300),
  };
}

/** `classifyError` for a provider: its reader of error bodies, and its own rules (hooks). */
export function errorClassifier(
  readDetails: (body: unknown, rawText: string) => ErrorDetails,
  hooks?: ErrorHooks,
): ProviderAdapter['classifyError'] {
  return (status, bodyText, ctx, headers) =>
    classify(status, readDetails(safeJson(bodyText), bodyText), ctx, headers, hooks);
}
