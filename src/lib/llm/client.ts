/**
 * The Judge: one `fetch`-based client for every provider. It owns everything the wire formats
 * have in common: what to ask given the model's capabilities, retries and backoff (PROVIDERS.md
 * §13), the shared concurrency limit, cancellation and timeouts, `n` samples, JSON parsing with
 * one repair round, the response cache, and scrubbing keys out of every error.
 */
import { messageOf } from '../errors.ts';
import { cacheKeyFor, type ResponseCache } from './cache.ts';
import {
  capabilitiesFromTraits,
  currentTraits,
  hostOf,
  learnRefusal,
  probeCapabilities,
  type CapabilityStore,
  type Traits,
} from './capabilities.ts';
import { CapabilityError, safeJson, unreadableBody, type ErrorContext } from './errors.ts';
import { blockedConnectionMessage, blockedOrigin } from './hosts.ts';
import { isObjectSchema, schemaName, toJsonSchema, toStrictJsonSchema } from './json-schema.ts';
import { DEFAULT_CONCURRENCY, limiterFor, type ConcurrencyLimiter } from './limiter.ts';
import { parseJsonReply } from './parse-json.ts';
import { adapterFor } from './providers/index.ts';
import type { ParsedCompletion, WireCall, WireJson } from './providers/shared.ts';
import { redact } from './redact.ts';
import {
  LlmError,
  type Capabilities,
  type ChatMessage,
  type JsonOutputSpec,
  type Judge,
  type JudgeChoice,
  type JudgeRequest,
  type JudgeResponse,
  type LlmErrorKind,
  type ProviderConfig,
  type Spent,
  type TokenUsage,
} from './types.ts';

export type { ResponseCache } from './cache.ts';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface JudgeOptions {
  /** Content-addressed response cache, used when a request has a `cacheKey`. */
  cache?: ResponseCache;
  fetch?: typeof fetch;
  /** Backoff sleep; must reject (or resolve early) when `signal` aborts. */
  sleep?: Sleep;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Attempts per call for rate-limit and server errors (default 5). */
  maxAttempts?: number;
  /** Per-HTTP-call timeout (default 120 s). */
  timeoutMs?: number;
  /** Where probe results persist between sessions (the app backs it with IndexedDB). */
  capabilityStore?: CapabilityStore;
  /**
   * A data-set run's judge: once one call meets an error that every later call would meet too
   * (a dead key, an exhausted quota, an unknown model: `LATCHING_KINDS`), every later call fails
   * at once with it instead of sending a request.
   */
  stopOnFatal?: boolean;
}

/** The run-stopping errors that say nothing about one prompt (unlike context-too-long). */
const LATCHING_KINDS: ReadonlySet<LlmErrorKind> = new Set([
  'auth',
  'permission',
  'quota',
  'model-not-found',
]);

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_ATTEMPTS = 5;
/** A network failure may be CORS or an edge error that never clears: retry it at most twice. */
export const MAX_NETWORK_RETRIES = 2;
/** A body cut off or garbled in transit is asked again once; twice means the server sends it so. */
export const MAX_BAD_BODY_RETRIES = 1;
/** Longest server-suggested wait we honour; longer ones fail the item instead of hanging. */
export const MAX_HINT_MS = 120_000;
export const BACKOFF_BASE_MS = 1_000;
/** Anthropic's 529 "overloaded" clears more slowly than a 429. */
export const OVERLOADED_BASE_MS = 3_000;
export const BACKOFF_CAP_MS = 30_000;

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

export const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function cancelledError(): LlmError {
  return new LlmError('cancelled', 'Cancelled.');
}

/** An HTTP 2xx whose body was cut off or is not valid JSON: the request may have worked. */
class BadBodyError extends LlmError {}

/** The requests and tokens one logical call has cost so far, failed attempts included. */
function newSpent(): Spent {
  return { httpCalls: 0, usage: { input: 0, output: 0 } };
}

/** Full-jitter exponential backoff: `min(cap, base·2^(attempt-1)) · random()`. */
export function backoffDelay(
  attempt: number,
  random: () => number,
  baseMs = BACKOFF_BASE_MS,
): number {
  return Math.min(BACKOFF_CAP_MS, baseMs * 2 ** Math.max(0, attempt - 1)) * random();
}

