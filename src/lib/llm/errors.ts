/**
 * Turning a provider's failure into an LlmError a person can act on (PROVIDERS.md §13). Each
 * provider module pulls the fields out of its own error body; the decision table lives here so
 * that all four wire formats agree on what is retried and what stops a run.
 */
import { LlmError, type LlmErrorKind, type ProviderKind } from './types.ts';

/** The request parameter a capability error names: the client downgrades it and re-issues. */
export type CapabilityParam =
  'logprobs' | 'top_logprobs' | 'n' | 'temperature' | 'json' | 'thinking';

/** A 400/403/422 that says the model refuses one parameter. */
export class CapabilityError extends LlmError {
  readonly param: CapabilityParam;
  constructor(
    param: CapabilityParam,
    message: string,
    options: { status?: number; provider?: ProviderKind } = {},
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

function detail(details: ErrorDetails): string {
  const msg = details.message.replace(/\s+/g, ' ').trim();
  if (!msg) return '';
  return ` (server said: "${msg.length > MAX_DETAIL ? `${msg.slice(0, MAX_DETAIL)}…` : msg}")`;
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
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
  const err = (kind: LlmErrorKind, message: string, withHint = false) =>
    new LlmError(kind, message + detail(details), {
      ...base,
      retryAfterMs: withHint ? retryAfterMs : undefined,
    });
  const who = ctx.name;

  // Gemini answers a bad key with 400 INVALID_ARGUMENT (§6.5), so look at the reason first.
  if (details.reasons?.includes('API_KEY_INVALID') || /API key not valid/i.test(details.message)) {
    return err('auth', `${who} rejected the API key: it is wrong, revoked or for another project.`);
  }
  if (/CORS requests must set/i.test(details.message)) {
    return err('auth', `${who} refused the browser request: the browser-access header is missing.`);
  }
  if (/CORS requests are not allowed for this Organization/i.test(details.message)) {
    return err(
      'permission',
      `${who} does not allow browser calls for this organization's keys: ask the org admin, or use another key.`,
    );
  }
  if (status === 401) {
    return err('auth', `${who} rejected the API key: it is wrong, expired or revoked.`);
  }
  if (
    status === 402 ||
    QUOTA_RE.test(text) ||
    (status === 429 && details.quotaIds?.some((q) => /PerDay/i.test(q)))
  ) {
    const perDay = details.quotaIds?.some((q) => /PerDay/i.test(q));
    return err(
      'quota',
      perDay
        ? `${who}'s daily quota for this key is used up; it resets at midnight Pacific time. Waiting a few seconds will not help.`
        : `${who} says the account is out of quota or credits (or hit its spend limit). Add credits or raise the limit; retrying will not help.`,
    );
  }
  if (status === 429 && hooks.quotaOn429?.test(text)) {
    return err(
      'quota',
      `${who} says the account has exceeded its quota. Check the plan and billing details.`,
    );
  }
  if (FILTER_RE.test(text) && status >= 400 && status < 500 && status !== 429) {
    return err(
      'content-filter',
      `${who}'s content filter blocked this request. The item cannot be scored by this provider.`,
    );
  }
  if (
    status === 413 ||
    (status >= 400 && status < 500 && status !== 429 && CONTEXT_RE.test(text))
  ) {
    return err(
      'context-too-long',
      `The prompt is longer than ${ctx.model}'s context window. Use a shorter text or a model with a larger context.`,
    );
  }
  if (status === 400 || status === 403 || status === 422) {
    const param = capabilityParamOf(text);
    if (param) {
      return new CapabilityError(
        param,
        `${ctx.model} does not accept the ${PARAM_WORDS[param]} setting${detail(details)}`,
        base,
      );
    }
  }
  if (
    status === 404 ||
    (status < 500 && MODEL_RE.test(text)) ||
    details.canonical === 'NOT_FOUND'
  ) {
    if (status === 404 && hooks.missingEndpointOn404 && !/model/i.test(text)) {
      return err(
        'bad-request',
        `${who} has no chat-completions endpoint at this address (404). Check the base URL (it usually ends in /v1).`,
      );
    }
    return err(
      'model-not-found',
      `${who} does not know the model "${ctx.model}", or this key has no access to it. Check the model name.`,
    );
  }
  if (status === 403) {
    return err(
      'permission',
      ctx.local
        ? `${who} refused the request (403). Local servers refuse other web origins by default: allow this page's origin (e.g. OLLAMA_ORIGINS) and try again.`
        : `The key works, but ${who} does not give it access to this model or feature (403).`,
    );
  }
  if (status === 429) {
    return err(
      'rate-limit',
      `${who} is rate-limiting requests${retryAfterMs !== undefined ? ` and asks to wait ${seconds(retryAfterMs)}` : ''}.`,
      true,
    );
  }
  if (status === 529 || /overloaded/i.test(text)) {
    return err('server', `${who} is overloaded right now (HTTP ${status}).`, true);
  }
  if ([408, 409, 425, 498].includes(status) || status >= 500) {
    return err('server', `${who} had a server problem (HTTP ${status}).`, true);
  }
  return err('bad-request', `${who} rejected the request (HTTP ${status}).`);
}

const PARAM_WORDS: Record<CapabilityParam, string> = {
  logprobs: 'log-probabilities',
  top_logprobs: 'number of top log-probabilities',
  n: 'several-samples-per-call (n)',
  temperature: 'temperature',
  json: 'JSON-schema output',
  thinking: 'thinking budget',
};

/** A 2xx body that is not an API answer (HTML from a proxy, a login page…). */
export function unreadableBody(ctx: ErrorContext, status: number): LlmError {
  return new LlmError(
    'bad-request',
    `${ctx.name} answered with something that is not an API response (HTTP ${status}). Check the base URL.`,
    { status, provider: ctx.provider },
  );
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
