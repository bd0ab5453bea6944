/**
 * The collecting judge: a Judge that answers from the response cache and from the batch answers
 * downloaded so far, and otherwise writes the request down for the next batch job and makes the
 * call fail with a BatchDeferredError.
 *
 * It is the interactive client itself (createJudge) with one difference: its `fetch` never goes
 * out. So the request bodies are exactly those an interactive call would send (the JSON plan,
 * the model's traits, `n` spread over calls, the repair round of a reply that misses its schema),
 * and an answer from a job is parsed, checked and stored in the cache under the very key an
 * interactive call uses, by the same code. A later interactive run of the same rows then finds
 * every answer in the cache.
 */
import { english, ref } from '../../i18n/message.ts';
import { capabilitiesFromTraits } from '../traits.ts';
import { currentTraits } from '../capabilities.ts';
import { cacheKeyFor, canonicalJson, type ResponseCache } from '../cache.ts';
import { createJudge } from '../judge.ts';
import {
  LlmError,
  type Capabilities,
  type JsonOutputSpec,
  type Judge,
  type JudgeRequest,
  type JudgeResponse,
  type ProviderConfig,
} from '../types.ts';
import type { BatchLine, BatchWire, LineResult } from './wire.ts';

/** A call whose answer will come from a batch job: the row waits for the next round. */
export class BatchDeferredError extends LlmError {
  constructor() {
    super('cancelled', english('llm.batch.deferred'), { messageRef: ref('llm.batch.deferred') });
    this.name = 'BatchDeferredError';
  }
}

/** A request the job answered without an answer (errored without a body, expired, cancelled). */
export class BatchLineError extends LlmError {
  constructor(
    readonly customId: string,
    reason: string,
    config: ProviderConfig,
  ) {
    const values = { id: customId, reason };
    super('server', english('llm.batch.lineFailed', values), {
      provider: config.kind,
      messageRef: ref('llm.batch.lineFailed', values),
    });
    this.name = 'BatchLineError';
  }
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The fence id drawn per call (metrics/judge/fence.ts) changes every body; it says nothing. */
const FENCE_ID = /\bs_[0-9a-f]{6}\b/gu;

/**
 * The id of one HTTP request of one judge call, the same in every run: the call's cache key, its
 * place among the call's requests (samples, a repair round), and what the body asks for, without
 * the fence id (a body that asks something else, after a capability was learned, is another
 * request).
 */
export async function customIdFor(
  cacheKey: string,
  ordinal: number,
  body: unknown,
): Promise<string> {
  const shape = canonicalJson(body).replace(FENCE_ID, 's_');
  return `sl-${(await sha256Hex(`${cacheKey}|${ordinal}|${shape}`)).slice(0, 48)}`;
}

interface CallState {
  missed: boolean;
  failed?: BatchLineError;
  ordinal: number;
}

export class BatchCollector {
  /** Requests no cache and no job has answered yet, by custom id. */
  readonly misses = new Map<string, BatchLine>();

  constructor(
    private readonly config: ProviderConfig,
    private readonly wire: BatchWire,
    private readonly cache: ResponseCache,
    private readonly answers: ReadonlyMap<string, LineResult>,
    /**
     * What the model can do, as the interactive judge that reads these answers later will say:
     * G-Eval asks for logprobs or for samples by it, so both must agree or the later run's
     * requests miss the cache. Default: the traits table, as before any probe.
     */
    private readonly capabilities: () => Promise<Capabilities> = () =>
      Promise.resolve(capabilitiesFromTraits(currentTraits(config))),
  ) {}

  /** A cache that keeps nothing of a call that met a placeholder or a failed line. */
  private guardedCache(state: CallState): ResponseCache {
    return {
      get: (key) => this.cache.get(key),
      set: (key, response) =>
        state.missed || state.failed ? Promise.resolve() : this.cache.set(key, response),
      delete: (key) => this.cache.delete?.(key) ?? Promise.resolve(),
    };
  }

  private fetchFor(cacheKey: string, state: CallState): typeof fetch {
    return async (_input, init) => {
      const ordinal = state.ordinal++;
      const body = JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>;
      const customId = await customIdFor(cacheKey, ordinal, body);
      const answer = this.answers.get(customId);
      const json = (value: unknown, status = 200) =>
        new Response(JSON.stringify(value), {
          status,
          headers: { 'content-type': 'application/json' },
        });
      if (answer && 'status' in answer) return json(answer.body, answer.status);
      if (answer) state.failed ??= new BatchLineError(customId, answer.failed, this.config);
      else {
        state.missed = true;
        this.misses.set(customId, { customId, body });
      }
      return json(this.wire.placeholder(body));
    };
  }

  private async call<T>(request: JudgeRequest, ask: (judge: Judge) => Promise<T>): Promise<T> {
    // Every judge metric gives its calls a cache key; a call without one (never cached) is
    // matched on its messages, fence ids left out.
    const cacheKey =
      request.cacheKey !== undefined
        ? await cacheKeyFor(this.config, request)
        : await sha256Hex(canonicalJson(request.messages).replace(FENCE_ID, 's_'));
    const state: CallState = { missed: false, ordinal: 0 };
    const judge = createJudge(this.config, {
      cache: this.guardedCache(state),
      fetch: this.fetchFor(cacheKey, state),
      maxAttempts: 1,
      sleep: async () => undefined,
    });
    try {
      const out = await ask(judge);
      if (state.failed) throw state.failed;
      if (state.missed) throw new BatchDeferredError();
      return out;
    } catch (e) {
      if (state.failed) throw state.failed;
      if (state.missed) throw new BatchDeferredError();
      throw e;
    }
  }

  /** The judge the rows of one round use. */
  judge(): Judge {
    const config = this.config;
    return {
      provider: config.kind,
      model: config.model,
      complete: (request: JudgeRequest): Promise<JudgeResponse> =>
        this.call(request, (judge) => judge.complete(request)),
      completeJson: <T>(request: JudgeRequest & { json: JsonOutputSpec<T> }) =>
        this.call(request, (judge) => judge.completeJson<T>(request)),
      capabilities: (): Promise<Capabilities> => this.capabilities(),
      forget: (request) => createJudge(config, { cache: this.cache }).forget!(request),
    };
  }
}
