/** The LLM-judge metrics' public surface: run, plan, settings, and the details shapes for the UI. */
export {
  runJudgeMetrics,
  type JudgeProgress,
  type JudgeRunOptions,
  type JudgeRunSummary,
} from './run.ts';
export { defaultJudgeMetrics, planJudgeRun, type JudgePlan, type PlannedCall } from './plan.ts';
export {
  BUILTIN_CRITERIA,
  DEFAULT_JUDGE_SETTINGS,
  customCriterionSchema,
  judgeSettingsSchema,
  withJudgeDefaults,
  type BuiltinCriterion,
  type CustomCriterion,
  type JudgeSettings,
} from './settings.ts';
export type { CallRecord, JudgeAudit, Round } from './call.ts';
export type { ContextNote } from './context.ts';
export type { Offsets } from './spans.ts';
export type { DistributionBar, GEvalMethod } from './scoring.ts';
export type { AlignmentDetails, ClaimVerdict } from './summarization/alignment.ts';
export type { CoverageDetails, CoverageQuestion } from './summarization/coverage.ts';
export type { SummarizationDetails } from './summarization/summarization.ts';
export type { VaguenessDetails, VagueSentence } from './vagueness/vagueness.ts';
export type { GEvalDetails } from './g-eval/g-eval.ts';
export type { MethodPlan } from './g-eval/method.ts';
export type { RepeatedItem, RepetitivenessDetails } from './repetitiveness/repetitiveness.ts';
export type { AccuracyDetails, AccuracyPoint } from './ccai/accuracy.ts';
export type { AdherenceDetails, AdherenceQuestion } from './ccai/adherence.ts';
export type {
  CompletenessContent,
  CompletenessDetails,
  CompletenessSection,
} from './ccai/completeness.ts';
