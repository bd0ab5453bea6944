/**
 * A loopback stand-in for the LLM providers, so judge tests never leave the machine and never need
 * a key. It speaks the three wire formats at their real paths (PROVIDERS.md §2, §5, §6):
 *
 *   POST /v1/chat/completions                     OpenAI and every OpenAI-compatible server
 *   POST /v1/messages                             Anthropic
 *   POST /v1beta/models/{model}:generateContent   Gemini
 *
 * Like the real services it answers CORS preflights, and it rejects malformed requests with the
 * provider's own 400/401 shape (missing auth header, Anthropic headers or `max_tokens`, a Gemini
 * key in the query string, a body that is not JSON), so a client bug shows up as the error a user
 * would see. Recorded requests keep their headers with credentials replaced by `<redacted>`.
 *
 * Replies: a default handler answers "7" in the right shape (with logprobs and `n` choices when
 * asked); tests queue scripted replies with `script()`. The builders below produce the providers'
 * real success and error bodies.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Wire = 'openai' | 'anthropic' | 'gemini';

/** Request and reply bodies are whatever JSON the client sent: tests poke at them freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface RecordedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  /** The query string, '' when none (a Gemini `?key=` would show here, redacted). */
  query: string;
  wire?: Wire;
  /** Lower-case names; credential headers replaced by `<redacted>`. */
  headers: Record<string, string>;
  /** A credential header was present and non-empty. */
  authorized: boolean;
  /** Which header carried the credential. */
  authHeader?: 'authorization' | 'x-api-key' | 'x-goog-api-key' | 'api-key';
  /** The parsed JSON body (undefined when it was not JSON). */
  body: Json;
  /** From the body (OpenAI, Anthropic) or the path (Gemini). */
  model?: string;
}

export interface FakeReply {
  status?: number;
  /** An object is sent as JSON; a string as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait before answering (cancel and timeout tests). */
  delayMs?: number;
  /** Drop the connection without an answer: a network error for the client. */
  network?: boolean;
  /** Send the status, the headers (with the full Content-Length) and half of the body, then
   * destroy the socket: a reply cut mid-transfer. */
  cut?: boolean;
  /** Replace `{{key}}` in the body with the credential the request carried (the way OpenAI's
   * 401 echoes a key), to prove the client scrubs it. */
  echoKey?: boolean;
  /** Told whether the answer went out (true) or the client had closed the connection first
   * (false: a reload or a cancel dropped it): a judgement the page never received is not one it
   * paid for twice. */
  onSent?: (delivered: boolean) => void;
}

export type FakeHandler = (req: RecordedRequest) => FakeReply | Promise<FakeReply>;
export type FakeStep = FakeReply | FakeHandler;

export interface FakeLlmOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Answers requests when no scripted step is queued; `defaultReply` by default. */
  handler?: FakeHandler;
  /** Reject OpenAI-path requests without `Authorization` (true), or accept them like a local
   * server (false). Default true. */
  requireOpenAiKey?: boolean;
  /** Sees each API request as it arrived, credentials included, before anything is redacted
   * (key-leak checks: where does the key travel besides its header?). */
  inspect?: (raw: RawRequest) => void;
  /**
   * false: every answer closes its connection. Chromium resends a request by itself, unseen by
   * the page, when a reused keep-alive connection drops before any answer; with fresh
   * connections a dropped one reaches the client as the network error it is, and every request
   * the fake sees is one the client sent. Default true (keep-alive, like the providers).
   */
  keepAlive?: boolean;
}

