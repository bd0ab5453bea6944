/**
 * One logical call to a provider over HTTP: the request its adapter builds, a timeout, the
 * caller's cancellation, status and body checks, then retries with backoff under the shared
 * concurrency limit (PROVIDERS.md §13). What a failed call cost is counted as it is sent.
 *
 * This is where every answer enters the app, so the keys are taken out of it here, before it is
 * kept, parsed, cached or quoted in a later prompt: a gateway that echoes the key in a 200 would
 * otherwise have it stored and sent back out in the next request bodies.
 */
import type { ArrivalJournal } from './arrivals.ts';
import {
  BACKOFF_BASE_MS,
  backoffDelay,
  cancelledError,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_TIMEOUT_MS,
  defaultSleep,
  MAX_BAD_BODY_RETRIES,
  MAX_HINT_MS,
  MAX_NETWORK_RETRIES,
  OVERLOADED_BASE_MS,
  type Sleep,
} from './backoff.ts';
import { currentTraits, hostOf } from './capabilities.ts';
import {
  messageValue,
  safeJson,
  unreadableBody,
  wordedError,
  type ErrorContext,
} from './errors.ts';
import { blockedConnectionRef, blockedOrigin } from './hosts.ts';
import { literalRedactor } from './redact.ts';
import { english, englishRef, ref } from '../i18n/message.ts';
import { DEFAULT_CONCURRENCY, limiterFor, type ConcurrencyLimiter } from './limiter.ts';
import { adapterFor } from './providers/index.ts';
import type { ParsedCompletion, WireCall } from './providers/shared.ts';
import {
  LlmError,
  type LlmErrorKind,
  type ProviderConfig,
  type Spent,
  type TokenUsage,
} from './types.ts';

/** The run-stopping errors that say nothing about one prompt (unlike context-too-long). */
const LATCHING_KINDS: ReadonlySet<LlmErrorKind> = new Set([
  'auth',
  'permission',
  'quota',
  'model-not-found',
]);

const NON_RETRYABLE: ReadonlySet<LlmErrorKind> = new Set([
  'auth',
  'permission',
  'quota',
  'model-not-found',
  'context-too-long',
  'refusal',
  'content-filter',
  'bad-request',
  'capability',
  'malformed-output',
  'truncated',
  'cancelled',
  'timeout',
]);

/** An HTTP 2xx whose body was cut off or is not valid JSON: the request may have worked. */
class BadBodyError extends LlmError {}

/** The requests and tokens one logical call has cost so far, failed attempts included. */
export function newSpent(): Spent {
  return { httpCalls: 0, usage: { input: 0, output: 0 } };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const sum: TokenUsage = { input: a.input + b.input, output: a.output + b.output };
  const cached = (a.cachedInput ?? 0) + (b.cachedInput ?? 0);
  if (cached) sum.cachedInput = cached;
  return sum;
}

/** A completion and the HTTP calls it took. */
export interface CallResult extends ParsedCompletion {
  calls: number;
}

export interface TransportOptions {
  fetch?: typeof fetch;
  /** Backoff sleep; must reject (or resolve early) when `signal` aborts. */
  sleep?: Sleep;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Attempts per call for rate-limit and server errors (default 5). */
  maxAttempts?: number;
  /** Per-HTTP-call timeout (default 120 s, or the config's timeoutSec). */
  timeoutMs?: number;
  /**
   * A data-set run's judge: once one call meets an error that every later call would meet too
   * (a dead key, an exhausted quota, an unknown model: `LATCHING_KINDS`), every later call fails
   * at once with it instead of sending a request.
   */
  stopOnFatal?: boolean;
  /**
   * Every key the page holds, besides the configured one (KeyStore.held()): none of them may
   * stay in an answer.
   */
  secrets?: () => ReadonlyArray<string | undefined>;
}

export class Transport {
  readonly host: string;
  /** A bad base URL is reported by the first call, so building a judge never throws. */
  readonly configError: LlmError | undefined;
  private readonly fetchFn: typeof fetch;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly maxAttempts: number;
  private readonly timeoutMs: number;
  private readonly limiter: ConcurrencyLimiter;
  /** The first error that stops every later call (`stopOnFatal`). */
  private latched: LlmError | undefined;

