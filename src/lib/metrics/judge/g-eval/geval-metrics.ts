/**
 * The G-Eval metrics: the four SummEval criteria and the user's own criteria. They share one
 * pipeline (g-eval.ts), one view and most of their text, so their records sit together here.
 */
import { ref } from '../../../i18n/message.ts';
import type { JudgeMetricRecord, JudgePipelineBuilder } from '../../record.ts';
import { notApplicable } from '../../results.ts';
import type { JudgeMetricId, MetricResult } from '../../types.ts';
import type { Pipeline } from '../pipeline.ts';
import type { BuiltinCriterion } from '../settings.ts';
import { builtinCriterion, customCriterion } from './criteria.ts';
import { gevalPipeline, type GEvalDetails } from './g-eval.ts';
import { GEVAL_PROMPTS } from './prompts.ts';

declare module '../../types.ts' {
  interface JudgeMetricDetails {
    'geval-coherence': GEvalDetails;
    'geval-consistency': GEvalDetails;
    'geval-fluency': GEvalDetails;
    'geval-relevance': GEvalDetails;
    'geval-custom': GEvalDetails;
  }
}

/**
 * Text the G-Eval pipeline and view use for every criterion (repetitiveness included). Each
 * message key has one record as its source, so the family's shared text rides on the first
 * record of the family.
 */
const GEVAL_FAMILY_MESSAGES = {
  'judgeMetrics.purpose.gevalSteps':
    '{criterion}: write the evaluation steps (cached per criterion and model)',
  'judgeMetrics.purpose.gevalForm': '{criterion}: fill the evaluation form',
  'judgeMetrics.purpose.withMethod':
    '{purpose} ({method, select, logprobs {logprobs} sampling {sampling} other {greedy}})',
  'judgeMetrics.geval.method.logprobs': 'weighted by the score token’s probabilities',
  'judgeMetrics.geval.method.sampling': 'mean of {count} samples',
  'judgeMetrics.geval.method.greedy': 'one greedy reply',
  'judgeMetrics.geval.method.none': 'no method ran',
  'judgeMetrics.geval.explanation':
    'The judge rates {criterion} {mean, number, ::.00} on its {min}–{max} scale ({method}; spread ±{std, number, ::.00}).',
  'judgeMetrics.geval.oneSample': 'One sample set: a single greedy reply.',
  'judgeMetrics.geval.noLogprobs':
    'This model returns no log-probabilities: scores are estimated from samples.',
  'judgeMetrics.geval.invalidSamples':
    '{bad} of {count} samples gave no valid score and were left out.',
  'judgeMetrics.geval.lowCoverage':
    'Only {share, number, percent} of the probability at the score token went to allowed scores; treat this score with care.',
  'judgeMetrics.geval.noProbabilities':
    'No usable score-token probabilities came back: the stated score is used as is (greedy).',
  'judgeMetrics.geval.noSteps': 'The judge wrote no evaluation steps for {criterion}.',
  'judgeMetrics.geval.noScore':
    'The judge\'s reply gives no score from {min} to {max} for {criterion}: "{reply}"',
  'judgeMetrics.geval.noSampleScore':
    'None of the {count} sampled replies gives a score from {min} to {max}.',
  'judge.geval.method.logprobs': 'probability-weighted from the score token’s log-probabilities',
  'judge.geval.method.sampling': 'estimated from samples at temperature 1',
  'judge.geval.method.greedy': 'a single greedy score (the model gives no probabilities)',
  'judge.geval.method.none': 'no method could run',
  'judge.geval.mean': 'weighted score {mean}',
  'judge.geval.spread': 'spread ±{std}',
  'judge.geval.covered': '{share} of the probability on allowed scores',
  'judge.geval.partSeparator': '; ',
  'judge.geval.summary': '{criterion} on {min}–{max}: {parts}.',
  'judge.geval.lowCoverage':
    'Less than half the probability fell on allowed scores: this score is unreliable.',
};

function builtinBuilder(criterion: BuiltinCriterion): JudgePipelineBuilder {
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
const customBuilder: JudgePipelineBuilder = {
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

export const gevalCoherenceMetric = {
  kind: 'judge',
  info: {
    label: 'G-Eval coherence',
    needs: 'llm',
    meaning:
      'The judge’s probability-weighted 1–5 rating of structure and flow (SummEval coherence); G-Eval-4 reached Spearman 0.58 with experts.',
    citation: 'Liu et al. 2023, G-Eval',
    range: [1, 5],
  },
  messages: {
    ...GEVAL_FAMILY_MESSAGES,
    'judgeMetrics.criterion.coherence': 'Coherence',
  },
  detailView: 'own',
  prompts: GEVAL_PROMPTS,
  pipelines: [builtinBuilder('coherence')],
  inDefaultRun: (settings) => settings.gevalCriteria.includes('coherence'),
} satisfies JudgeMetricRecord;

export const gevalConsistencyMetric = {
  kind: 'judge',
  info: {
    label: 'G-Eval consistency',
    needs: 'llm',
    meaning:
      'The judge’s probability-weighted 1–5 rating of factual agreement with the source (SummEval consistency).',
    citation: 'Liu et al. 2023, G-Eval',
    range: [1, 5],
  },
  messages: {
    'judgeMetrics.criterion.consistency': 'Consistency',
  },
  detailView: 'own',
  prompts: GEVAL_PROMPTS,
  pipelines: [builtinBuilder('consistency')],
  inDefaultRun: (settings) => settings.gevalCriteria.includes('consistency'),
} satisfies JudgeMetricRecord;

export const gevalFluencyMetric = {
  kind: 'judge',
  info: {
    label: 'G-Eval fluency',
    needs: 'llm',
    meaning:
      'The judge’s probability-weighted 1–3 rating of grammar and readability (SummEval fluency).',
    citation: 'Liu et al. 2023, G-Eval',
    range: [1, 3],
  },
  messages: {
    'judgeMetrics.criterion.fluency': 'Fluency',
  },
  detailView: 'own',
  prompts: GEVAL_PROMPTS,
  pipelines: [builtinBuilder('fluency')],
  inDefaultRun: (settings) => settings.gevalCriteria.includes('fluency'),
} satisfies JudgeMetricRecord;

export const gevalRelevanceMetric = {
  kind: 'judge',
  info: {
    label: 'G-Eval relevance',
    needs: 'llm',
    meaning:
      'The judge’s probability-weighted 1–5 rating of how well the summary keeps the important content (SummEval relevance).',
    citation: 'Liu et al. 2023, G-Eval',
    range: [1, 5],
  },
  messages: {
    'judgeMetrics.criterion.relevance': 'Relevance',
  },
  detailView: 'own',
  prompts: GEVAL_PROMPTS,
  pipelines: [builtinBuilder('relevance')],
  inDefaultRun: (settings) => settings.gevalCriteria.includes('relevance'),
} satisfies JudgeMetricRecord;

export const gevalCustomMetric = {
  kind: 'judge',
  info: {
    label: 'G-Eval (your criteria)',
    needs: 'llm',
    meaning:
      'Your own criteria, each rated on its own scale by the judge with G-Eval probability weighting.',
    citation: 'Liu et al. 2023, G-Eval',
    range: [0, 1],
  },
  messages: {
    'judgeMetrics.geval.noCustom': 'No custom G-Eval criteria are defined.',
  },
  detailView: 'own',
  prompts: GEVAL_PROMPTS,
  pipelines: [customBuilder],
  inDefaultRun: (settings) => settings.customCriteria.length > 0,
} satisfies JudgeMetricRecord;
