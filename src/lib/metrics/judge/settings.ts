/**
 * User-settable knobs of the LLM-judge metrics (SPEC §3), validated with zod, and their defaults;
 * a setting that does not validate stops only the metrics that read it (a G-Eval criterion's
 * name, only G-Eval custom), whoever runs them.
 */
import { z } from 'zod';
import { ref, type MessageKey, type MessageRef } from '../../i18n/message.ts';
import { blockedReasons, settingProblems, type SettingProblemRef } from '../setting-problems.ts';
import type { JudgeMetricId } from '../types.ts';

export const BUILTIN_CRITERIA = ['coherence', 'consistency', 'fluency', 'relevance'] as const;
export type BuiltinCriterion = (typeof BUILTIN_CRITERIA)[number];

export const GEVAL_METHOD_CHOICES = ['auto', 'logprobs', 'sampling', 'greedy'] as const;
export type GEvalMethodChoice = (typeof GEVAL_METHOD_CHOICES)[number];

/**
 * A user-defined G-Eval criterion. Scores are single digits (0–9) so that each score is one token
 * for the probability weighting (PROVIDERS.md §12.2: multi-digit scores split apart).
 */
export const CRITERION_NAME_MAX = 80;
export const CRITERION_DESCRIPTION_MIN = 10;
export const CRITERION_DESCRIPTION_MAX = 4000;

export const customCriterionSchema = z
  .object({
    name: z.string().trim().min(1).max(CRITERION_NAME_MAX),
    description: z.string().trim().min(CRITERION_DESCRIPTION_MIN).max(CRITERION_DESCRIPTION_MAX),
    scale: z.tuple([z.number().int().min(0).max(8), z.number().int().min(1).max(9)]),
  })
  .refine((c) => c.scale[0] < c.scale[1], {
    message: 'must have its min below its max',
    path: ['scale'],
  });

export type CustomCriterion = z.infer<typeof customCriterionSchema>;

export const judgeSettingsSchema = z.object({
  /** F-beta of alignment and coverage; beta < 1 weights faithfulness, > 1 coverage. */
  beta: z.number().gt(0).max(10),
  /** Count claims the source does not contain against the summary (else neutral). */
  unsupportedCountsAgainst: z.boolean(),
  /** How many key questions to ask about the source for coverage. */
  coverageQuestions: z.number().int().min(1).max(30),
  /** 'auto': logprobs when the model returns them, else `gevalSamples` samples, else greedy. */
  gevalMethod: z.enum(GEVAL_METHOD_CHOICES),
  /** Samples for the sampling method (G-Eval paper: n = 20 at temperature 1, top_p 1); 1 = greedy. */
  gevalSamples: z.number().int().min(1).max(50),
  /** Alternatives asked per token for the logprob method (clamped to what the model allows). */
  gevalTopLogprobs: z.number().int().min(1).max(20),
  /** The built-in criteria the UI offers ticked; their records (judge/g-eval/geval-metrics.ts) say which are in a default run. */
  gevalCriteria: z.array(z.enum(BUILTIN_CRITERIA)),
  /** G-Eval's fluency is 1–3; SummEval's human fluency ratings are 1–5. */
  fluencyScale: z.enum(['1-3', '1-5']),
  customCriteria: z.array(customCriterionSchema).max(20),
  /** The judge model's context window in tokens; a longer source is cut in the middle. */
  contextTokens: z.number().int().min(2000).max(10_000_000),
});

export type JudgeSettings = z.infer<typeof judgeSettingsSchema>;

export const DEFAULT_JUDGE_SETTINGS: JudgeSettings = {
  beta: 1,
  unsupportedCountsAgainst: true,
  coverageQuestions: 8,
  gevalMethod: 'auto',
  gevalSamples: 20,
  gevalTopLogprobs: 20,
  gevalCriteria: [...BUILTIN_CRITERIA],
  fluencyScale: '1-3',
  customCriteria: [],
  contextTokens: 128_000,
};

/** A criterion of the right shape, whatever its lengths: kept so that the panel says what is wrong. */
const criterionShape = z.object({
  name: z.string(),
  description: z.string(),
  scale: z.tuple([z.number(), z.number()]),
});

/**
 * Saved settings from an older version, completed with today's defaults, field by field: a value
 * that does not validate falls back to its default alone. Custom criteria of the right shape stay
 * even past a limit (an older version took longer names): their problem stops G-Eval custom only,
 * and the panel shows it next to them.
 */
export function withJudgeDefaults(saved: Partial<JudgeSettings> | undefined): JudgeSettings {
  const merged: Record<string, unknown> = { ...DEFAULT_JUDGE_SETTINGS, ...saved };
  const whole = judgeSettingsSchema.safeParse(merged);
  if (whole.success) return whole.data;
  const out: Record<string, unknown> = structuredClone(DEFAULT_JUDGE_SETTINGS);
  for (const [key, schema] of Object.entries(judgeSettingsSchema.shape)) {
    const field = (schema as z.ZodType).safeParse(merged[key]);
    if (field.success) out[key] = field.data;
  }
  const criteria = z.array(criterionShape).safeParse(merged.customCriteria);
  if (criteria.success) out.customCriteria = criteria.data;
  return out as JudgeSettings;
}

