/**
 * Where a batch run executes and what it will cost before it starts: the offline metrics and the
 * task of prediction rows run in the batch worker, LLM-judge metrics (and coherence on provider
 * embeddings) in the page; the plan counts rows × metrics and, for the judge, calls, tokens and
 * cost. Split from batch.ts (the runner), which re-exports it.
 */
import { callsPerMetric, type JudgePlan } from '../metrics/judge/plan.ts';
import type { MessageRef } from '../i18n/message.ts';
import { JUDGE_METRIC_IDS, metricInfo } from '../metrics/registry.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { JudgeMetricId, MetricId } from '../metrics/types.ts';
import { estimateCost, type PriceTable } from '../llm/prices.ts';
import type { ProviderKind } from '../llm/types.ts';

// ---- Which metrics run where ----

const JUDGE_IDS = new Set<MetricId>(JUDGE_METRIC_IDS);

export function isJudgeMetric(id: MetricId): id is JudgeMetricId {
  return JUDGE_IDS.has(id);
}

export interface MetricSplit {
  /** Offline metrics the batch worker computes (ROUGE, BLEU, token F1, coherence, density). */
  worker: MetricId[];
  /** Metrics computed in the page: LLM-judge metrics, and coherence on provider embeddings
   * (both use the judge's key, which never goes to a worker). */
  page: MetricId[];
}

export function splitMetrics(metrics: readonly MetricId[], settings: MetricSettings): MetricSplit {
  const providerEmbedding = settings.backends.embedding.kind === 'provider';
  const split: MetricSplit = { worker: [], page: [] };
  for (const id of metrics) {
    const needs = metricInfo(id).needs;
    if (needs === 'llm' || (needs === 'embedding' && providerEmbedding)) split.page.push(id);
    else split.worker.push(id);
  }
  return split;
}

/**
 * Where a run executes: entirely in the batch worker when every metric can run there (the case of
 * large offline runs, which must keep the page responsive), else in the page (`runBatch` with
 * `pageRowScorer`, which still sends the offline metrics to the metric workers).
 */
export function runExecutor(
  metrics: readonly MetricId[],
  settings: MetricSettings,
): 'worker' | 'page' {
  return splitMetrics(metrics, settings).page.length > 0 ? 'page' : 'worker';
}

// ---- The plan ----

/** Where the plan's picture of the model came from: a probe of it (logprobs or not…), the static
 * table (no key to probe with, or a provider never probed), or nothing (the probe failed: the
 * costliest fallback is assumed). */
export type CapabilitySource = 'probe' | 'table' | 'worst-case';

/** A judge plan for one sample row, priced for the judge that will run it. */
export interface PerRowJudgePlan {
  plan: JudgePlan;
  provider: ProviderKind;
  model: string;
  prices?: PriceTable;
  capabilities?: CapabilitySource;
  /** Why the probe did not answer, when `capabilities` is 'worst-case'. */
  probeProblem?: MessageRef | string;
}

/** One judge metric's line of the plan: its requests per row (shared calls counted for each
 * metric using them) and, once per run, the calls every row shares (G-Eval's steps). */
export interface MetricPlanLine {
  metric: JudgeMetricId;
  requestsPerRow: number;
  /** Requests made once for the whole run (answers every row reuses). */
  requestsPerRun: number;
  tokensPerRow: number;
  /** USD per row; undefined when the model has no price. */
  costPerRow: number | undefined;
  /** Other chosen metrics answered by some of the same requests (sent once for all). */
  sharesWith: JudgeMetricId[];
}

export interface BatchPlan {
  rows: number;
  metrics: number;
  /** rows × metrics: the scores the run will produce. */
  scores: number;
  offlineMetrics: MetricId[];
  judgeMetrics: JudgeMetricId[];
  /** HTTP requests to the judge, at most (cache hits make fewer; retries of failed requests
   * are not in it). */
  llmCalls: number;
  /** `llmCalls` is rows × these plus the calls made once per run (G-Eval's steps). */
  requestsPerRow: number;
  requestsPerRun: number;
  /** Per chosen judge metric, its requests and cost per row. */
  perMetric: MetricPlanLine[];
  /** How the model's capabilities were known when planning; undefined without judge metrics. */
  capabilities?: CapabilitySource;
  probeProblem?: MessageRef | string;
  /** How G-Eval forms will be filled, and with how many samples; null without G-Eval. */
  gevalMethod?: { method: string; samples: number } | null;
  estimatedTokens: { input: number; output: number; total: number };
  /** USD; undefined when there are no LLM metrics' prices (unknown model) — never 0 for unknown. */
  estimatedCost: number | undefined;
  /** Whether the cost is known (false: no price for the model). */
  costKnown: boolean;
  executor: 'worker' | 'page';
  notes: string[];
}

