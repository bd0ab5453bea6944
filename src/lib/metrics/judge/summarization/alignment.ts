/**
 * Alignment (precision, faithfulness), after DeepEval's SummarizationMetric as the seed article
 * repairs it (SPEC §3): the summary's atomic claims (round 1) are judged ALL IN ONE CALL against the
 * FULL source text (round 2), not against a list of extracted "truths", which made DeepEval's score
 * unstable and could not reach 1.0 for a summary identical to its source. Verdicts are supported /
 * contradicted / unsupported with a reason and the supporting quote, located in the original source.
 * Alignment = supported / claims (unsupported counts against the summary unless switched to
 * neutral). The same claims and verdicts feed the call-center accuracy card (ccai/accuracy.ts).
 */
import { ref } from '../../../i18n/message.ts';
import { createFence } from '../fence.ts';
import { promptKey } from '../prompt-kit.ts';
import { callJson, inOrder, type CallRecord } from '../call.ts';
import { describeCut, estimateTokens, type ContextNote } from '../context.ts';
import {
  ESTIMATE_FENCE,
  okResult,
  oneCallEstimate,
  outputBudget,
  type Pipeline,
  type RunEnv,
  type Stage,
  purposeOf,
} from '../pipeline.ts';
import {
  alignmentScore,
  countVerdicts,
  type ClaimVerdictLabel,
  type VerdictCounts,
} from '../scoring.ts';
import { locateSpan, type Offsets } from '../spans.ts';
import { failed, notApplicable } from '../../results.ts';
import { type JudgeMetricId, type MetricResult } from '../../types.ts';
import { accuracyFailure, accuracyResult } from '../ccai/accuracy.ts';
import { CLAIMS_PROMPT, claimsPrompt, VERDICTS_PROMPT, verdictsPrompt } from './prompts.ts';
import { claimsSchema, claimVerdictsSchema } from './schema.ts';
import type { JudgeMetricRecord, JudgePipelineBuilder } from '../../record.ts';

export interface ClaimVerdict {
  /** 1-based, in the order the claims were extracted. */
  index: number;
  claim: string;
  verdict: ClaimVerdictLabel;
  /** The judge's one-sentence reason. */
  reason: string;
  /** The source passage the judge quoted ('' for unsupported claims). */
  quote: string;
  /** The quote's UTF-16 offsets in the ORIGINAL source; null when it could not be found. */
  sourceSpan: Offsets | null;
}

export interface AlignmentDetails {
  /** Claims with their verdicts (empty when extraction failed or found none). */
  claims: ClaimVerdict[];
  counts: VerdictCounts;
  unsupportedCountsAgainst: boolean;
  context: ContextNote;
  audit: { calls: CallRecord[] };
}

/** What the claims pipeline found, for accuracy and the combined summarization card. */
export interface ClaimsOutcome {
  claims: string[];
  verdicts: ClaimVerdict[] | null;
}

// A claim of about this many characters, for estimates before the claims exist.
const CLAIM_CHARS = 80;

export function estimatedClaimCount(summary: string): number {
  return Math.max(1, Math.round(summary.length / CLAIM_CHARS));
}

export interface ClaimsPipeline extends Pipeline {
  outcome: ClaimsOutcome;
  alignmentDetails(): AlignmentDetails;
}

/**
 * One pipeline for alignment and call-center accuracy: claims (round 1), verdicts (round 2).
 * `produces` says which of the two results to return.
 */