  constructor(
    private readonly config: ProviderConfig,
    private readonly options: TransportOptions,
  ) {
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.timeoutMs =
      options.timeoutMs ??
      (config.timeoutSec !== undefined && config.timeoutSec > 0
        ? config.timeoutSec * 1000
        : DEFAULT_TIMEOUT_MS);
    let host: string;
    try {
      host = hostOf(config);
    } catch (e) {
      this.configError = e instanceof LlmError ? e : undefined;
      host = config.baseUrl ?? '';
    }
    this.host = host;
    this.limiter = limiterFor(
      `${config.kind}|${this.host}`,
      config.concurrency ?? DEFAULT_CONCURRENCY,
    );
  }

  /** The error a `stopOnFatal` transport latched, if any. */
  get fatal(): LlmError | undefined {
    return this.latched;
  }

  ctx(): ErrorContext {
    const traits = currentTraits(this.config);
    return {
      provider: this.config.kind,
      name: traits.name,
      model: this.config.model,
      local: traits.local,
    };
  }

  /** The keys out of a body that just arrived: literally, in the spellings redact.ts knows. */
  private withoutKeys(text: string): string {
    return literalRedactor([this.config.apiKey, ...(this.options.secrets?.() ?? [])])(text);
  }

  /**
   * One HTTP request: timeout, cancellation, status and body checks. No retries. A 2xx body goes
   * to `arrived` before anything else is done with it.
   */
  private async attempt(
    call: WireCall,
    signal: AbortSignal | undefined,
    arrived?: (text: string) => Promise<void>,
  ): Promise<ParsedCompletion> {
    const adapter = adapterFor(this.config.kind);
    const ctx = this.ctx();
    const req = adapter.buildRequest(call, this.config, currentTraits(this.config));
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let status: number;
    let text: string;
    let headers: Headers;
    try {
      const res = await this.fetchFn(req.url, {
        method: 'POST',
        headers: req.headers,
        body: JSON.stringify(req.body),
        signal: controller.signal,
      });
      status = res.status;
      headers = res.headers;
      try {
        text = await res.text();
      } catch (e) {
        if (signal?.aborted || timedOut) throw e;
        // The status line and headers came, the body did not: the server or a proxy dropped the
        // connection mid-answer. Not a reachability problem, and worth one more try.
        const values = { who: ctx.name, status: String(status) };
        throw new BadBodyError('server', english('llm.error.cutOff', values), {
          status,
          provider: ctx.provider,
          messageRef: ref('llm.error.cutOff', values),
        });
      }
    } catch (e) {
      if (e instanceof BadBodyError) throw e;
      if (signal?.aborted) throw cancelledError();
      if (timedOut) {
        throw wordedError(
          'timeout',
          'llm.error.timeout',
          { who: ctx.name, seconds: Math.round(this.timeoutMs / 1000) },
          { provider: ctx.provider },
        );
      }
      // In a page, a host the Content-Security-Policy does not list is refused before any
      // request: that is not a network problem, and nothing but a rebuild changes it.
      const blocked = typeof document === 'undefined' ? undefined : blockedOrigin(req.url);
      if (blocked) {
        const messageRef = blockedConnectionRef(blocked);
        throw new LlmError('permission', englishRef(messageRef), {
          provider: ctx.provider,
          messageRef,
        });
      }
      // A server without a known name is already named by its address ("the server at …").
      const where = ctx.name.includes(this.host)
        ? ctx.name
        : ref('llm.error.whoAt', { who: ctx.name, host: this.host });
      throw wordedError(
        'network',
        ctx.local ? 'llm.error.unreachableLocal' : 'llm.error.unreachable',
        { where },
        { provider: ctx.provider, cause: e instanceof Error ? new Error(e.message) : undefined },
      );
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    text = this.withoutKeys(text);
    if (status < 200 || status >= 300) throw adapter.classifyError(status, text, ctx, headers);
    await arrived?.(text);
    // DeepSeek may send blank keep-alive lines before the JSON (§1.3).
    const trimmed = text.trim();
    const body = safeJson(trimmed);
    if (body === undefined) {
      // JSON that breaks off is a body cut or garbled on the way; anything else (an HTML login
      // page, a proxy's text) is not an API at all, which one more try would not change.
      if (/^[[{]/u.test(trimmed)) {
        const values = { who: ctx.name, status: String(status), length: trimmed.length };
        throw new BadBodyError('server', english('llm.error.garbled', values), {
          status,
          provider: ctx.provider,
          messageRef: ref('llm.error.garbled', values),
        });
      }
      throw unreadableBody(ctx, status);
    }
    return adapter.parseResponse(body, call, ctx);
  }

  /** The answer an earlier session kept for this request, read as the live one would be. */
  private async replay(
    journal: ArrivalJournal,
    place: string,
    call: WireCall,
  ): Promise<CallResult | undefined> {
    const text = await journal.received(place);
    const body = text === undefined ? undefined : safeJson(text.trim());
    if (body === undefined) return undefined;
    try {
      return { ...adapterFor(this.config.kind).parseResponse(body, call, this.ctx()), calls: 0 };
    } catch {
      // Kept half-read or with an error inside: asking is what the live call would have done.
      return undefined;
    }
  }

  /**
   * One logical call with the limiter, retries and backoff. Every attempt is counted in `spent`
   * as it is sent, so that a call that fails in the end still reports what it cost. With a
   * `journal`, an answer kept by an earlier session is read instead of sent, and a new one is
   * kept as it arrives.
   */
  async send(
    call: WireCall,
    signal: AbortSignal | undefined,
    spent: Spent = newSpent(),
    journal?: ArrivalJournal,
  ): Promise<CallResult> {
    const place = journal?.place(call);
    if (journal && place !== undefined) {
      if (signal?.aborted) throw cancelledError();
      const kept = await this.replay(journal, place, call);
      if (kept) return kept;
    }
    const arrived =
      journal && place !== undefined ? (text: string) => journal.keep(place, text) : undefined;
    let calls = 0;
    let networkFailures = 0;
    let badBodies = 0;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw cancelledError();
      if (this.latched) throw this.latched;
      const release = await this.limiter.acquire(signal);
      let error: LlmError;
      try {
        if (this.latched) throw this.latched;
        calls++;
        spent.httpCalls++;
        const parsed = await this.attempt(call, signal, arrived);
        this.limiter.onSuccess();
        spent.usage = addUsage(spent.usage, parsed.usage);
        return { ...parsed, calls };
      } catch (e) {
        error = e instanceof LlmError ? e : new LlmError('bad-request', String(e));
      } finally {
        release();
      }
      if (this.options.stopOnFatal && LATCHING_KINDS.has(error.kind)) this.latched ??= error;
      if (error.kind === 'rate-limit') this.limiter.onRateLimit();
      if (error.kind === 'network') networkFailures++;
      if (error instanceof BadBodyError) badBodies++;
      const retryable =
        !NON_RETRYABLE.has(error.kind) &&
        (error.kind !== 'network' || networkFailures <= MAX_NETWORK_RETRIES) &&
        (!(error instanceof BadBodyError) || badBodies <= MAX_BAD_BODY_RETRIES) &&
        attempt < this.maxAttempts;
      if (!retryable) {
        if (attempt > 1 && !NON_RETRYABLE.has(error.kind)) {
          throw wordedError(
            error.kind,
            'llm.error.gaveUp',
            { message: messageValue(error), attempts: attempt },
            { status: error.status, provider: error.provider, retryAfterMs: error.retryAfterMs },
          );
        }
        throw error;
      }
      let delay: number;
      if (error.retryAfterMs !== undefined) {
        if (error.retryAfterMs > MAX_HINT_MS) {
          throw wordedError(
            error.kind,
            'llm.error.waitTooLong',
            { message: messageValue(error), seconds: Math.round(error.retryAfterMs / 1000) },
            { status: error.status, provider: error.provider, retryAfterMs: error.retryAfterMs },
          );
        }
        delay = error.retryAfterMs;
      } else {
        const base = error.status === 529 ? OVERLOADED_BASE_MS : BACKOFF_BASE_MS;
        delay = backoffDelay(attempt, this.random, base);
      }
      await this.sleep(delay, signal);
      if (signal?.aborted) throw cancelledError();
    }
  }
}
