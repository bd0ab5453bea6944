/**
 * The records of the LLM-judge metrics: what each means, which pipelines produce it (builders.ts;
 * metrics that share calls name the same builder), and whether a default run selects it.
 */
import type { JudgeMetricRecord } from '../record.ts';
import type { AccuracyDetails } from './ccai/accuracy.ts';
import type { AdherenceDetails } from './ccai/adherence.ts';
import type { CompletenessDetails } from './ccai/completeness.ts';
import type { GEvalDetails } from './g-eval/g-eval.ts';
import type { RepetitivenessDetails } from './repetitiveness/repetitiveness.ts';
import type { AlignmentDetails } from './summarization/alignment.ts';
import type { CoverageDetails } from './summarization/coverage.ts';
import type { SummarizationDetails } from './summarization/summarization.ts';
import type { VaguenessDetails } from './vagueness/vagueness.ts';
import {
  adherenceBuilder,
  claimsBuilder,
  completenessBuilder,
  coverageBuilder,
  gevalBuiltinBuilder,
  gevalCustomBuilder,
  repetitivenessBuilder,
  vaguenessBuilder,
} from './builders.ts';

declare module '../types.ts' {
  interface JudgeMetricDetails {
    summarization: SummarizationDetails;
    alignment: AlignmentDetails;
    coverage: CoverageDetails;
    vagueness: VaguenessDetails;
    repetitiveness: RepetitivenessDetails;
    'geval-coherence': GEvalDetails;
    'geval-consistency': GEvalDetails;
    'geval-fluency': GEvalDetails;
    'geval-relevance': GEvalDetails;
    'geval-custom': GEvalDetails;
    'ccai-accuracy': AccuracyDetails;
    'ccai-adherence': AdherenceDetails;
    'ccai-completeness': CompletenessDetails;
  }
}

const always = () => true;

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
  detailView: 'own',
  pipelines: [claimsBuilder, coverageBuilder],
  inDefaultRun: always,
} satisfies JudgeMetricRecord;

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
  detailView: 'own',
  pipelines: [claimsBuilder],
  inDefaultRun: always,
} satisfies JudgeMetricRecord;

export const coverageMetric = {
  kind: 'judge',
  info: {
    label: 'Coverage',
    needs: 'llm',
    meaning:
      'How well the summary answers the key questions of the source, weighted by their importance (1–5): Σ importance·grade/5 / Σ importance.',
    citation: 'DeepEval SummarizationMetric (coverage), with the importances actually used',
    range: [0, 1],
  },
  detailView: 'own',
  pipelines: [coverageBuilder],
  inDefaultRun: always,
} satisfies JudgeMetricRecord;

export const vaguenessMetric = {
  kind: 'judge',
  info: {
    label: 'Specific sentences',
    needs: 'llm',
    meaning:
      'Share of summary sentences that name a concrete point rather than saying what the text “discusses”.',
    citation: 'SPEC §3, sentence vagueness',
    range: [0, 1],
  },
  detailView: 'own',
  pipelines: [vaguenessBuilder],
  inDefaultRun: always,
} satisfies JudgeMetricRecord;

export const repetitivenessMetric = {
  kind: 'judge',
  info: {
    label: 'No needless repetition',
    needs: 'llm',
    meaning:
      'G-Eval criterion: 1 = the summary never repeats a fact or point without need; probability-weighted, with the spread between samples.',
    citation: 'G-Eval (Liu et al. 2023) with a repetition criterion',
    range: [0, 1],
  },
  detailView: 'own',
  pipelines: [repetitivenessBuilder],
  inDefaultRun: always,
} satisfies JudgeMetricRecord;

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
  detailView: 'own',
  pipelines: [gevalBuiltinBuilder('coherence')],
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
  detailView: 'own',
  pipelines: [gevalBuiltinBuilder('consistency')],
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
  detailView: 'own',
  pipelines: [gevalBuiltinBuilder('fluency')],
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
  detailView: 'own',
  pipelines: [gevalBuiltinBuilder('relevance')],
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
  detailView: 'own',
  pipelines: [gevalCustomBuilder],
  inDefaultRun: (settings) => settings.customCriteria.length > 0,
} satisfies JudgeMetricRecord;

export const ccaiAccuracyMetric = {
  kind: 'judge',
  info: {
    label: 'Accuracy (call center)',
    needs: 'llm',
    meaning:
      'Share of the summary points that the judge finds accurate against the source (reuses the alignment claims).',
    citation: 'Google CCAI Insights summarization autoeval',
    range: [0, 1],
  },
  detailView: 'own',
  pipelines: [claimsBuilder],
  inDefaultRun: always,
} satisfies JudgeMetricRecord;

export const ccaiAdherenceMetric = {
  kind: 'judge',
  info: {
    label: 'Adherence (call center)',
    needs: 'llm',
    meaning: 'Share of your summary instructions the summary follows; n/a without instructions.',
    citation: 'Google CCAI Insights summarization autoeval',
    range: [0, 1],
  },
  detailView: 'own',
  pipelines: [adherenceBuilder],
  inDefaultRun: always,
} satisfies JudgeMetricRecord;

export const ccaiCompletenessMetric = {
  kind: 'judge',
  info: {
    label: 'Completeness (call center)',
    needs: 'llm',
    meaning:
      'Share of the source contents your instructions ask for that the summary covers; n/a for categorical sections.',
    citation: 'Google CCAI Insights summarization autoeval',
    range: [0, 1],
  },
  detailView: 'own',
  pipelines: [completenessBuilder],
  inDefaultRun: always,
} satisfies JudgeMetricRecord;