/**
 * G-Eval's evaluation steps depend on the criterion and model only (plan.ts, g-eval.ts: "cached per
 * criterion and model"): one call for the whole run, not one per row.
 */
const SHARED_CALL = /cached per criterion/u;

/**
 * What a run will cost: rows × metrics scores and, for LLM metrics, the judge calls and tokens of
 * `perRowJudgePlan` (planJudgeRun on a sample row) times the rows, with the calls shared by every
 * row (G-Eval steps) counted once. An upper bound: the judge's cache answers rows already judged.
 */
export function planBatch(
  rowCount: number,
  metrics: readonly MetricId[],
  perRowJudgePlan?: PerRowJudgePlan,
  settings?: MetricSettings,
): BatchPlan {
  const judgeMetrics = metrics.filter(isJudgeMetric);
  const offlineMetrics = metrics.filter((m) => !isJudgeMetric(m));
  const notes: string[] = [];
  const perMetric: MetricPlanLine[] = [];
  let llmCalls = 0;
  let requestsPerRow = 0;
  let requestsPerRun = 0;
  let input = 0;
  let output = 0;
  let estimatedCost: number | undefined;
  let costKnown = true;
  if (judgeMetrics.length > 0 && rowCount > 0) {
    if (!perRowJudgePlan) {
      costKnown = false;
      notes.push('No judge plan yet: the LLM calls and cost are not estimated.');
    } else {
      for (const round of perRowJudgePlan.plan.rounds) {
        for (const call of round.calls) {
          const shared = SHARED_CALL.test(call.purpose);
          const times = shared ? 1 : rowCount;
          if (shared) requestsPerRun += call.httpCalls;
          else requestsPerRow += call.httpCalls;
          llmCalls += call.httpCalls * times;
          input += call.estimatedInputTokens * times;
          output += call.estimatedOutputTokens * times;
        }
      }
      const price = (tokens: { input: number; output: number }) =>
        estimateCost(
          tokens,
          perRowJudgePlan.provider,
          perRowJudgePlan.model,
          perRowJudgePlan.prices,
        );
      estimatedCost = price({ input, output });
      perMetric.push(...metricLines(perRowJudgePlan.plan, judgeMetrics, price));
      costKnown = estimatedCost !== undefined;
      if (!costKnown) {
        notes.push(
          `No price for ${perRowJudgePlan.provider}/${perRowJudgePlan.model} in the price table: the cost is unknown.`,
        );
      }
      notes.push(
        'Estimated from one sample row; rows with longer texts cost more, and answers already in the judge cache cost nothing.',
      );
      notes.push(...perRowJudgePlan.plan.notes);
    }
  }
  return {
    rows: rowCount,
    metrics: metrics.length,
    scores: rowCount * metrics.length,
    offlineMetrics,
    judgeMetrics,
    llmCalls,
    requestsPerRow,
    requestsPerRun,
    perMetric,
    ...(perRowJudgePlan?.capabilities ? { capabilities: perRowJudgePlan.capabilities } : {}),
    ...(perRowJudgePlan?.probeProblem ? { probeProblem: perRowJudgePlan.probeProblem } : {}),
    ...(perRowJudgePlan
      ? {
          gevalMethod: perRowJudgePlan.plan.gevalMethod
            ? {
                method: perRowJudgePlan.plan.gevalMethod.method,
                samples: perRowJudgePlan.plan.gevalMethod.n,
              }
            : null,
        }
      : {}),
    estimatedTokens: { input, output, total: input + output },
    estimatedCost: judgeMetrics.length > 0 ? estimatedCost : 0,
    costKnown,
    executor: settings
      ? runExecutor(metrics, settings)
      : judgeMetrics.length > 0
        ? 'page'
        : 'worker',
    notes,
  };
}

/** Each chosen metric's requests per row and per run (shared G-Eval steps), with its cost. */
function metricLines(
  plan: JudgePlan,
  metrics: readonly JudgeMetricId[],
  price: (tokens: { input: number; output: number }) => number | undefined,
): MetricPlanLine[] {
  // Calls once per run (G-Eval steps) are the per-row figures' share that only the first row pays.
  const sharedOnly: JudgePlan = {
    ...plan,
    rounds: plan.rounds.map((r) => ({
      ...r,
      calls: r.calls.filter((c) => SHARED_CALL.test(c.purpose)),
    })),
  };
  const perRun = new Map(callsPerMetric(sharedOnly, metrics).map((l) => [l.metric, l.requests]));
  return callsPerMetric(plan, metrics).map((line) => {
    const shared = perRun.get(line.metric) ?? 0;
    return {
      metric: line.metric,
      requestsPerRow: line.requests - shared,
      requestsPerRun: shared,
      tokensPerRow: line.estimatedInputTokens + line.estimatedOutputTokens,
      costPerRow: price({ input: line.estimatedInputTokens, output: line.estimatedOutputTokens }),
      sharesWith: line.sharesWith,
    };
  });
}
