/**
 * What is asked of a model, given what it accepts: `n` samples spread over as many calls as the
 * model needs (in parallel, under the limiter; the first failure cancels the rest), and every
 * parameter the model refuses (logprobs, top_logprobs, n, temperature, a schema, a thinking
 * config) remembered and dropped before asking again.
 */
import type { ArrivalJournal } from './arrivals.ts';
import { currentTraits, learnRefusal } from './capabilities.ts';
import { CapabilityError } from './errors.ts';
import { withJsonInstruction, type JsonPlan } from './json-request.ts';
import type { WireCall } from './providers/shared.ts';
import { cancelledError } from './backoff.ts';
import { addUsage, type CallResult, type Transport } from './transport.ts';
import type { JudgeRequest, ProviderConfig, Spent, TokenUsage } from './types.ts';

/** Several calls' choices, usage and call counts as one result. */
export function merge(results: CallResult[]): CallResult {
  return {
    choices: results.flatMap((r) => r.choices),
    usage: results.reduce<TokenUsage>((u, r) => addUsage(u, r.usage), { input: 0, output: 0 }),
    calls: results.reduce((c, r) => c + r.calls, 0),
    model: results.find((r) => r.model)?.model,
  };
}

export class Sampler {
  constructor(
    private readonly config: ProviderConfig,
    private readonly transport: Transport,
  ) {}

  /**
   * `send`, adapting once per refused parameter: the model said it does not take logprobs, `n`,
   * a temperature, a schema or a thinking config, so remember that and ask again without it.
   */
  private async sendAdaptive(
    call: WireCall,
    signal: AbortSignal | undefined,
    instruction: object | undefined,
    spent: Spent,
    journal: ArrivalJournal | undefined,
  ): Promise<CallResult> {
    let current = call;
    let refused = 0;
    for (let round = 0; ; round++) {
      try {
        const result = await this.transport.send(current, signal, spent, journal);
        return { ...result, calls: result.calls + refused };
      } catch (e) {
        if (!(e instanceof CapabilityError) || round >= 5) throw e;
        refused++;
        const next = this.downgrade(current, e, instruction);
        if (!next) throw e;
        if (next === 'split') return this.splitN(current, signal, refused, spent, journal);
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
    journal: ArrivalJournal | undefined,
  ): Promise<CallResult> {
    const results = await this.parallel(
      Array.from({ length: call.n }, () => ({ ...call, n: 1 })),
      signal,
      spent,
      journal,
    );
    const merged = merge(results);
    return { ...merged, calls: merged.calls + refused };
  }

  private async parallel(
    calls: WireCall[],
    signal: AbortSignal | undefined,
    spent: Spent,
    journal: ArrivalJournal | undefined,
  ): Promise<CallResult[]> {
    if (calls.length === 1) {
      return [await this.sendAdaptive(calls[0], signal, undefined, spent, journal)];
    }
    const group = new AbortController();
    const onAbort = () => group.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) group.abort();
    try {
      return await Promise.all(
        calls.map((c) =>
          this.sendAdaptive(c, group.signal, undefined, spent, journal).catch((e: unknown) => {
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

  /**
   * The request as the model can take it right now, then `n` spread over calls; with a
   * `journal`, each of them kept as it arrives (arrivals.ts).
   */
  async run(
    request: JudgeRequest,
    json: JsonPlan | undefined,
    spent: Spent,
    journal?: ArrivalJournal,
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
    if (n === 1) return this.sendAdaptive(base, request.signal, instruction, spent, journal);
    const per = Math.max(1, traits.maxN);
    const sizes: number[] = [];
    for (let left = n; left > 0; left -= per) sizes.push(Math.min(per, left));
    const firstRound = merge(
      await this.parallel(
        sizes.map((size) => ({ ...base, n: size })),
        request.signal,
        spent,
        journal,
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
        journal,
      ),
    );
    return merge([firstRound, topUp]);
  }
}