/** Same error with the key (and every known key shape) removed from its message. */
function scrub(e: unknown, apiKey: string | undefined, provider: ProviderConfig['kind']): LlmError {
  if (e instanceof CapabilityError) {
    const out = new CapabilityError(e.param, redact(e.message, [apiKey]), {
      status: e.status,
      provider: e.provider ?? provider,
    });
    out.spent = e.spent;
    return out;
  }
  if (e instanceof LlmError) {
    return new LlmError(e.kind, redact(e.message, [apiKey]), {
      status: e.status,
      provider: e.provider ?? provider,
      retryAfterMs: e.retryAfterMs,
      spent: e.spent,
    });
  }
  const message = messageOf(e);
  return new LlmError('bad-request', redact(`Unexpected error: ${message}`, [apiKey]), {
    provider,
  });
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const sum: TokenUsage = { input: a.input + b.input, output: a.output + b.output };
  const cached = (a.cachedInput ?? 0) + (b.cachedInput ?? 0);
  if (cached) sum.cachedInput = cached;
  return sum;
}

interface CallResult extends ParsedCompletion {
  calls: number;
}

function merge(results: CallResult[]): CallResult {
  return {
    choices: results.flatMap((r) => r.choices),
    usage: results.reduce((u, r) => addUsage(u, r.usage), { input: 0, output: 0 } as TokenUsage),
    calls: results.reduce((c, r) => c + r.calls, 0),
    model: results.find((r) => r.model)?.model,
  };
}

/** Appends the JSON-in-text instruction to the last user turn (after the untrusted text, so it
 * also restates the output format: PROVIDERS.md §16 "sandwich"). */
function withJsonInstruction(messages: ChatMessage[], schema: object): ChatMessage[] {
  const instruction =
    'Answer with JSON only: a single JSON value, no other text and no code fences, matching this JSON Schema:\n' +
    JSON.stringify(schema);
  const out = messages.map((m) => ({ ...m }));
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i].role === 'user') {
      out[i].content = `${out[i].content}\n\n${instruction}`;
      return out;
    }
  }
  return [...out, { role: 'user', content: instruction }];
}

/** How this JSON request travels given the provider's current traits. */
function jsonPlan(
  spec: JsonOutputSpec,
  traits: Traits,
  kind: ProviderConfig['kind'],
): {
  wire?: WireJson;
  instructionSchema?: object;
} {
  const plain = toJsonSchema(spec.schema);
  const name = schemaName(spec.name);
  if (traits.json === 'schema') {
    if (kind === 'gemini') return { wire: { name, mode: 'schema', schema: plain, strict: false } };
    // OpenAI-style structured outputs and Anthropic tool input both need an object at the root.
    if (isObjectSchema(plain)) {
      if (kind === 'anthropic')
        return { wire: { name, mode: 'schema', schema: plain, strict: false } };
      const strict = toStrictJsonSchema(spec.schema);
      return {
        wire: strict
          ? { name, mode: 'schema', schema: strict, strict: true }
          : { name, mode: 'schema', schema: plain, strict: false },
      };
    }
  }
  if (traits.json === 'object' && isObjectSchema(plain)) {
    // JSON mode still needs the schema (and the word "json") in the prompt.
    return {
      wire: { name, mode: 'object', schema: plain, strict: false },
      instructionSchema: plain,
    };
  }
  return { instructionSchema: plain };
}

/** A request with no usable answer at all becomes an error that says why. */
function assertUsable(choices: JudgeChoice[], ctx: ErrorContext): void {
  const usable = choices.some(
    (c) =>
      c.text.trim() !== '' && c.finishReason !== 'refusal' && c.finishReason !== 'content_filter',
  );
  if (usable) return;
  throw finishError(choices[0], ctx);
}

/** A truncated reply may still "repair" into valid-looking JSON: never trust it (§2.4). */
function jsonUsable(choice: JudgeChoice | undefined): choice is JudgeChoice {
  return (
    !!choice &&
    choice.text.trim() !== '' &&
    choice.finishReason !== 'length' &&
    choice.finishReason !== 'refusal' &&
    choice.finishReason !== 'content_filter'
  );
}

