/**
 * The pipeline builders the judge records name (records.ts). A builder shared by several records
 * (claims, coverage) runs once per case and serves every wanted metric, so metrics that share
 * calls keep sharing them.
 */
import type { JudgePipelineBuilder } from '../record.ts';
import { notApplicable } from '../results.ts';
import type { JudgeMetricId, MetricResult } from '../types.ts';
import { adherencePipeline } from './ccai/adherence.ts';
import { completenessPipeline } from './ccai/completeness.ts';
import { builtinCriterion, customCriterion } from './g-eval/criteria.ts';
import { gevalPipeline } from './g-eval/g-eval.ts';
import type { Pipeline, RunEnv } from './pipeline.ts';
import { ref } from '../../i18n/message.ts';
import { repetitivenessPipeline } from './repetitiveness/repetitiveness.ts';
import type { BuiltinCriterion } from './settings.ts';
import { claimsPipeline } from './summarization/alignment.ts';
import { coveragePipeline } from './summarization/coverage.ts';
import { vaguenessPipeline } from './vagueness/vagueness.ts';

/** A builder of one pipeline that needs no capabilities. */
function single(pipeline: (env: RunEnv) => Pipeline): JudgePipelineBuilder {
  return { build: (env) => ({ pipelines: [pipeline(env)], needsCapabilities: false }) };
}

/** The summary claims and their verdicts: alignment, call-center accuracy, the summarization card. */
export const claimsBuilder: JudgePipelineBuilder = {
  build(env, want) {
    const produces: JudgeMetricId[] = [];
    if (want.has('alignment') || want.has('summarization')) produces.push('alignment');
    if (want.has('ccai-accuracy')) produces.push('ccai-accuracy');
    const claims = claimsPipeline(env, produces);
    return { pipelines: [claims], needsCapabilities: false, claims };
  },
};

/** The key questions and their graded answers: coverage and the summarization card. */
export const coverageBuilder: JudgePipelineBuilder = {
  build(env) {
    const coverage = coveragePipeline(env);
    return { pipelines: [coverage], needsCapabilities: false, coverage };
  },
};
export const vaguenessBuilder = single(vaguenessPipeline);
export const adherenceBuilder = single(adherencePipeline);
export const completenessBuilder = single(completenessPipeline);

export const repetitivenessBuilder: JudgePipelineBuilder = {
  build: (env) => ({ pipelines: [repetitivenessPipeline(env)], needsCapabilities: true }),
};

export function gevalBuiltinBuilder(criterion: BuiltinCriterion): JudgePipelineBuilder {
  return {
    build: (env) => ({
      pipelines: [
        gevalPipeline(env, `geval-${criterion}`, builtinCriterion(criterion, env.settings)),
      ],
      needsCapabilities: true,
    }),
  };
}

/** A pipeline with no calls and one fixed n/a result. */
function staticPipeline(result: MetricResult & { id: JudgeMetricId }): Pipeline {
  return {
    produces: [result.id],
    stages: [],
    log: [],
    results: () => [result],
    failure: () => [result],
  };
}

/** One G-Eval pipeline per user criterion; a fixed n/a result when there are none. */
export const gevalCustomBuilder: JudgePipelineBuilder = {
  build(env) {
    const criteria = env.settings.customCriteria;
    if (criteria.length === 0) {
      const none = notApplicable('geval-custom', env.backend, ref('judgeMetrics.geval.noCustom'), {
        criterion: null,
      });
      return { pipelines: [staticPipeline(none)], needsCapabilities: false };
    }
    return {
      pipelines: criteria.map((c) => gevalPipeline(env, 'geval-custom', customCriterion(c))),
      needsCapabilities: true,
    };
  },
};
