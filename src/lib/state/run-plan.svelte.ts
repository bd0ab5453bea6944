/**
 * What a run will do before it starts (the run setup shows it on every choice): rows × metrics,
 * where it executes, and for LLM metrics the judge calls per row and metric, tokens and cost,
 * estimated on one row of median length read once per data set, after asking the provider what
 * the model accepts (G-Eval without logprobs falls back to n samples: n requests per form).
 */
import {
  isJudgeMetric,
  planBatch,
  type BatchPlan,
  type CapabilitySource,
} from '../datasets/batch.ts';
import { messageOf } from '../errors.ts';
import { ref, type MessageRef } from '../i18n/message.ts';
import { LlmError, type Capabilities } from '../llm/types.ts';
import type { JudgeSession } from './judge.svelte.ts';
import { isCaseRow, type CaseRow } from '../rows/formats.ts';
import { getDatasetRows } from '../storage/datasets.ts';
import type { StoredDataset } from '../storage/schema.ts';
import type { MetricId } from '../metrics/types.ts';
import type { PageScoring } from './page-runs.svelte.ts';

/** Rows whose texts the plan's judge estimate looks at; the median-length one stands for all. */
const PLAN_SAMPLE_ROWS = 50;

export class RunPlanner {
  readonly #scoring: PageScoring | undefined;
  readonly #samples = new Map<string, Promise<CaseRow | undefined>>();

  constructor(scoring: PageScoring | undefined) {
    this.#scoring = scoring;
  }

  /**
   * What a run will do before it starts: rows × metrics, where it executes, and for LLM metrics
   * the judge calls, tokens and cost (estimated on a sample row of median length; unknown prices
   * stay unknown).
   */
  async plan(dataset: StoredDataset, metrics: readonly MetricId[]): Promise<BatchPlan> {
    const predictions = dataset.kind === 'prediction' || dataset.kind === 'sft';
    const chosen = predictions ? [] : [...metrics];
    const judgeIds = chosen.filter(isJudgeMetric);
    if (judgeIds.length === 0 || !this.#scoring) return planBatch(dataset.rowCount, chosen);
    const judge = this.#scoring.judge;
    const [median, probed] = await Promise.all([this.#sample(dataset.id), this.#probe(judge)]);
    const planned = median ? judge.plan(median.input, judgeIds, probed.capabilities) : undefined;
    return planBatch(
      dataset.rowCount,
      chosen,
      planned
        ? {
            plan: planned.plan,
            provider: judge.provider.kind,
            model: judge.provider.model.trim(),
            prices: $state.snapshot(judge.prices),
            capabilities: probed.source,
            ...(probed.problem ? { probeProblem: probed.problem } : {}),
          }
        : undefined,
    );
  }

  /**
   * The model's capabilities before the plan counts G-Eval's calls: probed (one tiny request per
   * provider and model, cached), the table where nothing can be probed (no key yet), or none
   * (the probe failed: the plan then assumes the costliest fallback, and says why).
   */
  async #probe(judge: JudgeSession): Promise<{
    capabilities: Capabilities | null;
    source: CapabilitySource;
    problem?: MessageRef | string;
  }> {
    if (!judge.ready)
      return { capabilities: null, source: 'worst-case', problem: ref('plan.probe.noKey') };
    try {
      const capabilities = await judge.probe();
      return { capabilities, source: capabilities.source === 'probe' ? 'probe' : 'table' };
    } catch (error) {
      return {
        capabilities: null,
        source: 'worst-case',
        problem:
          error instanceof LlmError && error.messageRef ? error.messageRef : messageOf(error),
      };
    }
  }

  /**
   * The row of median length among the first ones, read once per data set: the setup re-plans on
   * every choice, and the rows do not change.
   */
  #sample(datasetId: string): Promise<CaseRow | undefined> {
    let sample = this.#samples.get(datasetId);
    if (!sample) {
      sample = getDatasetRows(datasetId, -Infinity, PLAN_SAMPLE_ROWS).then((rows) => {
        const cases = rows.filter(isCaseRow);
        const lengthOf = (r: CaseRow) =>
          r.input.source.length + r.input.summary.length + (r.input.reference?.length ?? 0);
        return cases.sort((a, b) => lengthOf(a) - lengthOf(b))[Math.floor(cases.length / 2)];
      });
      // A failed read is tried again next time rather than remembered.
      sample.catch(() => this.#samples.delete(datasetId));
      this.#samples.set(datasetId, sample);
    }
    return sample;
  }
}
