/**
 * Where a batch run executes and what it will cost before it starts: the offline metrics and the
 * task of prediction rows run in the batch worker, LLM-judge metrics (and coherence on provider
 * embeddings) in the page; the plan counts rows × metrics and, for the judge, calls, tokens and
 * cost. Split from batch.ts (the runner), which re-exports it.
 */
import type { JudgePlan } from '../metrics/judge/plan.ts';
import { metricInfo } from '../metrics/registry.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import { JUDGE_METRIC_IDS, type JudgeMetricId, type MetricId } from '../metrics/types.ts';
import { estimateCost, type PriceTable } from '../llm/prices.ts';
import { type ProviderKind } from '../llm/types.ts';

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

/** A judge plan for one sample row, priced for the judge that will run it. */
export interface PerRowJudgePlan {
  plan: JudgePlan;
  provider: ProviderKind;
  model: string;
  prices?: PriceTable;
}

export interface BatchPlan {
  rows: number;
  metrics: number;
  /** rows × metrics: the scores the run will produce. */
  scores: number;
  offlineMetrics: MetricId[];
  judgeMetrics: JudgeMetricId[];
  /** HTTP requests to the judge, at most (cache hits make fewer). */
  llmCalls: number;
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
  let llmCalls = 0;
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
          const times = SHARED_CALL.test(call.purpose) ? 1 : rowCount;
          llmCalls += call.httpCalls * times;
          input += call.estimatedInputTokens * times;
          output += call.estimatedOutputTokens * times;
        }
      }
      estimatedCost = estimateCost(
        { input, output },
        perRowJudgePlan.provider,
        perRowJudgePlan.model,
        perRowJudgePlan.prices,
      );
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
