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
import { cacheKeyFor, fencelessJson, sha256Hex, type ResponseCache } from '../cache.ts';
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
  const shape = fencelessJson(body);
  return `sl-${(await sha256Hex(`${cacheKey}|${ordinal}|${shape}`)).slice(0, 48)}`;
}

interface CallState {
  missed: boolean;
  failed?: BatchLineError;
  ordinal: number;
  /** Answers this call read from the jobs: forgotten once the call's result is in the cache. */
  consumed: string[];
}

/**
 * Where a round writes down the requests no cache and no job has answered, until they go up as
 * jobs. In memory by default; the CLI spools them to a file, so a round of 10⁵ rows holds ids,
 * not prompt bodies.
 */
export interface MissSpool {
  readonly size: number;
  has(customId: string): boolean;
  add(line: BatchLine): void;
  /** Every line written down, in order. */
  lines(): AsyncIterable<BatchLine>;
  /** Forgets every line (the round's jobs are submitted). */
  clear(): Promise<void>;
}

export class MemoryMissSpool implements MissSpool {
  private readonly map = new Map<string, BatchLine>();
  get size(): number {
    return this.map.size;
  }
  has(customId: string): boolean {
    return this.map.has(customId);
  }
  add(line: BatchLine): void {
    if (!this.map.has(line.customId)) this.map.set(line.customId, line);
  }
  async *lines(): AsyncIterable<BatchLine> {
    yield* this.map.values();
  }
  async clear(): Promise<void> {
    this.map.clear();
  }
}

/** What one row's calls met in a round: a request still to be asked keeps the row for the next. */
export interface RowTrack {
  deferred: boolean;
}

export class BatchCollector {
  /** Requests no cache and no job has answered yet. */
  readonly misses: MissSpool;
  /**
   * Answers a call read and stored in the cache under its key: the engine lets them go once the
   * round's pass is over (later passes read the cache). Not sooner: another row may be asking
   * the same request right now, before the cache has it, and would send it again.
   */
  readonly settled = new Set<string>();

  constructor(
    private readonly config: ProviderConfig,
    private readonly wire: BatchWire,
    private readonly cache: ResponseCache,
    /** The jobs' answers by custom id. */
    private readonly answers: ReadonlyMap<string, LineResult>,
    /**
     * What the model can do, as the interactive judge that reads these answers later will say:
     * G-Eval asks for logprobs or for samples by it, so both must agree or the later run's
     * requests miss the cache. Default: the traits table, as before any probe.
     */
    private readonly capabilities: () => Promise<Capabilities> = () =>
      Promise.resolve(capabilitiesFromTraits(currentTraits(config))),
    misses: MissSpool = new MemoryMissSpool(),
  ) {
    this.misses = misses;
  }

  /** A cache that keeps nothing of a call that met a placeholder or a failed line. */
  private guardedCache(state: CallState): ResponseCache {
    return {
      get: (key) => this.cache.get(key),
      set: async (key, response) => {
        if (state.missed || state.failed) return;
        await this.cache.set(key, response);
        for (const id of state.consumed) this.settled.add(id);
      },
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
      if (answer && 'status' in answer) {
        state.consumed.push(customId);
        return json(answer.body, answer.status);
      }
      if (answer) state.failed ??= new BatchLineError(customId, answer.failed, this.config);
      else {
        state.missed = true;
        this.misses.add({ customId, body });
      }
      return json(this.wire.placeholder(body));
    };
  }

  private async call<T>(
    request: JudgeRequest,
    ask: (judge: Judge) => Promise<T>,
    track: RowTrack | undefined,
  ): Promise<T> {
    // Every judge metric gives its calls a cache key; a call without one (never cached) is
    // matched on its messages, fence ids left out.
    const cacheKey =
      request.cacheKey !== undefined
        ? await cacheKeyFor(this.config, request)
        : await sha256Hex(fencelessJson(request.messages));
    const state: CallState = { missed: false, ordinal: 0, consumed: [] };
    const judge = createJudge(this.config, {
      cache: this.guardedCache(state),
      fetch: this.fetchFor(cacheKey, state),
      maxAttempts: 1,
      sleep: async () => undefined,
    });
    const throwUnlessAnswered = (): void => {
      if (state.failed) throw state.failed;
      if (state.missed) {
        if (track) track.deferred = true;
        throw new BatchDeferredError();
      }
    };
    try {
      const out = await ask(judge);
      throwUnlessAnswered();
      return out;
    } catch (e) {
      throwUnlessAnswered();
      throw e;
    }
  }

  /**
   * The judge the rows of one round use; give each row its own `track` to learn whether the row
   * is final (no request of it is still to be asked) or waits for the next round.
   */
  judge(track?: RowTrack): Judge {
    const config = this.config;
    return {
      provider: config.kind,
      model: config.model,
      complete: (request: JudgeRequest): Promise<JudgeResponse> =>
        this.call(request, (judge) => judge.complete(request), track),
      completeJson: <T>(request: JudgeRequest & { json: JsonOutputSpec<T> }) =>
        this.call(request, (judge) => judge.completeJson<T>(request), track),
      capabilities: (): Promise<Capabilities> => this.capabilities(),
      forget: (request) => createJudge(config, { cache: this.cache }).forget!(request),
    };
  }
}

/**
 * The judge rows are scored with once their batch jobs are done: every answer comes from the
 * cache the jobs filled. A request no job answered fails its call instead of going out at the
 * standard price: with the line's own reason where the run still has it (`failures`, the failed
 * lines of this process's jobs), else as unanswered.
 */
export function answersOnlyJudge(
  config: ProviderConfig,
  wire: BatchWire,
  cache: ResponseCache,
  capabilities: () => Promise<Capabilities>,
  failures: ReadonlyMap<string, LineResult> = new Map(),
): Judge {
  const judge = new BatchCollector(config, wire, cache, failures, capabilities).judge();
  const unanswered = (error: unknown): never => {
    if (!(error instanceof BatchDeferredError)) throw error;
    throw new LlmError('cancelled', english('llm.batch.unanswered'), {
      provider: config.kind,
      messageRef: ref('llm.batch.unanswered'),
    });
  };
  return {
    ...judge,
    complete: (request) => judge.complete(request).catch(unanswered),
    completeJson: (request) => judge.completeJson(request).catch(unanswered),
  };
}