function finishError(choice: JudgeChoice | undefined, ctx: ErrorContext): LlmError {
  const opts = { provider: ctx.provider, status: 200 };
  if (!choice) return new LlmError('malformed-output', `${ctx.name} returned no answer.`, opts);
  const quoted = choice.text.trim() ? `: "${choice.text.trim().slice(0, 200)}"` : '.';
  switch (choice.finishReason) {
    case 'refusal':
      return new LlmError('refusal', `${ctx.model} refused to answer${quoted}`, opts);
    case 'content_filter':
      return new LlmError(
        'content-filter',
        `${ctx.name}'s content filter blocked the answer. The item cannot be scored by this provider.`,
        opts,
      );
    case 'length':
      return new LlmError(
        'truncated',
        choice.text.trim()
          ? `${ctx.model}'s answer was cut off at the output-token limit. Raise the max tokens.`
          : `${ctx.model} used its whole output budget before answering (thinking or reasoning tokens count against it). Raise the max tokens.`,
        opts,
      );
    default:
      return new LlmError('malformed-output', `${ctx.model} returned an empty answer.`, opts);
  }
}

class FetchJudge implements Judge {
  readonly provider: ProviderConfig['kind'];
  readonly model: string;
  private readonly fetchFn: typeof fetch;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly maxAttempts: number;
  private readonly timeoutMs: number;
  private readonly limiter: ConcurrencyLimiter;
  private readonly host: string;
  /** The first error that stops every later call (`stopOnFatal`). */
  private fatal: LlmError | undefined;
  /** Requests being fetched now, by cache key (see oneAtATime). */
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** A bad base URL is reported by the first call, so building a judge never throws. */
  private readonly configError: LlmError | undefined;

