/**
 * The LLM-judge metrics of one case, from the page (the key never goes to a worker). The judge
 * itself (provider, cache, settings) is the caller's; this step streams its results, and turns its
 * failures into error results so that a case is stored with the reason instead of being lost.
 */
import { messageOf } from '../errors.ts';
import { ref } from '../i18n/message.ts';
import type { CaseInput, MetricId, MetricResult } from '../metrics/types.ts';
import { failMissing } from './results.ts';

/** How to judge a case; `Report` is what the judge run reports (tokens, calls, cost). */
export interface CaseJudge<Report> {
  metrics: readonly MetricId[];
  /** Names the judge on error results: `judge:<provider>/<model>`. */
  backend: string;
  run(
    input: CaseInput,
    onResult: (result: MetricResult) => void,
    signal: AbortSignal,
  ): Promise<Report>;
}

/** How the judge run ended: its report, or the error that ended it (its metrics failed with it). */
export type JudgeOutcome<Report> = { report: Report } | { error: unknown };

/** Runs the judge; undefined when cancelled (nothing after the abort is reported). */
export async function judgeCase<Report>(
  judge: CaseJudge<Report>,
  input: CaseInput,
  emit: (result: MetricResult) => void,
  results: readonly MetricResult[],
  signal: AbortSignal,
): Promise<JudgeOutcome<Report> | undefined> {
  const failAll = (reason: Parameters<typeof failMissing>[2]) => {
    for (const failure of failMissing(judge.metrics, [...results], reason, judge.backend)) {
      emit(failure);
    }
  };
  try {
    const report = await judge.run(input, emit, signal);
    if (signal.aborted) return undefined;
    // A metric the run never reported (a bug, or a criterion list emptied mid-run) must not spin.
    failAll(ref('card.judgeNoResult'));
    return { report };
  } catch (error) {
    if (signal.aborted) return undefined;
    failAll(messageOf(error));
    return { error };
  }
}
