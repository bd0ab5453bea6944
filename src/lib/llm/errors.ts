/**
 * Turning a provider's failure into an LlmError a person can act on (PROVIDERS.md §13). Each
 * provider module pulls the fields out of its own error body; the decision table lives here so
 * that all four wire formats agree on what is retried and what stops a run.
 */
import { LlmError, type LlmErrorKind, type ProviderKind } from './types.ts';
import {
  english,
  englishRef,
  ref,
  type MessageKey,
  type MessageRef,
  type MessageValues,
} from '../i18n/message.ts';

/** The request parameter a capability error names: the client downgrades it and re-issues. */
export type CapabilityParam =
  'logprobs' | 'top_logprobs' | 'n' | 'temperature' | 'json' | 'thinking';

/** A 400/403/422 that says the model refuses one parameter. */
export class CapabilityError extends LlmError {
  readonly param: CapabilityParam;
  constructor(
    param: CapabilityParam,
    message: string,
    options: { status?: number; provider?: ProviderKind; messageRef?: MessageRef } = {},
  ) {
    super('capability', message, options);
    this.param = param;
  }
}

/** What a provider module extracts from an error body. */
export interface ErrorDetails {
  /** The server's own message, as sent (redacted later). */
  message: string;
  code?: string;
  type?: string;
  /** Google's canonical status (`INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`…). */
  canonical?: string;
  /** Google ErrorInfo reasons (`API_KEY_INVALID`…). */
  reasons?: string[];
  /** Google QuotaFailure quotaIds. */
  quotaIds?: string[];
  /** Wait the body asks for (Gemini RetryInfo, "try again in 1.2s"…). */
  retryAfterMs?: number;
  /** Anthropic `error.details.error_code`, OpenRouter metadata, Azure innererror: free text. */
  extra?: string;
}

/**
 * What one provider adds to the shared decision table: its adapter passes them to `classify`, so
 * the table itself never asks which provider it is looking at.
 */
export interface ErrorHooks {
  /** A 429 whose text matches is an exhausted quota, not a rate limit (OpenAI's wording). */
  quotaOn429?: RegExp;
  /** A 404 that names no model means the base URL has no chat endpoint (compatible servers). */
  missingEndpointOn404?: boolean;
}

/** Who we are talking to, for messages ("OpenAI", "Groq", "the server at localhost:11434"). */
export interface ErrorContext {
  provider: ProviderKind;
  name: string;
  model: string;
  /** Loopback/LAN server: messages then talk about CORS settings rather than accounts. */
  local?: boolean;
}

/** "1.2s", "20ms", "6m0s", "45.837906927s", "1h2m3s" → ms. */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  const ms = /^([\d.]+)\s*ms$/i.exec(t);
  if (ms) return Number(ms[1]);
  const m = /^(?:([\d.]+)h)?(?:([\d.]+)m(?!s))?(?:([\d.]+)s)?$/i.exec(t);
  if (!m || (!m[1] && !m[2] && !m[3])) return undefined;
  const total = (Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) * 1000;
  return Number.isFinite(total) ? Math.round(total) : undefined;
}

/** Retry hints written into error messages (headers are unreadable in browsers, §1.2). */
export function retryHintFromText(text: string): number | undefined {
  const tryAgain =
    /(?:try again|retry) in ((?:[\d.]+h)?(?:[\d.]+m(?!s))?(?:[\d.]+(?:ms|s))?)/i.exec(text);
  if (tryAgain?.[1]) {
    const ms = parseDuration(tryAgain[1]);
    if (ms !== undefined) return ms;
  }
  const after = /retry after (\d+(?:\.\d+)?) ?(?:seconds?|s)\b/i.exec(text);
  if (after) return Math.round(Number(after[1]) * 1000);
  return undefined;
}

/** `retry-after-ms`, then `retry-after` (seconds or an HTTP date), when the browser lets us read
 * them. */