const GEVAL_BUILTINS: readonly JudgeMetricId[] = [
  'geval-coherence',
  'geval-consistency',
  'geval-fluency',
  'geval-relevance',
];
const GEVAL: readonly JudgeMetricId[] = [...GEVAL_BUILTINS, 'geval-custom', 'repetitiveness'];

/** The metrics that read each setting; 'all': every metric of the run (the context is all's). */
const READERS: Record<keyof JudgeSettings, readonly JudgeMetricId[] | 'all'> = {
  beta: ['summarization'],
  unsupportedCountsAgainst: ['alignment', 'summarization', 'ccai-accuracy'],
  coverageQuestions: ['coverage', 'summarization'],
  gevalMethod: GEVAL,
  gevalSamples: GEVAL,
  gevalTopLogprobs: GEVAL,
  gevalCriteria: GEVAL_BUILTINS,
  fluencyScale: ['geval-fluency'],
  customCriteria: ['geval-custom'],
  contextTokens: 'all',
};

/** Each setting as the judge panel labels it. */
const FIELDS: Record<keyof JudgeSettings, MessageKey> = {
  beta: 'judge.setting.beta',
  unsupportedCountsAgainst: 'judge.setting.unsupportedCountsAgainst',
  coverageQuestions: 'judge.setting.coverageQuestions',
  gevalMethod: 'judge.setting.gevalMethod',
  gevalSamples: 'judge.setting.gevalSamples',
  gevalTopLogprobs: 'judge.field.gevalTopLogprobs',
  gevalCriteria: 'judge.field.gevalCriteria',
  fluencyScale: 'judge.field.fluencyScale',
  customCriteria: 'judge.criteria.title',
  contextTokens: 'judge.setting.contextTokens',
};

const CRITERION_PARTS: Record<string, MessageKey> = {
  name: 'judge.criteria.name',
  description: 'judge.criteria.description',
  scale: 'judge.criteria.scale',
};

function judgeField(path: readonly string[]): MessageRef {
  const [key, index, part] = path;
  const partKey = part === undefined ? undefined : CRITERION_PARTS[part];
  if (key === 'customCriteria' && partKey) {
    return ref('judge.criteria.field', { part: ref(partKey), number: Number(index) + 1 });
  }
  return key !== undefined && key in FIELDS
    ? ref(FIELDS[key as keyof JudgeSettings])
    : ref('common.literal', { text: path.join('.') });
}

/** The judge settings that do not validate, each with the metrics of `metrics` it stops. */
export function judgeSettingsProblems(
  settings: JudgeSettings,
  metrics: readonly JudgeMetricId[],
): SettingProblemRef[] {
  const check = judgeSettingsSchema.safeParse(settings);
  if (check.success) return [];
  return settingProblems(check.error.issues, judgeField, ([key]) => {
    const readers = READERS[key as keyof JudgeSettings] ?? 'all';
    return readers === 'all' ? metrics : metrics.filter((id) => readers.includes(id));
  });
}

/** A criterion being typed in, checked field by field (`name`, `description`, `scale`). */
export function criterionProblems(draft: {
  name: string;
  description: string;
  scale: [number, number];
}): SettingProblemRef[] {
  const check = customCriterionSchema.safeParse(draft);
  if (check.success) return [];
  return settingProblems(
    check.error.issues,
    ([part]) => ref(CRITERION_PARTS[part ?? ''] ?? 'judge.criteria.title'),
    () => ['geval-custom'],
  );
}

/**
 * What of a judge run can go ahead: the metrics no bad setting stops, the settings they read
 * (each bad value at its default: only the stopped metrics read it), and the reason each stopped
 * metric gives instead of a score.
 */
export function usableJudgeRun(
  metrics: readonly JudgeMetricId[],
  settings: JudgeSettings,
): { metrics: JudgeMetricId[]; settings: JudgeSettings; blocked: Map<JudgeMetricId, MessageRef> } {
  const problems = judgeSettingsProblems(settings, metrics);
  if (problems.length === 0) return { metrics: [...metrics], settings, blocked: new Map() };
  const runnable: Record<string, unknown> = { ...settings };
  for (const { path } of problems) {
    const key = path.split('.')[0] as keyof JudgeSettings;
    runnable[key] = structuredClone(DEFAULT_JUDGE_SETTINGS[key]);
  }
  const blocked = blockedReasons(problems, 'judge.problem.blocked', {
    section: ref('judge.panel.title'),
  }) as Map<JudgeMetricId, MessageRef>;
  return {
    metrics: metrics.filter((id) => !blocked.has(id)),
    settings: runnable as JudgeSettings,
    blocked,
  };
}
