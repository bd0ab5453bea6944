/**
 * The ceiling: a run's requests stop at its planned count or its spend at the budget (priced
 * from the usage the provider reports), counted under the judge's fetch so that retries and
 * top-up samples count too; the run pauses (rows not stored, nothing lost) with a reason that
 * names the limit, and goes on under a raised ceiling. Against the loopback fake provider.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ceilingFor,
  driveCeiling,
  pausedAtCeiling,
  SpendGate,
  type RunCeiling,
} from '../../../src/lib/datasets/run-ceiling.ts';
import {
  pageRowScorer,
  runBatch,
  type BatchStore,
  planBatch,
} from '../../../src/lib/datasets/batch.ts';
import { MemoryResponseCache } from '../../../src/lib/llm/cache.ts';
import { createJudge } from '../../../src/lib/llm/client.ts';
import { resetCapabilityCache } from '../../../src/lib/llm/capabilities.ts';
import { resetLimiters } from '../../../src/lib/llm/limiter.ts';
import { estimateCost } from '../../../src/lib/llm/prices.ts';
import type { ProviderConfig, TokenUsage } from '../../../src/lib/llm/types.ts';
import { englishRef, type MessageRef } from '../../../src/lib/i18n/message.ts';
import { planJudgeRun } from '../../../src/lib/metrics/judge/plan.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import type { CaseRow } from '../../../src/lib/rows/formats.ts';
import type { RunStatus, StoredRunResult } from '../../../src/lib/storage/schema.ts';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.ts';
import { oracleHandler, promptOfWire } from '../../helpers/judge-oracle.ts';

const perRequest = (usage: TokenUsage) => usage.input * 0.001 + usage.output * 0.002;

describe('SpendGate', () => {
  it('does not count a request the provider failed: a retry under faults stays within the plan', async () => {
    const gate = new SpendGate({ requests: 2, plannedRequests: 2 }, undefined, perRequest);
    const answers = [503, 429, 200, 200, 200];
    const fetch = gate.fetch('openai', async () => {
      const status = answers.shift()!;
      return new Response(JSON.stringify({ usage: { prompt_tokens: 1, completion_tokens: 1 } }), {
        status,
      });
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await fetch('http://127.0.0.1/x')).status);
    // Two failures, two answers, then the ceiling of two answered requests refuses the fifth.
    expect(statuses).toEqual([503, 429, 200, 200, 402]);
    expect(gate.reached).toMatchObject({ limit: 'requests', requests: 2 });
  });

  const ceiling: RunCeiling = { requests: 3, plannedRequests: 3 };

  it('admits the planned requests, refuses the next and says which limit', () => {
    const gate = new SpendGate(ceiling, undefined, perRequest);
    expect([gate.admit(), gate.admit(), gate.admit()]).toEqual([true, true, true]);
    expect(gate.reached).toBeUndefined();
    expect(gate.admit()).toBe(false);
    expect(gate.reached).toMatchObject({ limit: 'requests', requests: 3 });
    expect(englishRef(gate.pauseReason())).toMatch(
      /^Paused: reached the ceiling of 3 requests — 3 of 3 planned requests sent/u,
    );
    // Refused once, refused for good in this drive.
    expect(gate.admit()).toBe(false);
  });

  it('stops at the budget once the reported spend reaches it', () => {
    const gate = new SpendGate({ costUsd: 0.05, plannedRequests: 10 }, undefined, perRequest);
    expect(gate.admit()).toBe(true);
    gate.record({ input: 20, output: 5 }); // 0.03
    expect(gate.admit()).toBe(true);
    gate.record({ input: 20, output: 5 }); // 0.06 ≥ 0.05
    expect(gate.admit()).toBe(false);
    expect(gate.reached).toMatchObject({ limit: 'cost', requests: 2 });
    expect(englishRef(gate.pauseReason())).toBe(
      'Paused: reached the budget of $0.05 — 2 of 10 planned requests sent ($0.06 spent); raise the budget or resume once past it.',
    );
  });

  it('counts from what the run spent before this session', () => {
    const gate = new SpendGate(ceiling, { httpCalls: 2, cost: 0.01 }, perRequest);
    expect(gate.admit()).toBe(true);
    expect(gate.admit()).toBe(false);
  });

  it('without a ceiling counts and never refuses; with an unknown price only requests bind', () => {
    const free = new SpendGate(undefined, undefined, perRequest);
    for (let i = 0; i < 100; i++) expect(free.admit()).toBe(true);
    const unpriced = new SpendGate(
      { costUsd: 0.000001, requests: 2, plannedRequests: 2 },
      undefined,
      () => undefined,
    );
    expect(unpriced.admit()).toBe(true);
    unpriced.record({ input: 1000, output: 1000 });
    expect(unpriced.admit()).toBe(true);
    expect(unpriced.admit()).toBe(false);
    expect(unpriced.reached?.limit).toBe('requests');
  });

  it('refuses at the fetch: the base fetch is never called, the answer is a 402', async () => {
    let calls = 0;
    const base: typeof fetch = async () => {
      calls++;
      return new Response(JSON.stringify({ usage: { prompt_tokens: 10, completion_tokens: 2 } }));
    };
    const gate = new SpendGate({ requests: 1, plannedRequests: 1 }, undefined, perRequest);
    const gated = gate.fetch('openai', base);
    expect((await gated('http://x')).status).toBe(200);
    // The answer's reported usage is priced before the transport reads the body.
    expect(gate.costUsd).toBeCloseTo(10 * 0.001 + 2 * 0.002, 12);
    expect((await gated('http://x')).status).toBe(402);
    expect(calls).toBe(1);
  });

  it('the ceiling a run starts with: the budget where set, else the plan', () => {
    const plan = planBatch(4, ['vagueness'], {
      plan: planJudgeRun(['vagueness'], ROWS[0]!.input, DEFAULT_JUDGE_SETTINGS),
      provider: 'openai',
      model: 'gpt-4o-mini',
    });
    expect(ceilingFor(plan)).toEqual({
      requests: plan.llmCalls,
      costUsd: plan.estimatedCost,
      plannedRequests: plan.llmCalls,
      plannedCostUsd: plan.estimatedCost,
      plannedPerRow: plan.requestsPerRow,
      plannedPerRun: plan.requestsPerRun,
    });
    expect(plan.llmCalls).toBe(4 * plan.requestsPerRow + plan.requestsPerRun);
    expect(ceilingFor(plan, { usd: 0.5 })).toMatchObject({ costUsd: 0.5, requests: plan.llmCalls });
    expect(ceilingFor(plan, { requests: 2 })).toMatchObject({ requests: 2, requestsSet: true });
    expect(ceilingFor(planBatch(4, ['rouge-l']))).toBeUndefined();
  });

  it("a drive's request ceiling covers the rows left at the plan's rate, unless the user set it", () => {
    const planned: RunCeiling = {
      requests: 85,
      plannedRequests: 85,
      plannedPerRow: 21,
      plannedPerRun: 1,
    };
    expect(driveCeiling(planned, 0, 4)?.requests).toBe(85);
    // Paused after 5 requests with no row stored: the four rows again, at most 85 more.
    expect(driveCeiling(planned, 5, 4)?.requests).toBe(5 + 84 + 1);
    expect(driveCeiling({ ...planned, requestsSet: true }, 5, 4)?.requests).toBe(85);
    expect(driveCeiling(undefined, 5, 4)).toBeUndefined();
  });

  it('knows a run paused at its ceiling', () => {
    const messageRef = { key: 'plan.paused.cost', values: {} } as unknown as MessageRef;
    expect(pausedAtCeiling({ status: 'paused', messageRef })).toBe(true);
    expect(pausedAtCeiling({ status: 'done', messageRef })).toBe(false);
    expect(pausedAtCeiling({ status: 'paused' })).toBe(false);
  });
});

const ROWS: CaseRow[] = Array.from({ length: 6 }, (_, i) => ({
  row: i + 1,
  kind: 'case',
  human: {},
  input: {
    source: `Report ${i + 1}. The council of Arden closed the old bridge on Monday. Repairs would cost ${i + 2} million euros.`,
    summary: `Arden closed its bridge; repairs cost ${i + 2} million euros. It was a thing that happened somewhere.`,
  },
}));

class MemoryStore implements BatchStore {
  readonly results = new Map<number, StoredRunResult>();
  /** Requests of rows paused unsaved: still sent, still counted. */
  unstoredRequests = 0;
  async addUsage(_id: string, usage: { httpCalls: number }): Promise<void> {
    this.unstoredRequests += usage.httpCalls;
  }
  /** Requests the run's usage counts, as the run list shows them. */
  requests(): number {
    let sum = this.unstoredRequests;
    for (const r of this.results.values()) sum += r.judge?.httpCalls ?? 0;
    return sum;
  }
  status: [RunStatus, string | null | undefined, MessageRef | undefined] | undefined;
  async putResult(result: StoredRunResult): Promise<boolean> {
    if (this.results.has(result.row)) return false;
    this.results.set(result.row, result);
    return true;
  }
  async setStatus(
    _id: string,
    status: RunStatus,
    message?: string | null,
    messageRef?: MessageRef,
  ): Promise<void> {
    this.status = [status, message, messageRef];
  }
}

