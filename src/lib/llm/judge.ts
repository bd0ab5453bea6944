/**
 * The Judge: the public face of the client. A request is served from the response cache where it
 * can be, asked once at a time per cache key (concurrent rows share one answer), sent through the
 * sampler and the transport, checked (the caller's `accept`, JSON parsing with one repair round),
 * stored, and any error leaves with the key scrubbed out and what the call cost.
 */
import { wordedError } from './errors.ts';
import { englishRef } from '../i18n/message.ts';
import { assertUsable, finishError, jsonUsable, scrub } from './answers.ts';
import { ArrivalJournal } from './arrivals.ts';
import { cacheKeyFor, type ResponseCache } from './cache.ts';
import {
  capabilitiesFromTraits,
  currentTraits,
  probeCapabilities,
  type CapabilityStore,
} from './capabilities.ts';
import { toJsonSchema } from './json-schema.ts';
import { jsonPlan } from './json-request.ts';
import { parseJsonReply } from './parse-json.ts';
import { PROVIDERS } from './providers/registry.ts';
import { Sampler } from './sampling.ts';
import { cancelledError } from './backoff.ts';
import {
  addUsage,
  newSpent,
  Transport,
  type CallResult,
  type TransportOptions,
} from './transport.ts';
import {
  LlmError,
  type Capabilities,
  type JsonOutputSpec,
  type Judge,
  type JudgeRequest,
  type JudgeResponse,
  type ProviderConfig,
  type Spent,
} from './types.ts';

export interface JudgeOptions extends TransportOptions {
  /** Content-addressed response cache, used when a request has a `cacheKey`. */
  cache?: ResponseCache;
  /** Where probe results persist between sessions (the app backs it with IndexedDB). */
  capabilityStore?: CapabilityStore;
}

class FetchJudge implements Judge {
  readonly provider: ProviderConfig['kind'];
  readonly model: string;
  private readonly transport: Transport;
  private readonly sampler: Sampler;
  /** Requests being fetched now, by cache key (see oneAtATime). */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly config: ProviderConfig,
    private readonly options: JudgeOptions,
  ) {
    this.provider = config.kind;
    this.model = config.model;
    this.transport = new Transport(config, options);
    this.sampler = new Sampler(config, this.transport);
  }

  private needsKey(): void {
    if (this.transport.configError) throw this.transport.configError;
    if (this.transport.fatal) throw this.transport.fatal;
    if (PROVIDERS[this.config.kind].keyRequired && !this.config.apiKey) {
      throw wordedError(
        'auth',
        'llm.error.noKey',
        { who: this.transport.ctx().name },
        { provider: this.config.kind },
      );
    }
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

  /** Whether the response is now in the cache. */
  private async store(key: string | undefined, response: JudgeResponse): Promise<boolean> {
    if (!key || !this.options.cache) return false;
    // A cache that fails to write must not fail the judgement that was already paid for.
    return this.options.cache.set(key, { ...response, fromCache: false }).then(
      () => true,
      () => false,
    );
  }

  /**
   * `fetchIt` with each of its HTTP answers kept as it arrives, under the call's cache key
   * (arrivals.ts), and let go once the call is over. `fetchIt` says whether it stored its answer.
   */
  private async journaled<T>(
    key: string | undefined,
    fetchIt: (journal: ArrivalJournal | undefined) => Promise<{ out: T; stored: boolean }>,
  ): Promise<T> {
    const store = this.options.cache?.arrivals;
    const journal =
      key !== undefined && store ? new ArrivalJournal(store, key, this.config) : undefined;
    try {
      const { out, stored } = await fetchIt(journal);
      await journal?.settle({ stored });
      return out;
    } catch (error) {
      await journal?.settle({ error });
      throw error;
    }
  }

  /** The caller's `accept` check as an error, or undefined when the reply is usable. */
  private rejected(request: JudgeRequest, response: JudgeResponse): LlmError | undefined {
    const reason = request.accept?.(response);
    if (reason === undefined) return undefined;
    return typeof reason === 'string'
      ? new LlmError('malformed-output', reason, { provider: this.config.kind })
      : new LlmError('malformed-output', englishRef(reason), {
          provider: this.config.kind,
          messageRef: reason,
        });
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
          return this.journaled(key, async (journal) => {
            const result = await this.sampler.run(request, plan, spent, journal);
            assertUsable(result.choices, this.transport.ctx());
            const response = this.response(result);
            const rejected = this.rejected(request, response);
            if (rejected) throw rejected;
            return { out: response, stored: await this.store(key, response) };
          });
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
        () => {
          this.needsKey();
          return this.journaled(key, (journal) => this.fetchJson(request, key, spent, journal));
        },
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
    journal: ArrivalJournal | undefined,
  ): Promise<{ out: { value: T; response: JudgeResponse }; stored: boolean }> {
    const schema = request.json.schema;
    const ctx = this.transport.ctx();
    const plan = jsonPlan(request.json, currentTraits(this.config), this.config.kind);
    const first = await this.sampler.run(request, plan, spent, journal);
    const choice = first.choices[0];
    if (!jsonUsable(choice)) throw finishError(choice, ctx);
    let parsed = parseJsonReply(choice.text, schema);
    let result = first;
    if (!parsed.ok) {
      const repairPlan = jsonPlan(request.json, currentTraits(this.config), this.config.kind);
      const repair = await this.sampler.run(
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
        journal,
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
        throw wordedError(
          'malformed-output',
          'llm.error.badStructure',
          { model: this.config.model, issues: parsed.issues },
          { provider: this.config.kind },
        );
      }
    }
    const response = this.response(result);
    const stored = await this.store(key, response);
    return { out: { value: parsed.value, response }, stored };
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
      if (this.transport.configError) throw this.transport.configError;
      if (PROVIDERS[this.config.kind].keyRequired && !this.config.apiKey) {
        return capabilitiesFromTraits(currentTraits(this.config));
      }
      return await probeCapabilities(
        this.config,
        (call, s) => this.transport.send(call, s, spent),
        {
          signal,
          store: this.options.capabilityStore,
        },
      );
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
