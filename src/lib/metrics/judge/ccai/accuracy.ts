/**
 * Call-center accuracy (Google CCAI Insights summarization autoeval, SPEC §3): the summary is
 * decomposed into points, each with a justification and `is_accurate`; score = share accurate.
 * SumLens does not pay twice: the points ARE the alignment claims and the justification is the
 * alignment verdict's reason (summarization/alignment.ts). A contradicted point is inaccurate; an
 * unsupported one is inaccurate too, or left out when unsupported claims are set to neutral.
 */
import { ref, type MessageRef } from '../../../i18n/message.ts';
import type { CallRecord } from '../call.ts';
import { describeCut, type ContextNote } from '../context.ts';
import { okResult, type RunEnv } from '../pipeline.ts';
import type { ClaimVerdictLabel } from '../scoring.ts';
import { share } from '../scoring.ts';
import type { Offsets } from '../spans.ts';
import { failed, notApplicable } from '../../results.ts';
import { type MetricResult } from '../../types.ts';
import type { ClaimsOutcome } from '../summarization/alignment.ts';

export interface AccuracyPoint {
  index: number;
  point: string;
  justification: string;
  /** null: unsupported and counted as neutral (left out of the score). */
  isAccurate: boolean | null;
  verdict: ClaimVerdictLabel;
  sourceSpan: Offsets | null;
}

export interface AccuracyDetails {
  points: AccuracyPoint[];
  accurate: number;
  /** Points that entered the score. */
  counted: number;
  /** Always true: the points are the alignment claims, judged once. */
  reusesAlignment: true;
  context: ContextNote;
  audit: { calls: CallRecord[] };
}

function points(outcome: ClaimsOutcome, unsupportedCountsAgainst: boolean): AccuracyPoint[] {
  return (outcome.verdicts ?? []).map((v) => ({
    index: v.index,
    point: v.claim,
    justification: v.reason,
    isAccurate:
      v.verdict === 'supported'
        ? true
        : v.verdict === 'contradicted' || unsupportedCountsAgainst
          ? false
          : null,
    verdict: v.verdict,
    sourceSpan: v.sourceSpan,
  }));
}

function details(outcome: ClaimsOutcome, env: RunEnv, log: CallRecord[]): AccuracyDetails {
  const list = points(outcome, env.settings.unsupportedCountsAgainst);
  return {
    points: list,
    accurate: list.filter((p) => p.isAccurate === true).length,
    counted: list.filter((p) => p.isAccurate !== null).length,
    reusesAlignment: true,
    context: env.context,
    audit: { calls: log },
  };
}

export function accuracyResult(
  outcome: ClaimsOutcome,
  env: RunEnv,
  log: CallRecord[],
): MetricResult<'ccai-accuracy'> {
  const d = details(outcome, env, log);
  if (outcome.claims.length === 0) {
    return notApplicable('ccai-accuracy', env.backend, ref('judgeMetrics.accuracy.none'), d);
  }
  const score = share(d.accurate, d.counted);
  if (score === null) {
    return notApplicable('ccai-accuracy', env.backend, ref('judgeMetrics.accuracy.neutral'), d);
  }
  return okResult(
    'ccai-accuracy',
    score,
    ref('judgeMetrics.accuracy.explanation', {
      accurate: d.accurate,
      counted: d.counted,
      share: score,
    }),
    env.backend,
    d,
    [describeCut(env.context)],
  );
}

export function accuracyFailure(
  outcome: ClaimsOutcome,
  env: RunEnv,
  log: CallRecord[],
  message: string | MessageRef,
): MetricResult<'ccai-accuracy'> {
  return failed('ccai-accuracy', env.backend, message, details(outcome, env, log));
}
