/**
 * What a run will do before it starts (the run setup shows it on every choice): rows × metrics,
 * where it executes, and for LLM metrics the judge calls, tokens and cost, estimated on one row of
 * median length read once per data set.
 */
import { isJudgeMetric, planBatch, type BatchPlan } from '../datasets/batch.ts';
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
    const median = await this.#sample(dataset.id);
    const judge = this.#scoring.judge;
    const planned = median ? judge.plan(median.input, judgeIds) : undefined;
    return planBatch(
      dataset.rowCount,
      chosen,
      planned
        ? {
            plan: planned.plan,
            provider: judge.provider.kind,
            model: judge.provider.model.trim(),
            prices: $state.snapshot(judge.prices),
          }
        : undefined,
    );
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