export function claimsPipeline(env: RunEnv, produces: JudgeMetricId[]): ClaimsPipeline {
  const log: CallRecord[] = [];
  const outcome: ClaimsOutcome = { claims: [], verdicts: null };
  const { summary, source: originalSource } = env.input;
  const serves = produces.length > 0 ? produces : (['alignment'] as JudgeMetricId[]);
  const metric = serves[0];

  const extract: Stage = {
    round: 1,
    ...purposeOf(ref('judgeMetrics.purpose.claims')),
    metric,
    serves,
    estimate: () =>
      oneCallEstimate(
        claimsPrompt(ESTIMATE_FENCE, summary),
        Math.ceil(estimateTokens(summary) * 1.3) + 30,
      ),
    async run(ctx) {
      const reply = await callJson(ctx, {
        purpose: this.purpose,
        purposeRef: this.purposeRef,
        messages: claimsPrompt(createFence(), summary),
        name: 'summary_claims',
        schema: claimsSchema,
        cacheKey: { prompt: promptKey(CLAIMS_PROMPT), summary },
        maxTokens: outputBudget(estimateTokens(summary), 1.6, 300),
      });
      outcome.claims = reply.claims.map((c) => c.trim()).filter((c) => c.length > 0);
    },
  };

  const judgeClaims: Stage = {
    round: 2,
    ...purposeOf(ref('judgeMetrics.purpose.verdicts')),
    metric,
    serves,
    estimate() {
      const n = estimatedClaimCount(summary);
      const claims = Array.from({ length: n }, () => 'x'.repeat(CLAIM_CHARS));
      return oneCallEstimate(verdictsPrompt(ESTIMATE_FENCE, env.source, claims), n * 70 + 20);
    },
    async run(ctx) {
      const claims = outcome.claims;
      if (claims.length === 0) {
        outcome.verdicts = [];
        return;
      }
      const reply = await callJson(ctx, {
        purpose: this.purpose,
        purposeRef: this.purposeRef,
        messages: verdictsPrompt(createFence(), env.source, claims),
        name: 'claim_verdicts',
        schema: claimVerdictsSchema,
        cacheKey: { prompt: promptKey(VERDICTS_PROMPT), source: env.source, claims },
        maxTokens: outputBudget(claims.length, 120),
      });
      const ordered = inOrder(reply.verdicts, (v) => v.claim, claims.length, 'claims');
      outcome.verdicts = ordered.map((v, i) => ({
        index: i + 1,
        claim: claims[i],
        verdict: v.verdict,
        reason: v.reason.trim(),
        quote: v.quote,
        sourceSpan: locateSpan(originalSource, v.quote),
      }));
    },
  };

  const details = (): AlignmentDetails => ({
    claims: outcome.verdicts ?? [],
    counts: countVerdicts((outcome.verdicts ?? []).map((v) => v.verdict)),
    unsupportedCountsAgainst: env.settings.unsupportedCountsAgainst,
    context: env.context,
    audit: { calls: log },
  });

  function alignment(): MetricResult<'alignment'> {
    const d = details();
    const cutNote = describeCut(env.context);
    if (outcome.claims.length === 0) {
      return notApplicable('alignment', env.backend, ref('judgeMetrics.alignment.none'), d);
    }
    const score = alignmentScore(d.counts, d.unsupportedCountsAgainst);
    if (score === null) {
      return notApplicable('alignment', env.backend, ref('judgeMetrics.alignment.neutral'), d);
    }
    const { supported, contradicted, unsupported } = d.counts;
    return okResult(
      'alignment',
      score,
      ref(
        d.unsupportedCountsAgainst
          ? 'judgeMetrics.alignment.explanation'
          : 'judgeMetrics.alignment.explanationNeutral',
        { supported, claims: d.claims.length, contradicted, unsupported, score },
      ),
      env.backend,
      d,
      [cutNote],
    );
  }

  return {
    produces,
    stages: [extract, judgeClaims],
    log,
    outcome,
    alignmentDetails: details,
    results() {
      const out: MetricResult[] = [];
      if (produces.includes('alignment')) out.push(alignment());
      if (produces.includes('ccai-accuracy')) out.push(accuracyResult(outcome, env, log));
      return out;
    },
    failure(message) {
      const out: MetricResult[] = [];
      if (produces.includes('alignment'))
        out.push(failed('alignment', env.backend, message, details()));
      if (produces.includes('ccai-accuracy')) out.push(accuracyFailure(outcome, env, log, message));
      return out;
    },
  };
}

declare module '../../types.ts' {
  interface JudgeMetricDetails {
    alignment: AlignmentDetails;
  }
}

/**
 * The summary claims and their verdicts: one pipeline serves alignment, call-center accuracy and
 * the summarization card, so the three records name this builder and the run calls it once.
 */
export const claimsBuilder: JudgePipelineBuilder = {
  build(env, want) {
    const produces: JudgeMetricId[] = [];
    if (want.has('alignment') || want.has('summarization')) produces.push('alignment');
    if (want.has('ccai-accuracy')) produces.push('ccai-accuracy');
    const claims = claimsPipeline(env, produces);
    return { pipelines: [claims], needsCapabilities: false, claims };
  },
};

/** The claims pipeline's prompts, sent for every metric that names claimsBuilder. */
export const CLAIMS_PROMPTS = [CLAIMS_PROMPT, VERDICTS_PROMPT];

export const alignmentMetric = {
  kind: 'judge',
  info: {
    label: 'Alignment',
    needs: 'llm',
    meaning:
      'Share of the summary claims that the source supports, judged claim by claim against the full source; unsupported claims count against it unless you switch that off.',
    citation: 'DeepEval SummarizationMetric (alignment), SPEC §3',
    range: [0, 1],
  },
  messages: {
    'judgeMetrics.purpose.claims': 'alignment: extract the summary claims',
    'judgeMetrics.purpose.verdicts': 'alignment: judge every claim against the full source',
    'judgeMetrics.alignment.none': 'The summary states no factual claim to check.',
    'judgeMetrics.alignment.neutral':
      'No claim could be counted: every claim is unsupported, and unsupported claims are set to count as neutral.',
    'judgeMetrics.alignment.explanation':
      '{supported} of {claims} summary claims are supported by the source ({contradicted} contradicted, {unsupported} not in the source): alignment {score, number, ::.00}.',
    'judgeMetrics.alignment.explanationNeutral':
      '{supported} of {claims} summary claims are supported by the source ({contradicted} contradicted, {unsupported} not in the source, unsupported ones counted as neutral): alignment {score, number, ::.00}.',
  },
  detailView: 'own',
  prompts: CLAIMS_PROMPTS,
  pipelines: [claimsBuilder],
  inDefaultRun: () => true,
} satisfies JudgeMetricRecord;
