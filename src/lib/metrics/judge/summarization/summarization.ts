/**
 * The summarization card (SPEC §3): F-beta of alignment (precision) and coverage (recall) instead
 * of DeepEval's min(), which is kept in the details for comparison. beta < 1 weights faithfulness.
 * It makes no calls of its own: it combines the alignment and coverage results of the same run.
 */
import type { CallRecord } from '../call.ts';
import type { ContextNote } from '../context.ts';
import { describeCut } from '../context.ts';
import { okResult, type RunEnv } from '../pipeline.ts';
import { ref, type MessageRef } from '../../../i18n/message.ts';
import { fBeta, type VerdictCounts } from '../scoring.ts';
import { failed, notApplicable } from '../../results.ts';
import { type MetricResult } from '../../types.ts';
import type { AlignmentDetails, ClaimVerdict } from './alignment.ts';
import type { CoverageDetails, CoverageQuestion } from './coverage.ts';
import type { JudgeMetricRecord } from '../../record.ts';
import { claimsBuilder, CLAIMS_PROMPTS } from './alignment.ts';
import { coverageBuilder, COVERAGE_PROMPTS } from './coverage.ts';

export interface SummarizationDetails {
  alignment: number | null;
  coverage: number | null;
  beta: number;
  /** The score: F-beta of alignment and coverage. */
  fBeta: number | null;
  /** DeepEval's combination, for comparison. */
  min: number | null;
  claims: ClaimVerdict[];
  counts: VerdictCounts;
  unsupportedCountsAgainst: boolean;
  questions: CoverageQuestion[];
  context: ContextNote;
  audit: { calls: CallRecord[] };
}

/** Why a part has no score, as a message when the part gave one. */
function reasonOf(r: MetricResult): string | MessageRef {
  return r.reasonRef ?? r.explanationRef ?? r.reason ?? r.explanation;
}

/**
 * The card from the two results and their pipelines' details (`alignmentDetails()`,
 * `coverageDetails()`), which a failed or n/a result carries too but does not type.
 */
export function combineSummarization(
  alignment: MetricResult<'alignment'>,
  coverage: MetricResult<'coverage'>,
  shared: { alignment: AlignmentDetails; coverage: CoverageDetails },
  env: RunEnv,
): MetricResult<'summarization'> {
  const beta = env.settings.beta;
  const a = alignment.status === 'ok' ? alignment.score : null;
  const c = coverage.status === 'ok' ? coverage.score : null;
  const both = a !== null && c !== null;
  const details: SummarizationDetails = {
    alignment: a,
    coverage: c,
    beta,
    fBeta: both ? fBeta(a, c, beta) : null,
    min: both ? Math.min(a, c) : null,
    claims: shared.alignment.claims,
    counts: shared.alignment.counts,
    unsupportedCountsAgainst: shared.alignment.unsupportedCountsAgainst,
    questions: shared.coverage.questions,
    context: env.context,
    audit: { calls: [...shared.alignment.audit.calls, ...shared.coverage.audit.calls] },
  };
  const parts = [
    {
      r: alignment,
      failedKey: 'judgeMetrics.summarization.alignmentFailed',
      naKey: 'judgeMetrics.summarization.noAlignment',
    },
    {
      r: coverage,
      failedKey: 'judgeMetrics.summarization.coverageFailed',
      naKey: 'judgeMetrics.summarization.noCoverage',
    },
  ] as const;
  for (const { r, failedKey } of parts) {
    if (r.status === 'error') {
      return failed('summarization', env.backend, ref(failedKey, { reason: reasonOf(r) }), details);
    }
  }
  for (const { r, naKey } of parts) {
    if (r.status === 'n/a') {
      return notApplicable(
        'summarization',
        env.backend,
        ref(naKey, { reason: reasonOf(r) }),
        details,
      );
    }
  }
  const score = details.fBeta as number;
  return okResult(
    'summarization',
    score,
    ref('judgeMetrics.summarization.explanation', {
      beta,
      alignment: a as number,
      coverage: c as number,
      score,
      min: details.min as number,
    }),
    env.backend,
    details,
    [describeCut(env.context)],
  );
}

declare module '../../types.ts' {
  interface JudgeMetricDetails {
    summarization: SummarizationDetails;
  }
}

export const summarizationMetric = {
  kind: 'judge',
  info: {
    label: 'Summarization (F1)',
    needs: 'llm',
    meaning:
      'F-beta of alignment (faithful claims) and coverage (importance-weighted answers to the key questions of the source), judged by your LLM; min() shown beside it.',
    citation:
      'DeepEval SummarizationMetric, repaired as in the seed article (claims judged against the full source)',
    range: [0, 1],
  },
  messages: {
    'judgeMetrics.summarization.alignmentFailed': 'Alignment failed: {reason}',
    'judgeMetrics.summarization.coverageFailed': 'Coverage failed: {reason}',
    'judgeMetrics.summarization.noAlignment': 'No alignment score: {reason}',
    'judgeMetrics.summarization.noCoverage': 'No coverage score: {reason}',
    'judgeMetrics.summarization.explanation':
      '{beta, select, 1 {F1} other {F-beta (β = {beta})}} of alignment {alignment, number, ::.00} and coverage {coverage, number, ::.00} is {score, number, ::.00} (min() would give {min, number, ::.00}).',
    'judge.detail.combined':
      "{fscore} of alignment {alignment} and coverage {coverage}; DeepEval's min() would give {min}.",
    'judge.detail.fbeta': 'F-β (β = {beta})',
  },
  detailView: 'own',
  prompts: [...CLAIMS_PROMPTS, ...COVERAGE_PROMPTS],
  pipelines: [claimsBuilder, coverageBuilder],
  inDefaultRun: () => true,
} satisfies JudgeMetricRecord;