/** A request exactly as it arrived: the only place a credential is visible. */
export interface RawRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>`, no trailing slash: a provider `baseUrl`. */
  url: string;
  port: number;
  /** API requests in arrival order (preflights are only counted). */
  requests: RecordedRequest[];
  preflights: number;
  /** Requests being answered right now, and the most seen at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Queue replies for the next API requests, consumed in order. */
  script(...steps: FakeStep[]): void;
  /** Replace the default handler. */
  setHandler(handler: FakeHandler): void;
  /** Forget requests, queued steps and counters (the handler stays). */
  reset(): void;
  close(): Promise<void>;
}

const ALLOW_HEADERS = [
  'authorization',
  'content-type',
  'x-api-key',
  'api-key',
  'anthropic-version',
  'anthropic-dangerous-direct-browser-access',
  'anthropic-beta',
  'x-goog-api-key',
].join(', ');

const CORS = {
  'access-control-allow-origin': '*',
  // Like OpenAI: nothing but the request id is readable from browser JS (§1.2).
  'access-control-expose-headers': 'x-request-id',
};

const REDACTED = '<redacted>';
const AUTH_NAMES = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key'] as const;

function wireOf(path: string): Wire | undefined {
  if (path === '/v1/chat/completions') return 'openai';
  if (path === '/v1/messages') return 'anthropic';
  if (/^\/v1beta\/models\/[^/]+:generateContent$/.test(path)) return 'gemini';
  return undefined;
}

// --- success bodies ---------------------------------------------------------------------------

/** A generated token: `top` as [token, logprob] pairs. */
export interface FakeToken {
  token: string;
  logprob: number;
  top?: Array<[string, number]>;
}

export interface FakeUsage {
  input?: number;
  output?: number;
  cached?: number;
  /** Gemini thinking tokens. */
  thoughts?: number;
}

function bytesOf(token: string): number[] {
  return Array.from(new TextEncoder().encode(token));
}

export interface OpenAiSuccess {
  /** One choice per text. */
  texts?: Array<string | null>;
  text?: string | null;
  finishReason?: string | null;
  /** Tokens per choice (same for all when a single array is given). */
  logprobs?: FakeToken[] | FakeToken[][];
  refusal?: string;
  usage?: FakeUsage;
  model?: string;
  /** Ollama's compat layer: no `refusal` key, no empty `bytes`/`top_logprobs` (§11.1). */
  ollamaStyle?: boolean;
}

export function openaiSuccess(o: OpenAiSuccess = {}): Record<string, unknown> {
  const texts = o.texts ?? [o.text === undefined ? '7' : o.text];
  const perChoice = (i: number): FakeToken[] | undefined => {
    if (!o.logprobs) return undefined;
    return Array.isArray(o.logprobs[0])
      ? (o.logprobs as FakeToken[][])[i]
      : (o.logprobs as FakeToken[]);
  };
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1760000000,
    model: o.model ?? 'gpt-4.1-mini-2025-04-14',
    choices: texts.map((text, index) => {
      const tokens = perChoice(index);
      const message: Record<string, unknown> = {
        role: 'assistant',
        content: o.refusal ? null : text,
      };
      if (!o.ollamaStyle) {
        message.refusal = o.refusal ?? null;
        message.annotations = [];
      }
      const logprobs = tokens
        ? {
            content: tokens.map((t) => {
              const entry: Record<string, unknown> = { token: t.token, logprob: t.logprob };
              if (!o.ollamaStyle) entry.bytes = bytesOf(t.token);
              if (!o.ollamaStyle || t.top?.length) {
                entry.top_logprobs = (t.top ?? []).map(([token, logprob]) => ({
                  token,
                  logprob,
                  ...(o.ollamaStyle ? {} : { bytes: bytesOf(token) }),
                }));
              }
              return entry;
            }),
            ...(o.ollamaStyle ? {} : { refusal: null }),
          }
        : null;
      return {
        index,
        message,
        logprobs,
        finish_reason: o.finishReason === undefined ? 'stop' : o.finishReason,
      };
    }),
    usage: {
      prompt_tokens: o.usage?.input ?? 12,
      completion_tokens: o.usage?.output ?? texts.length,
      total_tokens: (o.usage?.input ?? 12) + (o.usage?.output ?? texts.length),
      prompt_tokens_details: { cached_tokens: o.usage?.cached ?? 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

export interface AnthropicSuccess {
  text?: string;
  /** Forced tool use: the tool's `input` object. */
  toolInput?: unknown;
  toolName?: string;
  stopReason?: string;
  usage?: FakeUsage;
  model?: string;
}

export function anthropicSuccess(o: AnthropicSuccess = {}): Record<string, unknown> {
  const content: unknown[] = [];
  if (o.text !== undefined || o.toolInput === undefined)
    content.push({ type: 'text', text: o.text ?? '7' });
  if (o.toolInput !== undefined) {
    content.push({
      type: 'tool_use',
      id: 'toolu_01fake',
      name: o.toolName ?? 'result',
      input: o.toolInput,
    });
  }
  return {
    id: 'msg_01fake',
    type: 'message',
    role: 'assistant',
    model: o.model ?? 'claude-haiku-4-5-20251001',
    content: o.text === undefined && o.toolInput !== undefined ? content.slice(-1) : content,
    stop_reason: o.stopReason ?? (o.toolInput !== undefined ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    stop_details: null,
    usage: {
      input_tokens: o.usage?.input ?? 12,
      output_tokens: o.usage?.output ?? 1,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: o.usage?.cached ?? 0,
    },
  };
}

export interface GeminiSuccess {
  texts?: string[];
  text?: string;
  finishReason?: string;
  logprobs?: FakeToken[];
  usage?: FakeUsage;
  /** No candidates, `promptFeedback.blockReason` set. */
  blockReason?: string;
  /** A thought part before the answer (must be skipped). */
  thought?: string;
  /** MAX_TOKENS with no parts at all (thinking ate the budget). */
  noParts?: boolean;
  model?: string;
}

export function geminiSuccess(o: GeminiSuccess = {}): Record<string, unknown> {
  const usageMetadata = {
    promptTokenCount: o.usage?.input ?? 12,
    candidatesTokenCount: o.usage?.output ?? 1,
    thoughtsTokenCount: o.usage?.thoughts ?? 0,
    totalTokenCount: (o.usage?.input ?? 12) + (o.usage?.output ?? 1) + (o.usage?.thoughts ?? 0),
    ...(o.usage?.cached ? { cachedContentTokenCount: o.usage.cached } : {}),
  };
  if (o.blockReason) {
    return {
      promptFeedback: { blockReason: o.blockReason },
      usageMetadata,
      modelVersion: o.model ?? 'gemini-2.0-flash',
    };
  }
  const texts = o.texts ?? [o.text ?? '7'];
  return {
    candidates: texts.map((text, index) => {
      const candidate: Record<string, unknown> = {
        content: o.noParts
          ? { role: 'model' }
          : {
              role: 'model',
              parts: [...(o.thought ? [{ text: o.thought, thought: true }] : []), { text }],
            },
        finishReason: o.finishReason ?? 'STOP',
        index,
      };
      if (o.logprobs) {
        candidate.avgLogprobs = o.logprobs.reduce((s, t) => s + t.logprob, 0) / o.logprobs.length;
        candidate.logprobsResult = {
          topCandidates: o.logprobs.map((t) => ({
            candidates: (t.top ?? []).map(([token, logProbability], k) => ({
              token,
              tokenId: 236800 + k,
              logProbability,
            })),
          })),
          chosenCandidates: o.logprobs.map((t) => ({
            token: t.token,
            tokenId: 236812,
            logProbability: t.logprob,
          })),
          logProbabilitySum: o.logprobs.reduce((s, t) => s + t.logprob, 0),
        };
      }
      return candidate;
    }),
    usageMetadata,
    modelVersion: o.model ?? 'gemini-2.0-flash',
    responseId: 'fake',
  };
}

// --- error bodies -----------------------------------------------------------------------------

export type FakeErrorKind =
  | 'bad-key'
  | 'forbidden'
  | 'logprobs-forbidden'
  | 'model-not-found'
  | 'context-length'
  | 'rate-limit'
  | 'quota'
  | 'per-day-quota'
  | 'spend-limit'
  | 'server'
  | 'overloaded'
  | 'content-filter'
  | 'bad-request';

function openaiErrorBody(
  message: string,
  type: string | null,
  code: string | null,
  param: string | null = null,
) {
  return { error: { message, type, param, code } };
}

const OPENAI_ERRORS: Partial<Record<FakeErrorKind, FakeReply>> = {
  'bad-key': {
    status: 401,
    body: openaiErrorBody(
      'Incorrect API key provided: {{key}}. You can find your API key at https://platform.openai.com/account/api-keys.',
      'invalid_request_error',
      'invalid_api_key',
    ),
    echoKey: true,
  },
  forbidden: {
    status: 403,
    body: openaiErrorBody(
      'Country, region, or territory not supported',
      'request_forbidden',
      'unsupported_country_region_territory',
    ),
  },
  'logprobs-forbidden': {
    status: 403,
    body: openaiErrorBody(
      'You are not allowed to request logprobs from this model',
      'invalid_request_error',
      null,
    ),
  },
  'model-not-found': {
    status: 404,
    body: openaiErrorBody(
      'The model `gpt-nope` does not exist or you do not have access to it.',
      'invalid_request_error',
      'model_not_found',
    ),
  },
  'context-length': {
    status: 400,
    body: openaiErrorBody(
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      'invalid_request_error',
      'context_length_exceeded',
      'messages',
    ),
  },
  'rate-limit': {
    status: 429,
    body: openaiErrorBody(
      'Rate limit reached for gpt-4.1-mini in organization org-fake on tokens per min (TPM): Limit 200000, Used 199000, Requested 1500. Please try again in 0.05s. Visit https://platform.openai.com/account/rate-limits to learn more.',
      'tokens',
      'rate_limit_exceeded',
    ),
  },
  quota: {
    status: 429,
    body: openaiErrorBody(
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
      'insufficient_quota',
      'insufficient_quota',
    ),
  },
  server: {
    status: 500,
    body: openaiErrorBody(
      'The server had an error while processing your request. Sorry about that!',
      'server_error',
      null,
    ),
  },
  overloaded: {
    status: 503,
    body: openaiErrorBody(
      'The engine is currently overloaded, please try again later',
      'server_error',
      null,
    ),
  },
  'content-filter': {
    status: 400,
    body: {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: {
          code: 'ResponsibleAIPolicyViolation',
          content_filter_result: { jailbreak: { filtered: true, detected: true } },
        },
      },
    },
  },
  'bad-request': {
    status: 400,
    body: openaiErrorBody(
      "Invalid value for 'messages[0].role'.",
      'invalid_request_error',
      'invalid_value',
    ),
  },
};

function anthropicErrorBody(type: string, message: string, details?: Record<string, unknown>) {
  return {
    type: 'error',
    error: { type, message, ...(details ? { details } : {}) },
    request_id: 'req_fake',
  };
}

const ANTHROPIC_ERRORS: Partial<Record<FakeErrorKind, FakeReply>> = {
  'bad-key': { status: 401, body: anthropicErrorBody('authentication_error', 'invalid x-api-key') },
  forbidden: {
    status: 403,
    body: anthropicErrorBody(
      'permission_error',
      'Your API key does not have permission to use the specified resource.',
    ),
  },
  'model-not-found': {
    status: 404,
    body: anthropicErrorBody('not_found_error', 'model: claude-nope'),
  },
  'context-length': {
    status: 400,
    body: anthropicErrorBody(
      'invalid_request_error',
      'prompt is too long: 212345 tokens > 200000 maximum',
    ),
  },
  'rate-limit': {
    status: 429,
    body: anthropicErrorBody(
      'rate_limit_error',
      'This request would exceed the rate limit for your organization of 50,000 input tokens per minute.',
    ),
    headers: { 'retry-after': '1' },
  },
  'spend-limit': {
    status: 429,
    body: anthropicErrorBody(
      'rate_limit_error',
      'You have reached your specified workspace API usage limits.',
      {
        error_code: 'enforced_spend_limit_reached',
      },
    ),
  },
  quota: {
    status: 400,
    body: anthropicErrorBody(
      'invalid_request_error',
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    ),
  },
  server: { status: 500, body: anthropicErrorBody('api_error', 'Internal server error') },
  overloaded: { status: 529, body: anthropicErrorBody('overloaded_error', 'Overloaded') },
  'bad-request': {
    status: 400,
    body: anthropicErrorBody('invalid_request_error', 'messages: at least one message is required'),
  },
};

function geminiErrorBody(code: number, status: string, message: string, details: unknown[] = []) {
  return { error: { code, message, status, details } };
}

const GEMINI_QUOTA_DETAILS = (quotaId: string, retryDelay: string) => [
  {
    '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
    violations: [
      {
        quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
        quotaId,
        quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' },
      },
    ],
  },
  {
    '@type': 'type.googleapis.com/google.rpc.Help',
    links: [
      {
        description: 'Learn more about Gemini API quotas',
        url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
      },
    ],
  },
  { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
];

const GEMINI_ERRORS: Partial<Record<FakeErrorKind, FakeReply>> = {
  'bad-key': {
    status: 400,
    body: geminiErrorBody(
      400,
      'INVALID_ARGUMENT',
      'API key not valid. Please pass a valid API key.',
      [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
      ],
    ),
  },
  forbidden: {
    status: 403,
    body: geminiErrorBody(
      403,
      'PERMISSION_DENIED',
      'Generative Language API has not been used in project 123 before or it is disabled.',
      [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'SERVICE_DISABLED',
          domain: 'googleapis.com',
        },
      ],
    ),
  },
  'logprobs-forbidden': {
    status: 400,
    body: geminiErrorBody(
      400,
      'INVALID_ARGUMENT',
      'Logprobs is not enabled for models/gemini-2.5-flash',
    ),
  },
  'model-not-found': {
    status: 404,
    body: geminiErrorBody(
      404,
      'NOT_FOUND',
      'models/gemini-nope is not found for API version v1beta, or is not supported for generateContent.',
    ),
  },
  'context-length': {
    status: 400,
    body: geminiErrorBody(
      400,
      'INVALID_ARGUMENT',
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    ),
  },
  'rate-limit': {
    status: 429,
    body: geminiErrorBody(
      429,
      'RESOURCE_EXHAUSTED',
      'You exceeded your current quota, please check your plan and billing details. Please retry in 36.2s.',
      GEMINI_QUOTA_DETAILS('GenerateRequestsPerMinutePerProjectPerModel-FreeTier', '36.2s'),
    ),
  },
  'per-day-quota': {
    status: 429,
    body: geminiErrorBody(
      429,
      'RESOURCE_EXHAUSTED',
      'You exceeded your current quota, please check your plan and billing details.',
      GEMINI_QUOTA_DETAILS('GenerateRequestsPerDayPerProjectPerModel-FreeTier', '36s'),
    ),
  },
  server: {
    status: 500,
    body: geminiErrorBody(500, 'INTERNAL', 'An internal error has occurred.'),
  },
  overloaded: {
    status: 503,
    body: geminiErrorBody(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'),
  },
  'bad-request': {
    status: 400,
    body: geminiErrorBody(
      400,
      'INVALID_ARGUMENT',
      'Invalid JSON payload received. Unknown name "foo".',
    ),
  },
};

/** A provider's real error reply for `kind` (undefined when the provider has no such error). */
export function fakeError(wire: Wire, kind: FakeErrorKind): FakeReply {
  const table =
    wire === 'openai' ? OPENAI_ERRORS : wire === 'anthropic' ? ANTHROPIC_ERRORS : GEMINI_ERRORS;
  const reply = table[kind];
  if (!reply) throw new Error(`fake-llm: no ${kind} error for ${wire}`);
  return structuredClone(reply);
}

export function hasFakeError(wire: Wire, kind: FakeErrorKind): boolean {
  const table =
    wire === 'openai' ? OPENAI_ERRORS : wire === 'anthropic' ? ANTHROPIC_ERRORS : GEMINI_ERRORS;
  return table[kind] !== undefined;
}

/** A success reply whose text is `text` for the request's wire (JSON text, malformed text…). */
export function textReply(req: RecordedRequest, text: string, finish?: 'length'): FakeReply {
  if (req.wire === 'anthropic') {
    const tool = req.body?.tool_choice?.name as string | undefined;
    if (tool && finish !== 'length') {
      let input: unknown;
      try {
        input = JSON.parse(text);
      } catch {
        input = { raw: text };
      }
      return { body: anthropicSuccess({ toolInput: input, toolName: tool }) };
    }
    return {
      body: anthropicSuccess({ text, stopReason: finish === 'length' ? 'max_tokens' : 'end_turn' }),
    };
  }
  if (req.wire === 'gemini') {
    return {
      body: geminiSuccess({ text, finishReason: finish === 'length' ? 'MAX_TOKENS' : 'STOP' }),
    };
  }
  return { body: openaiSuccess({ text, finishReason: finish ?? 'stop' }) };
}

/** The default answer: "7", with logprobs and `n` choices when the request asks for them. */
export const defaultReply: FakeHandler = (req) => {
  const seven: FakeToken = {
    token: '7',
    logprob: -0.01,
    top: [
      ['7', -0.01],
      [' 7', -5],
      ['1', -6],
    ],
  };
  if (req.wire === 'anthropic') return { body: anthropicSuccess({ text: '7' }) };
  if (req.wire === 'gemini') {
    const g = req.body?.generationConfig ?? {};
    const k = typeof g.logprobs === 'number' ? g.logprobs : 0;
    return {
      body: geminiSuccess({
        texts: Array.from({ length: g.candidateCount ?? 1 }, () => '7'),
        logprobs: g.responseLogprobs ? [{ ...seven, top: seven.top!.slice(0, k) }] : undefined,
      }),
    };
  }
  const k = typeof req.body?.top_logprobs === 'number' ? req.body.top_logprobs : 0;
  return {
    body: openaiSuccess({
      texts: Array.from({ length: req.body?.n ?? 1 }, () => '7'),
      logprobs: req.body?.logprobs ? [{ ...seven, top: seven.top!.slice(0, k) }] : undefined,
    }),
  };
};

// --- request checks ---------------------------------------------------------------------------

function shapeError(
  wire: Wire,
  req: RecordedRequest,
  rawAuth: string | undefined,
  requireOpenAiKey: boolean,
): FakeReply | undefined {
  const body = req.body;
  if (wire === 'openai') {
    if (requireOpenAiKey && !/^Bearer \S+/.test(rawAuth ?? '')) {
      return {
        status: 401,
        body: openaiErrorBody(
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.",
          'invalid_request_error',
          null,
        ),
      };
    }
    if (!body || typeof body !== 'object') {
      return {
        status: 400,
        body: openaiErrorBody(
          'We could not parse the JSON body of your request.',
          'invalid_request_error',
          null,
        ),
      };
    }
    if (typeof body.model !== 'string')
      return {
        status: 400,
        body: openaiErrorBody('you must provide a model parameter', 'invalid_request_error', null),
      };
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return {
        status: 400,
        body: openaiErrorBody(
          "Missing required parameter: 'messages'.",
          'invalid_request_error',
          'missing_required_parameter',
          'messages',
        ),
      };
    }
    if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined) {
      return {
        status: 400,
        body: openaiErrorBody(
          'max_tokens and max_completion_tokens cannot both be set',
          'invalid_request_error',
          null,
        ),
      };
    }
    return undefined;
  }
  if (wire === 'anthropic') {
    if (!req.headers['x-api-key'] || !rawAuth)
      return {
        status: 401,
        body: anthropicErrorBody('authentication_error', 'x-api-key header is required'),
      };
    if (req.headers['anthropic-dangerous-direct-browser-access'] !== 'true') {
      return {
        status: 401,
        body: anthropicErrorBody(
          'authentication_error',
          "CORS requests must set 'anthropic-dangerous-direct-browser-access' header",
        ),
      };
    }
    if (!req.headers['anthropic-version'])
      return {
        status: 400,
        body: anthropicErrorBody('invalid_request_error', 'anthropic-version: header is required'),
      };
    if (!body || typeof body !== 'object')
      return {
        status: 400,
        body: anthropicErrorBody(
          'invalid_request_error',
          'There was an issue with your request body: invalid JSON',
        ),
      };
    if (typeof body.max_tokens !== 'number')
      return {
        status: 400,
        body: anthropicErrorBody('invalid_request_error', 'max_tokens: Field required'),
      };
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return {
        status: 400,
        body: anthropicErrorBody('invalid_request_error', 'messages: Field required'),
      };
    if (body.messages.some((m: { role?: string }) => m.role !== 'user' && m.role !== 'assistant')) {
      return {
        status: 400,
        body: anthropicErrorBody(
          'invalid_request_error',
          'messages: roles must be user or assistant; use the top-level system parameter',
        ),
      };
    }
    return undefined;
  }
  if (/(^|&)key=/.test(req.query)) {
    return {
      status: 400,
      body: geminiErrorBody(
        400,
        'INVALID_ARGUMENT',
        'fake-llm: the key must travel in x-goog-api-key, not ?key=',
      ),
    };
  }
  if (!rawAuth) {
    return {
      status: 403,
      body: geminiErrorBody(
        403,
        'PERMISSION_DENIED',
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      ),
    };
  }
  if (!body || typeof body !== 'object')
    return {
      status: 400,
      body: geminiErrorBody(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'),
    };
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    return {
      status: 400,
      body: geminiErrorBody(
        400,
        'INVALID_ARGUMENT',
        '* GenerateContentRequest.contents: contents is not specified',
      ),
    };
  }
  return undefined;
}

// --- server -----------------------------------------------------------------------------------

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  let handler: FakeHandler = options.handler ?? defaultReply;
  const requireOpenAiKey = options.requireOpenAiKey ?? true;
  const queue: FakeStep[] = [];
  const requests: RecordedRequest[] = [];
  const state = { inFlight: 0, maxInFlight: 0, preflights: 0 };
  const timers = new Set<NodeJS.Timeout>();

  const send = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    cut = false,
  ) => {
    if (res.writableEnded || res.destroyed) return;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      ...CORS,
      'x-request-id': 'req_fake',
      ...(options.keepAlive === false ? { connection: 'close' } : {}),
      ...headers,
      ...(cut ? { 'content-length': String(Buffer.byteLength(text)) } : {}),
    });
    if (!cut) {
      res.end(text);
      return;
    }
    // Half the body, flushed, then the socket goes: the client has a status and a partial body.
    res.write(text.slice(0, Math.floor(text.length / 2)), () => {
      const t = setTimeout(() => {
        timers.delete(t);
        res.socket?.destroy();
      }, 30);
      timers.add(t);
    });
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'OPTIONS') {
      state.preflights++;
      res.writeHead(204, {
        ...CORS,
        ...(options.keepAlive === false ? { connection: 'close' } : {}),
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': ALLOW_HEADERS,
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    const raw = await readBody(req);
    const wire = wireOf(url.pathname);
    if (options.inspect) {
      const rawHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        rawHeaders[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
      }
      options.inspect({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: rawHeaders,
        body: raw,
      });
    }
    const headers: Record<string, string> = {};
    let rawAuth: string | undefined;
    let authHeader: RecordedRequest['authHeader'];
    for (const [name, value] of Object.entries(req.headers)) {
      const v = Array.isArray(value) ? value.join(', ') : (value ?? '');
      if ((AUTH_NAMES as readonly string[]).includes(name)) {
        if (v && !rawAuth) {
          rawAuth = v;
          authHeader = name as RecordedRequest['authHeader'];
        }
        headers[name] = REDACTED;
      } else headers[name] = v;
    }
    let body: Json;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const query = url.searchParams.has('key')
      ? url.search.slice(1).replace(/(^|&)key=[^&]*/, `$1key=${REDACTED}`)
      : url.search.slice(1);
    const rawKey = rawAuth?.replace(/^Bearer\s+/i, '');
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      wire,
      headers,
      authorized: !!rawKey,
      authHeader,
      body,
      model:
        wire === 'gemini'
          ? decodeURIComponent(/models\/([^/:]+)/.exec(url.pathname)?.[1] ?? '')
          : body?.model,
    };
    requests.push(record);
    if (!wire)
      return send(res, 404, {
        error: { message: `fake-llm: no route for ${url.pathname}`, type: 'not_found_error' },
      });
    if (req.method !== 'POST') return send(res, 405, { error: { message: 'Method not allowed' } });

    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        state.inFlight--;
      }
    };
    res.on('close', finish);
    let clientGone = false;
    res.on('close', () => {
      if (!res.writableEnded) clientGone = true;
    });
    try {
      const invalid = shapeError(wire, record, rawAuth, requireOpenAiKey);
      const step = invalid ?? queue.shift() ?? handler;
      const reply = typeof step === 'function' ? await step(record) : step;
      if (reply.delayMs) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            timers.delete(t);
            resolve();
          }, reply.delayMs);
          timers.add(t);
          res.on('close', () => {
            clearTimeout(t);
            timers.delete(t);
            resolve();
          });
        });
      }
      if (reply.network) {
        req.socket.destroy();
        return;
      }
      if (clientGone || res.writableEnded || res.destroyed) {
        reply.onSent?.(false);
        return;
      }
      let out = reply.body ?? {};
      if (reply.echoKey)
        out = JSON.parse(
          JSON.stringify(out)
            .split('{{key}}')
            .join(rawKey ?? ''),
        );
      send(res, reply.status ?? 200, out, reply.headers, reply.cut);
      reply.onSent?.(!reply.cut);
    } catch (e) {
      send(res, 500, { error: { message: `fake-llm handler failed: ${String(e)}` } });
    } finally {
      if (res.writableEnded || res.destroyed) finish();
    }
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get preflights() {
      return state.preflights;
    },
    set preflights(v: number) {
      state.preflights = v;
    },
    get inFlight() {
      return state.inFlight;
    },
    get maxInFlight() {
      return state.maxInFlight;
    },
    script(...steps) {
      queue.push(...steps);
    },
    setHandler(h) {
      handler = h;
    },
    reset() {
      requests.length = 0;
      queue.length = 0;
      state.maxInFlight = state.inFlight;
      state.preflights = 0;
    },
    close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