export function retryHintFromHeaders(
  headers: Headers | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers.get('retry-after');
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after.trim())) return Math.round(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const MAX_DETAIL = 300;

/** The server's own words, shortened: quoted as data after our sentence, never translated. */
function serverText(details: ErrorDetails): string {
  const msg = details.message.replace(/\s+/g, ' ').trim();
  return msg.length > MAX_DETAIL ? `${msg.slice(0, MAX_DETAIL)}…` : msg;
}

/** Our sentence, with what the server said after it when it said anything. */
function withServer(sentence: MessageRef, details: ErrorDetails): MessageRef {
  const server = serverText(details);
  return server ? ref('llm.error.withServer', { message: sentence, server }) : sentence;
}

function seconds(ms: number): string {
  return ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000));
}

/** The capability a 400/403/422 message names, if any. */
export function capabilityParamOf(text: string): CapabilityParam | undefined {
  if (/logprob/i.test(text)) {
    return /(between|range|greater than|less than|maximum|max allowed|at most|exceed|must be [<≤]|too (large|high|many))/i.test(
      text,
    ) && !/not (allowed|supported|enabled)|does not support|unsupported/i.test(text)
      ? 'top_logprobs'
      : 'logprobs';
  }
  if (
    /candidateCount|multiple candidates|only one candidate|\bn\b.{0,40}(must be|not supported|unsupported|only)|'n'|"n"|`n`|parameter:? n\b/i.test(
      text,
    )
  ) {
    return 'n';
  }
  if (/temperature/i.test(text)) return 'temperature';
  if (/thinking/i.test(text)) return 'thinking';
  if (
    /response_format|json_schema|json schema|responseJsonSchema|responseSchema|responseMimeType|structured output|response format/i.test(
      text,
    )
  ) {
    return 'json';
  }
  return undefined;
}

const CONTEXT_RE =
  /context[_ ]length|context window|maximum context|context size|exceed_context_size|prompt is too long|input is too long|too many (input )?tokens|maximum number of tokens|input token count|reduce the length|request too large|request_too_large|string too long/i;
const QUOTA_RE =
  /insufficient_quota|insufficient[_ ](balance|credits|funds)|credit balance|billing_error|billing_not_active|billing hard limit|spend(ing)? limit|enforced_spend_limit|payment required|out of credits|quota exceeded for .*per ?day/i;
const FILTER_RE =
  /content[_ ]filter|content management policy|ResponsibleAIPolicyViolation|moderation|flagged|safety system|blocked by (the )?(provider|policy)/i;
const MODEL_RE =
  /model.{0,80}(does not exist|not found|not_found|is not supported for generateContent|unknown|invalid model)|model_not_found|DeploymentNotFound|no such model|try pulling it/i;

/**
 * The decision table. `status` is the HTTP status, or the code an HTTP-200 error body carries
 * (OpenRouter mid-generation errors).
 */
