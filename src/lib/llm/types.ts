/**
 * The one judge interface every LLM metric talks to, whatever the provider: messages in; text or
 * schema-validated JSON out; optional top-logprobs of the generated tokens; `n` samples; token
 * usage. Providers (OpenAI Chat Completions, Anthropic Messages, Gemini generateContent, any
 * OpenAI-compatible base URL) are plain `fetch` adapters behind it (src/lib/llm/providers/).
 * See shared PROVIDERS.md for the wire formats.
 */
import type { MessageRef } from '../i18n/message.ts';
import type { z } from 'zod';

/**
 * The provider kinds, in the order the settings offer them. Each has one record in
 * src/lib/llm/providers/registry.ts, which the type system makes complete for every kind here.
 */
export const PROVIDER_KINDS = ['openai', 'anthropic', 'gemini', 'openai-compatible'] as const;

export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface ProviderConfig {
  kind: ProviderKind;
  model: string;
  /** Never logged, never in errors, history, exports or cache keys. */
  apiKey?: string;
  /** Overrides the provider's default host (required for 'openai-compatible'). */
  baseUrl?: string;
  /** Parallel calls allowed to this provider (default 4). */
  concurrency?: number;
  /** Seconds one HTTP request may take before it counts as a timeout (default 120). */
  timeoutSec?: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface JsonOutputSpec<T = unknown> {
  /** A short name for the schema (provider structured-output APIs want one). */
  name: string;
  schema: z.ZodType<T>;
}

export interface JudgeRequest {
  messages: ChatMessage[];
  /** Ask for JSON matching the schema: structured outputs where the provider has them, JSON in
   * text plus repair otherwise. */
  json?: JsonOutputSpec;
  /** Default 0 (greedy); sampling methods set 1. */
  temperature?: number;
  maxTokens?: number;
  /** Number of samples; the client issues several calls when the provider lacks `n`. */
  n?: number;
  /** Ask for the top-k log-probabilities of every generated token (when capable). */
  topLogprobs?: number;
  /**
   * What makes this call's answer reusable: provider, model and this value are hashed into the
   * content-addressed cache key (never the messages, which carry a random delimiter per call,
   * and never the key). Omit to bypass the cache.
   */
  cacheKey?: unknown;
  /**
   * The caller's own check of a reply (G-Eval: does it hold a score?): a message when the reply
   * is unusable. Such a reply is a 'malformed-output' error and is never cached, so a provider
   * that recovers gets asked again; a cached reply that fails it is asked again too.
   */
  accept?(response: JudgeResponse): string | MessageRef | undefined;
  signal?: AbortSignal;
}

export interface TopLogprob {
  token: string;
  logprob: number;
}

/** One generated token with its log-probability and the top alternatives (PROVIDERS.md §12.2). */
export interface TokenLogprob extends TopLogprob {
  top: TopLogprob[];
}

export type FinishReason = 'stop' | 'length' | 'content_filter' | 'refusal' | 'other';

export interface JudgeChoice {
  text: string;
  finishReason: FinishReason;
  logprobs?: TokenLogprob[];
}

export interface TokenUsage {
  input: number;
  output: number;
  cachedInput?: number;
}

export interface JudgeResponse {
  provider: ProviderKind;
  model: string;
  choices: JudgeChoice[];
  /** Summed over every HTTP call this request took (n samples may be several calls). */
  usage: TokenUsage;
  /** HTTP calls made: 0 when served from the cache. */
  calls: number;
  fromCache: boolean;
}

export type LlmErrorKind =
  | 'auth' // bad key
  | 'permission' // key valid, no access to this model/feature
  | 'model-not-found'
  | 'context-too-long'
  | 'refusal'
  | 'truncated' // finish/stop reason says the output was cut
  | 'content-filter'
  | 'quota' // a 429/402 that waiting will not clear
  | 'rate-limit' // retried with backoff; surfaced only when retries run out
  | 'server' // 5xx / overloaded, retried
  | 'network' // fetch TypeError: offline, CORS, edge error
  | 'cancelled'
  | 'timeout'
  | 'capability' // the model refuses a parameter (logprobs, n, json_schema, temperature)
  | 'bad-request'
  | 'malformed-output'; // JSON that neither parses nor repairs into the schema

/** What a failed request cost before it failed: every HTTP attempt is a request the provider saw
 * (and may bill), and a repair round may follow a paid first answer. */
export interface Spent {
  httpCalls: number;
  usage: TokenUsage;
}

/** A classified provider error; `message` is plain words for the UI and never contains a key. */
export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly status: number | undefined;
  readonly provider: ProviderKind | undefined;
  /** Server-suggested wait, from headers or body hints. */
  readonly retryAfterMs: number | undefined;
  /** Requests and tokens spent on the call that failed; set by the client. */
  spent: Spent | undefined;
  /**
   * The message for the page to word in the reader's language (`message` stays English for logs,
   * the CLI and stored results). Absent where the text came from elsewhere (a library, a server).
   */
  readonly messageRef: MessageRef | undefined;

  constructor(
    kind: LlmErrorKind,
    message: string,
    options: {
      status?: number;
      provider?: ProviderKind;
      retryAfterMs?: number;
      cause?: unknown;
      spent?: Spent;
      messageRef?: MessageRef;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LlmError';
    this.kind = kind;
    this.status = options.status;
    this.provider = options.provider;
    this.retryAfterMs = options.retryAfterMs;
    this.spent = options.spent;
    this.messageRef = options.messageRef;
  }
}

/**
 * Errors that every later call of the run would hit too (PROVIDERS.md §13 "stop the run"): a dead
 * or unauthorised key, an exhausted quota or credit, a model the provider does not know, a prompt
 * that does not fit the model at all. A data-set run pauses on them instead of failing every row.
 */
export const RUN_STOPPING_KINDS: ReadonlySet<LlmErrorKind> = new Set<LlmErrorKind>([
  'auth',
  'permission',
  'quota',
  'model-not-found',
  'context-too-long',
]);

/**
 * Failures of the provider rather than of one answer: when several rows in a row end in them
 * after the client's retries, the provider is down or overloaded (§13 "circuit breaking").
 */
export const PROVIDER_OUTAGE_KINDS: ReadonlySet<LlmErrorKind> = new Set<LlmErrorKind>([
  'server',
  'rate-limit',
  'network',
  'timeout',
  'bad-request',
]);

export interface Capabilities {
  logprobs: boolean;
  /** Largest top_logprobs the model accepted (0 without logprobs). */
  maxTopLogprobs: number;
  /** `n` > 1 in one call. */
  n: boolean;
  jsonSchema: boolean;
  /** 'default-only': the model rejects temperature other than its default (sample at 1). */
  temperature: 'any' | 'default-only';
  /** Where these came from: the static table, or a probe of this model. */
  source: 'table' | 'probe';
}

export interface Judge {
  readonly provider: ProviderKind;
  readonly model: string;
  complete(request: JudgeRequest): Promise<JudgeResponse>;
  /** Parses the first choice as JSON, repairs it once if needed, validates it with the schema;
   * throws LlmError('malformed-output') when that fails. */
  completeJson<T>(
    request: JudgeRequest & { json: JsonOutputSpec<T> },
  ): Promise<{ value: T; response: JudgeResponse }>;
  /**
   * Table plus a one-time probe per provider+model, cached. `onSpent` hears what the probe's
   * requests cost (nothing when it was cached), so a run can count them with its own.
   */
  capabilities(signal?: AbortSignal, onSpent?: (spent: Spent) => void): Promise<Capabilities>;
  /**
   * Drops the cached answer of a request whose reply the metric could not use (an incomplete
   * verdict list…), so the next run asks again instead of meeting the same error.
   */
  forget?(
    request: Pick<JudgeRequest, 'cacheKey' | 'json' | 'temperature' | 'n' | 'topLogprobs'>,
  ): Promise<void>;
}
