/**
 * A run's plan as a ceiling: the run pauses (resumable, nothing lost) once its requests reach the
 * planned count or its spend the planned cost, or a budget the user set instead. The gate sits
 * under the judge's transport (its `fetch`), so it sees every HTTP request the provider would
 * see, retries, top-up samples and a probe included, and prices each answer from the usage the
 * provider reports. A refused request never leaves the page: the transport reads it as a 402,
 * which stops the run's other calls at once (`stopOnFatal`), and the row scorer reports the
 * ceiling as the reason the run paused.
 */
import { englishRef, ref, type MessageRef } from '../i18n/message.ts';
import { anthropicUsage } from '../llm/providers/anthropic.ts';
import { geminiUsage } from '../llm/providers/gemini.ts';
import { chatUsage } from '../llm/providers/openai.ts';
import type { ProviderKind, TokenUsage } from '../llm/types.ts';
import type { JudgeUsage, RunCeiling } from '../storage/schema.ts';
import type { BatchPlan } from './batch-plan.ts';

export type { RunCeiling } from '../storage/schema.ts';

/** What the user set in the run setup (remembered per device: state/judge-prefs.ts). */
export interface RunBudget {
  usd?: number;
  requests?: number;
}

/**
 * The ceiling a run starts with: the user's budget where set, else the plan's own figures. No
 * ceiling without judge metrics; no cost ceiling where the model has no price (the requests still
 * count).
 */