export function classify(
  status: number,
  details: ErrorDetails,
  ctx: ErrorContext,
  headers?: Headers,
  hooks: ErrorHooks = {},
): LlmError {
  const text = [details.message, details.code, details.type, details.canonical, details.extra]
    .concat(details.reasons ?? [], details.quotaIds ?? [])
    .filter(Boolean)
    .join(' ');
  const retryAfterMs =
    retryHintFromHeaders(headers) ?? details.retryAfterMs ?? retryHintFromText(text);
  const base = { status, provider: ctx.provider };
  const who = ctx.name;
  const err = (
    kind: LlmErrorKind,
    key: MessageKey,
    values: MessageValues = {},
    withHint = false,
  ) => {
    const messageRef = withServer(ref(key, { who, ...values }), details);
    return new LlmError(kind, englishRef(messageRef), {
      ...base,
      retryAfterMs: withHint ? retryAfterMs : undefined,
      messageRef,
    });
  };

  // Gemini answers a bad key with 400 INVALID_ARGUMENT (§6.5), so look at the reason first.
  if (details.reasons?.includes('API_KEY_INVALID') || /API key not valid/i.test(details.message)) {
    return err('auth', 'llm.error.keyInvalid');
  }
  if (/CORS requests must set/i.test(details.message)) {
    return err('auth', 'llm.error.corsHeader');
  }
  if (/CORS requests are not allowed for this Organization/i.test(details.message)) {
    return err('permission', 'llm.error.corsOrg');
  }
  if (status === 401) {
    return err('auth', 'llm.error.keyRejected');
  }
  if (
    status === 402 ||
    QUOTA_RE.test(text) ||
    (status === 429 && details.quotaIds?.some((q) => /PerDay/i.test(q)))
  ) {
    const perDay = details.quotaIds?.some((q) => /PerDay/i.test(q));
    return err('quota', perDay ? 'llm.error.dailyQuota' : 'llm.error.noCredits');
  }
  if (status === 429 && hooks.quotaOn429?.test(text)) {
    return err('quota', 'llm.error.quotaExceeded');
  }
  if (FILTER_RE.test(text) && status >= 400 && status < 500 && status !== 429) {
    return err('content-filter', 'llm.error.contentFilter');
  }
  if (
    status === 413 ||
    (status >= 400 && status < 500 && status !== 429 && CONTEXT_RE.test(text))
  ) {
    return err('context-too-long', 'llm.error.contextTooLong', { model: ctx.model });
  }
  if (status === 400 || status === 403 || status === 422) {
    const param = capabilityParamOf(text);
    if (param) {
      const messageRef = withServer(
        ref('llm.error.capability', { model: ctx.model, param: ref(PARAM_WORDS[param]) }),
        details,
      );
      return new CapabilityError(param, englishRef(messageRef), { ...base, messageRef });
    }
  }
  if (
    status === 404 ||
    (status < 500 && MODEL_RE.test(text)) ||
    details.canonical === 'NOT_FOUND'
  ) {
    if (status === 404 && hooks.missingEndpointOn404 && !/model/i.test(text)) {
      return err('bad-request', 'llm.error.noEndpoint');
    }
    return err('model-not-found', 'llm.error.modelNotFound', { model: ctx.model });
  }
  if (status === 403) {
    return err('permission', ctx.local ? 'llm.error.localForbidden' : 'llm.error.forbidden');
  }
  if (status === 429) {
    return retryAfterMs !== undefined
      ? err('rate-limit', 'llm.error.rateLimitWait', { seconds: seconds(retryAfterMs) }, true)
      : err('rate-limit', 'llm.error.rateLimit', {}, true);
  }
  if (status === 529 || /overloaded/i.test(text)) {
    return err('server', 'llm.error.overloaded', { status: String(status) }, true);
  }
  if ([408, 409, 425, 498].includes(status) || status >= 500) {
    return err('server', 'llm.error.server', { status: String(status) }, true);
  }
  return err('bad-request', 'llm.error.rejected', { status: String(status) });
}

const PARAM_WORDS: Record<CapabilityParam, MessageKey> = {
  logprobs: 'llm.param.logprobs',
  top_logprobs: 'llm.param.topLogprobs',
  n: 'llm.param.n',
  temperature: 'llm.param.temperature',
  json: 'llm.param.json',
  thinking: 'llm.param.thinking',
};

type LlmErrorOptions = NonNullable<ConstructorParameters<typeof LlmError>[2]>;

/** An LlmError in English with the ref the page words in the reader's language. */
export function wordedError(
  kind: LlmErrorKind,
  key: MessageKey,
  values?: MessageValues,
  options: Omit<LlmErrorOptions, 'messageRef'> = {},
): LlmError {
  return new LlmError(kind, english(key, values), { ...options, messageRef: ref(key, values) });
}

/** An error's own ref when it has one, else its English text (as a value for a nested message). */
export function messageValue(error: LlmError): MessageRef | string {
  return error.messageRef ?? error.message;
}

/** A 2xx body that is not an API answer (HTML from a proxy, a login page…). */
export function unreadableBody(ctx: ErrorContext, status: number): LlmError {
  const values = { who: ctx.name, status: String(status) };
  return new LlmError('bad-request', english('llm.error.unreadable', values), {
    status,
    provider: ctx.provider,
    messageRef: ref('llm.error.unreadable', values),
  });
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}