describe('a run against the fake provider pauses at its ceiling', () => {
  let fake: FakeLlm;
  const cache = new MemoryResponseCache();
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    resetCapabilityCache();
    resetLimiters();
    fake.reset();
    fake.setHandler(oracleHandler(3));
  });

  const config = (): ProviderConfig => ({
    kind: 'openai',
    model: 'gpt-4o-mini',
    apiKey: 'sk-unit-ceiling',
    baseUrl: fake.url,
    concurrency: 1,
  });
  const judged = () => fake.requests.filter((r) => promptOfWire(r) !== undefined).length;

  async function drive(store: MemoryStore, ceiling: RunCeiling | undefined, spent: number) {
    const gate = new SpendGate(ceiling, { httpCalls: spent, cost: 0 }, (u) =>
      estimateCost(u, 'openai', 'gpt-4o-mini'),
    );
    const judge = createJudge(config(), {
      cache,
      stopOnFatal: true,
      fetch: gate.fetch('openai'),
    });
    const outcome = await runBatch({
      runId: 'r',
      rows: ROWS.filter((r) => !store.results.has(r.row)),
      total: ROWS.length,
      alreadyDone: store.results.size,
      store,
      scoreRow: pageRowScorer({
        metrics: ['vagueness'],
        settings: DEFAULT_SETTINGS,
        judge: { judge, settings: DEFAULT_JUDGE_SETTINGS },
        ceiling: {
          reached: () => (gate.reached ? gate.pauseReason() : undefined),
          takeUnsent: (max) => gate.takeUnsent(max),
        },
      }),
    });
    return { outcome, gate };
  }

  it('sends no request past the ceiling, pauses with the reason, and a raised ceiling finishes', async () => {
    const store = new MemoryStore();
    // Vagueness is one request per row: the ceiling of 3 lets three rows through.
    const { outcome, gate } = await drive(store, { requests: 3, plannedRequests: 6 }, 0);
    expect(outcome.status).toBe('paused');
    expect(outcome.stoppedBy).toBe('provider');
    expect(outcome.messageRef?.key).toBe('plan.paused.requests');
    expect(outcome.message).toMatch(/reached the ceiling of 3 requests — 3 of 6 planned/u);
    expect(judged()).toBe(3);
    expect(gate.requests).toBe(3);
    expect(store.results.size).toBe(3);
    // The refused request never left the page, and the run's usage does not count it.
    expect(store.requests()).toBe(3);
    expect(store.status?.[0]).toBe('paused');
    expect(store.status?.[2]?.key).toBe('plan.paused.requests');

    // Raised: the rest, and nothing asked twice.
    const again = await drive(store, { requests: 10, plannedRequests: 6 }, gate.requests);
    expect(again.outcome.status).toBe('done');
    expect(store.results.size).toBe(6);
    expect(judged()).toBe(6);
    expect(store.requests()).toBe(6);
  });
});