export function ceilingFor(plan: BatchPlan, budget: RunBudget = {}): RunCeiling | undefined {
  if (plan.judgeMetrics.length === 0 || plan.rows === 0) return undefined;
  const plannedCost = plan.costKnown ? plan.estimatedCost : undefined;
  const requests = budget.requests ?? (plan.llmCalls > 0 ? plan.llmCalls : undefined);
  const costUsd = budget.usd ?? plannedCost;
  return {
    ...(requests !== undefined ? { requests } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    plannedRequests: plan.llmCalls,
    ...(plannedCost !== undefined ? { plannedCostUsd: plannedCost } : {}),
    plannedPerRow: plan.requestsPerRow,
    plannedPerRun: plan.requestsPerRun,
    ...(budget.requests !== undefined ? { requestsSet: true } : {}),
  };
}

/**
 * The ceiling of one drive of a run: the stored one, but a request ceiling taken from the plan is
 * never below what the rows left need at the plan's rate. A pause drops the rows in flight, and
 * scoring them again may ask again what their dropped requests had asked; a budget the user set
 * stays as set.
 */
export function driveCeiling(
  ceiling: RunCeiling | undefined,
  sentBefore: number,
  rowsLeft: number,
): RunCeiling | undefined {
  if (!ceiling || ceiling.requestsSet || ceiling.requests === undefined) return ceiling;
  if (ceiling.plannedPerRow === undefined) return ceiling;
  const rest = sentBefore + ceiling.plannedPerRow * rowsLeft + (ceiling.plannedPerRun ?? 0);
  return { ...ceiling, requests: Math.max(ceiling.requests, rest) };
}

/** The usage a provider reports in a success body, by wire format. */
export function reportedUsage(kind: ProviderKind, body: unknown): TokenUsage {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (kind === 'anthropic') return anthropicUsage(record.usage);
  if (kind === 'gemini') return geminiUsage(record.usageMetadata);
  return chatUsage(record.usage);
}

/** Which limit stopped the run, with the figures its words need. */
export interface CeilingReached {
  limit: 'cost' | 'requests';
  /** Requests and USD the run has spent (before this session too). */
  requests: number;
  costUsd: number | undefined;
  ceiling: RunCeiling;
}

/** Status a refused request answers with: read as an exhausted quota, which is never retried. */
const REFUSED_STATUS = 402;

/**
 * Counts a run's requests and spend against its ceiling, from what the run had spent when this
 * session started. One gate per drive of a run.
 */
export class SpendGate {
  readonly #ceiling: RunCeiling | undefined;
  readonly #price: (usage: TokenUsage) => number | undefined;
  #requests: number;
  #cost: number | undefined;
  #reached: CeilingReached | undefined;
  /** Refused requests the transport counted as sent (it counts an attempt before its fetch). */
  #unsent = 0;
  /** Requests admitted and not yet answered. */
  #inFlight = 0;

  constructor(
    ceiling: RunCeiling | undefined,
    spent: Pick<JudgeUsage, 'httpCalls' | 'cost'> | undefined,
    price: (usage: TokenUsage) => number | undefined,
  ) {
    this.#ceiling = ceiling;
    this.#price = price;
    this.#requests = spent?.httpCalls ?? 0;
    // A run whose earlier cost is unknown has an unknown cost from then on.
    this.#cost = spent && spent.httpCalls > 0 ? spent.cost : 0;
  }

  /** Requests answered, and those still in flight. */
  get requests(): number {
    return this.#requests + this.#inFlight;
  }

  get costUsd(): number | undefined {
    return this.#cost;
  }

  /** Set once a request was refused: the run pauses with these figures. */
  get reached(): CeilingReached | undefined {
    return this.#reached;
  }

  /**
   * Whether one more request may go. A request is refused once the requests answered and in
   * flight reach the ceiling, or the spend (of answers received so far) reaches the budget:
   * requests already in flight finish, so the spend may pass the budget by their answers, never
   * by a new request. A request the provider failed (a 429, a 5xx, a dropped connection) is not
   * counted once it has failed: nothing was billed for it, and the plan counts answers, so a run
   * under transient faults retries within its ceiling instead of pausing on them.
   */
  admit(): boolean {
    if (this.#reached) return false;
    const c = this.#ceiling;
    if (!c) {
      this.#inFlight++;
      return true;
    }
    let limit: CeilingReached['limit'] | undefined;
    if (c.requests !== undefined && this.#requests + this.#inFlight >= c.requests) {
      limit = 'requests';
    } else if (c.costUsd !== undefined && this.#cost !== undefined && this.#cost >= c.costUsd) {
      limit = 'cost';
    }
    if (limit) {
      this.#reached = { limit, requests: this.requests, costUsd: this.#cost, ceiling: c };
      return false;
    }
    this.#inFlight++;
    return true;
  }

  /** A request admitted has its answer: counted when the provider answered it. */
  settle(answered: boolean): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    if (answered) this.#requests++;
  }

  /** Adds an answer's reported usage to the spend. */
  record(usage: TokenUsage): void {
    if (this.#cost === undefined) return;
    const cost = this.#price(usage);
    this.#cost = cost === undefined ? undefined : this.#cost + cost;
  }

  /**
   * `base` behind the gate: a refused request is answered here (402, never sent); every answer's
   * usage is priced before the transport reads it, so the next request is admitted on it.
   */
  fetch(kind: ProviderKind, base: typeof fetch = (i, init) => globalThis.fetch(i, init)) {
    const gated: typeof fetch = async (input, init) => {
      if (!this.admit()) {
        this.#unsent++;
        return new Response(
          JSON.stringify({ error: { message: englishRef(this.pauseReason()), type: 'budget' } }),
          { status: REFUSED_STATUS, headers: { 'content-type': 'application/json' } },
        );
      }
      let response: Response;
      try {
        response = await base(input, init);
      } catch (error) {
        this.settle(false);
        throw error;
      }
      this.settle(response.ok);
      if (response.ok) {
        try {
          const text = await response.clone().text();
          this.record(reportedUsage(kind, JSON.parse(text.trim())));
        } catch {
          // A body cut or garbled on the way: the transport reports it; it had no usage to count.
        }
      }
      return response;
    };
    return gated;
  }

  /**
   * Takes back, up to `max`, the refused requests a row's usage counts as sent: they never left
   * the page. (Only the first refusals reach the fetch: the transport then stops sending.)
   */
  takeUnsent(max: number): number {
    const taken = Math.min(this.#unsent, Math.max(0, max));
    this.#unsent -= taken;
    return taken;
  }

  /** Why the run paused, for its line in the list; a generic line before any refusal. */
  pauseReason(): MessageRef {
    const reached = this.#reached;
    return reached ? ceilingPauseRef(reached) : ref('plan.paused.generic');
  }
}

/** Dollars as the pause message writes them: four decimals below a cent. */
export function usd(value: number): string {
  return `$${value.toFixed(value < 0.01 ? 4 : 2)}`;
}

/** "paused: reached the budget of $0.01 — 41 of 41 planned requests sent; …". */
export function ceilingPauseRef(reached: CeilingReached): MessageRef {
  const c = reached.ceiling;
  const values = {
    sent: reached.requests,
    planned: c.plannedRequests,
    spent: reached.costUsd === undefined ? '?' : usd(reached.costUsd),
  };
  return reached.limit === 'cost'
    ? ref('plan.paused.cost', { ...values, budget: usd(c.costUsd ?? 0) })
    : ref('plan.paused.requests', { ...values, limit: c.requests ?? 0 });
}

/** Whether a stored run paused at its ceiling (its Resume then asks for a choice). */
export function pausedAtCeiling(run: {
  status: string;
  messageRef?: MessageRef | undefined;
}): boolean {
  return (
    run.status === 'paused' &&
    (run.messageRef?.key === 'plan.paused.cost' || run.messageRef?.key === 'plan.paused.requests')
  );
}