  constructor(
    private readonly config: ProviderConfig,
    private readonly options: JudgeOptions,
  ) {
    this.provider = config.kind;
    this.model = config.model;
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

  private ctx(): ErrorContext {
    const traits = currentTraits(this.config);
    return {
      provider: this.config.kind,
      name: traits.name,
      model: this.config.model,
      local: traits.local,
    };
  }

  private needsKey(): void {
    if (this.configError) throw this.configError;
    if (this.fatal) throw this.fatal;
    if (this.config.kind !== 'openai-compatible' && !this.config.apiKey) {
      throw new LlmError('auth', `No API key is set for ${this.ctx().name}.`, {
        provider: this.config.kind,
      });
    }
  }

  /** One HTTP request: timeout, cancellation, status and body checks. No retries. */
  private async attempt(
    call: WireCall,
    signal: AbortSignal | undefined,
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
        throw new BadBodyError(
          'server',
          `${ctx.name}'s answer was cut off mid-transfer (HTTP ${status}: the connection closed before the whole body arrived).`,
          { status, provider: ctx.provider },
        );
      }
    } catch (e) {
      if (e instanceof BadBodyError) throw e;
      if (signal?.aborted) throw cancelledError();
      if (timedOut) {
        throw new LlmError(
          'timeout',
          `${ctx.name} did not answer within ${Math.round(this.timeoutMs / 1000)} s.`,
          {
            provider: ctx.provider,
          },
        );
      }
      // In a page, a host the Content-Security-Policy does not list is refused before any
      // request: that is not a network problem, and nothing but a rebuild changes it.
      const blocked = typeof document === 'undefined' ? undefined : blockedOrigin(req.url);
      if (blocked) {
        throw new LlmError('permission', blockedConnectionMessage(blocked), {
          provider: ctx.provider,
        });
      }
      const hint = ctx.local
        ? ' Is the server running, and does it allow this page (CORS: OLLAMA_ORIGINS, LM Studio "Enable CORS"; Chrome may ask to allow local-network access)?'
        : ' You may be offline, the provider may not allow browser (CORS) requests from this page, or a proxy dropped the request.';
      throw new LlmError('network', `Could not reach ${ctx.name} at ${this.host}.${hint}`, {
        provider: ctx.provider,
        cause: e instanceof Error ? new Error(e.message) : undefined,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    if (status < 200 || status >= 300) throw adapter.classifyError(status, text, ctx, headers);
    // DeepSeek may send blank keep-alive lines before the JSON (§1.3).
    const trimmed = text.trim();
    const body = safeJson(trimmed);
    if (body === undefined) {
      // JSON that breaks off is a body cut or garbled on the way; anything else (an HTML login
      // page, a proxy's text) is not an API at all, which one more try would not change.
      if (/^[[{]/u.test(trimmed)) {
        throw new BadBodyError(
          'server',
          `${ctx.name} answered HTTP ${status} with JSON that breaks off or is garbled (${trimmed.length} characters): the reply was cut off on the way.`,
          { status, provider: ctx.provider },
        );
      }
      throw unreadableBody(ctx, status);
    }
    return adapter.parseResponse(body, call, ctx);
  }

  /**
   * One logical call with the limiter, retries and backoff. Every attempt is counted in `spent`
   * as it is sent, so that a call that fails in the end still reports what it cost.
   */
  private async send(
    call: WireCall,
    signal: AbortSignal | undefined,
    spent: Spent = newSpent(),
  ): Promise<CallResult> {
    let calls = 0;
    let networkFailures = 0;
    let badBodies = 0;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw cancelledError();
      if (this.fatal) throw this.fatal;
      const release = await this.limiter.acquire(signal);
      let error: LlmError;
      try {
        if (this.fatal) throw this.fatal;
        calls++;
        spent.httpCalls++;
        const parsed = await this.attempt(call, signal);
        this.limiter.onSuccess();
        spent.usage = addUsage(spent.usage, parsed.usage);
        return { ...parsed, calls };
      } catch (e) {
        error = e instanceof LlmError ? e : new LlmError('bad-request', String(e));
      } finally {
        release();
      }
      if (this.options.stopOnFatal && LATCHING_KINDS.has(error.kind)) this.fatal ??= error;
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
          throw new LlmError(error.kind, `${error.message} Gave up after ${attempt} attempts.`, {
            status: error.status,
            provider: error.provider,
            retryAfterMs: error.retryAfterMs,
          });
        }
        throw error;
      }
      let delay: number;
      if (error.retryAfterMs !== undefined) {
        if (error.retryAfterMs > MAX_HINT_MS) {
          throw new LlmError(
            error.kind,
            `${error.message} The provider asks to wait ${Math.round(error.retryAfterMs / 1000)} s, which is too long; try again later.`,
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

  /**
   * `send`, adapting once per refused parameter: the model said it does not take logprobs, `n`,
   * a temperature, a schema or a thinking config, so remember that and ask again without it.
   */
  private async sendAdaptive(
    call: WireCall,
    signal: AbortSignal | undefined,
    instruction: object | undefined,
    spent: Spent,
  ): Promise<CallResult> {
    let current = call;
    let refused = 0;
    for (let round = 0; ; round++) {
      try {
        const result = await this.send(current, signal, spent);
        return { ...result, calls: result.calls + refused };
      } catch (e) {
        if (!(e instanceof CapabilityError) || round >= 5) throw e;
        refused++;
        const next = this.downgrade(current, e, instruction);
        if (!next) throw e;
        if (next === 'split') return this.splitN(current, signal, refused, spent);
        current = next;
      }
    }
  }

  private downgrade(
    call: WireCall,
    e: CapabilityError,
    instruction?: object,
  ): WireCall | 'split' | undefined {
    switch (e.param) {
      case 'logprobs':
        if (call.topLogprobs === undefined) return undefined;
        learnRefusal(this.config, { logprobs: false, maxTopLogprobs: 0 });
        return { ...call, topLogprobs: undefined };
      case 'top_logprobs': {
        const k = call.topLogprobs;
        if (k === undefined) return undefined;
        const next = k > 5 ? 5 : k > 1 ? 1 : undefined;
        learnRefusal(
          this.config,
          next ? { maxTopLogprobs: next } : { logprobs: false, maxTopLogprobs: 0 },
        );
        return { ...call, topLogprobs: next };
      }
      case 'n':
        if (call.n <= 1) return undefined;
        learnRefusal(this.config, { maxN: 1 });
        return 'split';
      case 'temperature':
        if (call.temperature === undefined) return undefined;
        learnRefusal(this.config, { temperature: 'default-only' });
        return { ...call, temperature: undefined };
      case 'json': {
        if (!call.json || call.json.mode !== 'schema') return undefined;
        learnRefusal(this.config, { json: 'text' });
        const schema = instruction ?? call.json.schema;
        return { ...call, json: undefined, messages: withJsonInstruction(call.messages, schema) };
      }
      case 'thinking':
        if (!currentTraits(this.config).thinkingConfig) return undefined;
        learnRefusal(this.config, { thinkingConfig: false });
        return { ...call };
    }
  }

  /** `n` samples as single calls under the limiter; the first failure cancels the rest. */
  private async splitN(
    call: WireCall,
    signal: AbortSignal | undefined,
    refused: number,
    spent: Spent,
  ): Promise<CallResult> {
    const results = await this.parallel(
      Array.from({ length: call.n }, () => ({ ...call, n: 1 })),
      signal,
      spent,
    );
    const merged = merge(results);
    return { ...merged, calls: merged.calls + refused };
  }

  private async parallel(
    calls: WireCall[],
    signal: AbortSignal | undefined,
    spent: Spent,
  ): Promise<CallResult[]> {
    if (calls.length === 1) return [await this.sendAdaptive(calls[0], signal, undefined, spent)];
    const group = new AbortController();
    const onAbort = () => group.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) group.abort();
    try {
      return await Promise.all(
        calls.map((c) =>
          this.sendAdaptive(c, group.signal, undefined, spent).catch((e: unknown) => {
            group.abort();
            throw e;
          }),
        ),
      );
    } catch (e) {
      // Promise.all rejects with the first failure, the one that cancelled its siblings.
      throw signal?.aborted ? cancelledError() : e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The request as the model can take it right now, then `n` spread over calls. */
  private async run(
    request: JudgeRequest,
    json: { wire?: WireJson; instructionSchema?: object } | undefined,
    spent: Spent,
  ): Promise<CallResult> {
    const traits = currentTraits(this.config);
    const n = Math.max(1, Math.floor(request.n ?? 1));
    const base: WireCall = {
      messages: json?.instructionSchema
        ? withJsonInstruction(request.messages, json.instructionSchema)
        : request.messages,
      temperature: traits.temperature === 'any' ? (request.temperature ?? 0) : undefined,
      maxTokens: request.maxTokens,
      n: 1,
      topLogprobs:
        request.topLogprobs !== undefined && traits.logprobs && traits.maxTopLogprobs > 0
          ? Math.max(0, Math.min(Math.floor(request.topLogprobs), traits.maxTopLogprobs))
          : undefined,
      json: json?.wire,
    };
    const instruction = json?.wire?.schema;
    if (n === 1) return this.sendAdaptive(base, request.signal, instruction, spent);
    const per = Math.max(1, traits.maxN);
    const sizes: number[] = [];
    for (let left = n; left > 0; left -= per) sizes.push(Math.min(per, left));
    const firstRound = merge(
      await this.parallel(
        sizes.map((size) => ({ ...base, n: size })),
        request.signal,
        spent,
      ),
    );
    const missing = n - firstRound.choices.length;
    if (missing <= 0) return firstRound;
    // OpenRouter and some local servers ignore `n` and answer with one choice (§7).
    if (per > 1) learnRefusal(this.config, { maxN: 1 });
    const topUp = merge(
      await this.parallel(
        Array.from({ length: missing }, () => ({ ...base, n: 1 })),
        request.signal,
        spent,
      ),
    );
    return merge([firstRound, topUp]);
  }

  private response(result: CallResult): JudgeResponse {
    return {
      provider: this.config.kind,
      model: result.model ?? this.config.model,
      choices: result.choices,
      usage: result.usage,
      calls: result.calls,
      fromCache: false,
    };
  }

  private async cached(request: JudgeRequest): Promise<{ key?: string; hit?: JudgeResponse }> {
    const cache = this.options.cache;
    if (!cache || request.cacheKey === undefined) return {};
    const key = await cacheKeyFor(this.config, request);
    const hit = await cache.get(key).catch(() => undefined);
    return { key, hit: hit ? { ...hit, calls: 0, fromCache: true } : undefined };
  }

  private async store(key: string | undefined, response: JudgeResponse): Promise<void> {
    if (!key || !this.options.cache) return;
    // A cache that fails to write must not fail the judgement that was already paid for.
    await this.options.cache.set(key, { ...response, fromCache: false }).catch(() => undefined);
  }

  /** The caller's `accept` check as an error, or undefined when the reply is usable. */
  private rejected(request: JudgeRequest, response: JudgeResponse): LlmError | undefined {
    const reason = request.accept?.(response);
    return reason === undefined
      ? undefined
      : new LlmError('malformed-output', reason, { provider: this.config.kind });
  }

  /** The error as the caller sees it: no key in it, and what the failed call cost. */
  private failure(e: unknown, spent: Spent): LlmError {
    const out = scrub(e, this.config.apiKey, this.config.kind);
    if (out.kind !== 'cancelled' || spent.httpCalls > 0) out.spent = { ...spent };
    return out;
  }

  async complete(request: JudgeRequest): Promise<JudgeResponse> {
    const spent = newSpent();
    try {
      if (request.signal?.aborted) throw cancelledError();
      const usableHit = async () => {
        const { key, hit } = await this.cached(request);
        return { key, hit: hit && !this.rejected(request, hit) ? hit : undefined };
      };
      const { key, hit } = await usableHit();
      if (hit) return hit;
      return await this.oneAtATime(
        key,
        async () => (await usableHit()).hit,
        async () => {
          this.needsKey();
          const plan = request.json
            ? jsonPlan(request.json, currentTraits(this.config), this.config.kind)
            : undefined;
          const result = await this.run(request, plan, spent);
          assertUsable(result.choices, this.ctx());
          const response = this.response(result);
          const rejected = this.rejected(request, response);
          if (rejected) throw rejected;
          await this.store(key, response);
          return response;
        },
      );
    } catch (e) {
      throw this.failure(e, spent);
    }
  }

  async forget(
    request: Pick<JudgeRequest, 'cacheKey' | 'json' | 'temperature' | 'n' | 'topLogprobs'>,
  ): Promise<void> {
    const cache = this.options.cache;
    if (!cache?.delete || request.cacheKey === undefined) return;
    await cache.delete(await cacheKeyFor(this.config, request)).catch(() => undefined);
  }

  async completeJson<T>(
    request: JudgeRequest & { json: JsonOutputSpec<T> },
  ): Promise<{ value: T; response: JudgeResponse }> {
    const spent = newSpent();
    try {
      if (request.signal?.aborted) throw cancelledError();
      const schema = request.json.schema;
      const parsedHit = async () => {
        const { key, hit } = await this.cached(request);
        const parsed = hit ? parseJsonReply(hit.choices[0]?.text ?? '', schema) : undefined;
        // A stale entry (the schema changed since) is simply recomputed.
        return { key, hit: hit && parsed?.ok ? { value: parsed.value, response: hit } : undefined };
      };
      const { key, hit } = await parsedHit();
      if (hit) return hit;
      return await this.oneAtATime(
        key,
        async () => (await parsedHit()).hit,
        () => this.fetchJson(request, key, spent),
      );
    } catch (e) {
      throw this.failure(e, spent);
    }
  }

  /** completeJson past the cache: the call, one repair round, the store. */
  private async fetchJson<T>(
    request: JudgeRequest & { json: JsonOutputSpec<T> },
    key: string | undefined,
    spent: Spent,
  ): Promise<{ value: T; response: JudgeResponse }> {
    const schema = request.json.schema;
    this.needsKey();
    const ctx = this.ctx();
    const plan = jsonPlan(request.json, currentTraits(this.config), this.config.kind);
    const first = await this.run(request, plan, spent);
    const choice = first.choices[0];
    if (!jsonUsable(choice)) throw finishError(choice, ctx);
    let parsed = parseJsonReply(choice.text, schema);
    let result = first;
    if (!parsed.ok) {
      const repairPlan = jsonPlan(request.json, currentTraits(this.config), this.config.kind);
      const repair = await this.run(
        {
          ...request,
          n: 1,
          cacheKey: undefined,
          messages: [
            ...request.messages,
            { role: 'assistant', content: choice.text },
            {
              role: 'user',
              content:
                `Your reply did not match the required JSON schema: ${parsed.issues}. Reply with valid JSON only.` +
                // Some compatible servers ignore response_format silently: then the model has
                // never seen the schema. (In text mode run() appends it anyway.)
                (repairPlan.instructionSchema
                  ? ''
                  : `\nThe schema:\n${JSON.stringify(toJsonSchema(schema))}`),
            },
          ],
        },
        repairPlan,
        spent,
      );
      const fixed = repair.choices[0];
      if (!jsonUsable(fixed)) throw finishError(fixed, ctx);
      parsed = parseJsonReply(fixed.text, schema);
      result = {
        choices: [fixed, ...first.choices.slice(1)],
        usage: addUsage(first.usage, repair.usage),
        calls: first.calls + repair.calls,
        model: first.model ?? repair.model,
      };
      if (!parsed.ok) {
        throw new LlmError(
          'malformed-output',
          `${this.config.model}'s answer did not match the expected structure, even after one repair request: ${parsed.issues}.`,
          { provider: this.config.kind },
        );
      }
    }
    const response = this.response(result);
    await this.store(key, response);
    return { value: parsed.value, response };
  }

  /**
   * One request per cache key at a time: a caller that asks what another caller is fetching right
   * now waits for that answer and reads it from the cache (the rows of a run share G-Eval's
   * evaluation steps; four rows at once would otherwise ask for them four times). If the first
   * caller fails, the next one asks itself.
   */
  private async oneAtATime<T>(
    key: string | undefined,
    fromCache: () => Promise<T | undefined>,
    fetchIt: () => Promise<T>,
  ): Promise<T> {
    if (key === undefined) return fetchIt();
    for (let pending = this.inFlight.get(key); pending; pending = this.inFlight.get(key)) {
      await pending.catch(() => undefined);
      const answer = await fromCache();
      if (answer !== undefined) return answer;
    }
    const mine = fetchIt();
    this.inFlight.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.inFlight.get(key) === mine) this.inFlight.delete(key);
    }
  }

  async capabilities(
    signal?: AbortSignal,
    onSpent?: (spent: Spent) => void,
  ): Promise<Capabilities> {
    const spent = newSpent();
    try {
      if (this.configError) throw this.configError;
      if (this.config.kind !== 'openai-compatible' && !this.config.apiKey) {
        return capabilitiesFromTraits(currentTraits(this.config));
      }
      return await probeCapabilities(this.config, (call, s) => this.send(call, s, spent), {
        signal,
        store: this.options.capabilityStore,
      });
    } catch (e) {
      throw this.failure(e, spent);
    } finally {
      if (spent.httpCalls > 0) onSpent?.(spent);
    }
  }
}

export function createJudge(config: ProviderConfig, options: JudgeOptions = {}): Judge {
  return new FetchJudge(config, options);
}

export interface ConnectionResult {
  ok: boolean;
  /** The model the server says answered (may be a dated version of the configured name). */
  model: string;
  message: string;
  /** Why it failed, for the UI to pick a hint. */
  kind?: LlmErrorKind;
}

/** One tiny call for the settings page's "Test connection" button. */
export async function testConnection(
  config: ProviderConfig,
  options: JudgeOptions & { signal?: AbortSignal } = {},
): Promise<ConnectionResult> {
  try {
    const judge = createJudge(config, {
      maxAttempts: 2,
      timeoutMs: 30_000,
      ...options,
      cache: undefined,
    });
    const res = await judge.complete({
      messages: [{ role: 'user', content: 'Reply with the word OK.' }],
      maxTokens: 16,
      signal: options.signal,
    });
    return { ok: true, model: res.model, message: `Connected: ${res.model} answered.` };
  } catch (e) {
    const err = scrub(e, config.apiKey, config.kind);
    // The API answered, just not with text (a reasoning model spent 16 tokens thinking): the key,
    // the model and the connection all work.
    if (['truncated', 'refusal', 'content-filter', 'malformed-output'].includes(err.kind)) {
      return { ok: true, model: config.model, message: `Connected: ${config.model} answered.` };
    }
    return { ok: false, model: config.model, message: err.message, kind: err.kind };
  }
}
