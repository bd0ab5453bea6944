/** User-settable knobs of the LLM-judge metrics (SPEC §3), validated with zod, and their defaults. */
import { z } from 'zod';

export const BUILTIN_CRITERIA = ['coherence', 'consistency', 'fluency', 'relevance'] as const;
export type BuiltinCriterion = (typeof BUILTIN_CRITERIA)[number];

export const GEVAL_METHOD_CHOICES = ['auto', 'logprobs', 'sampling', 'greedy'] as const;
export type GEvalMethodChoice = (typeof GEVAL_METHOD_CHOICES)[number];

/**
 * A user-defined G-Eval criterion. Scores are single digits (0–9) so that each score is one token
 * for the probability weighting (PROVIDERS.md §12.2: multi-digit scores split apart).
 */
export const customCriterionSchema = z
  .object({
    name: z.string().trim().min(1, 'needs a name').max(80),
    description: z.string().trim().min(10, 'needs a description of what to rate').max(4000),
    scale: z.tuple([z.number().int().min(0).max(8), z.number().int().min(1).max(9)]),
  })
  .refine((c) => c.scale[0] < c.scale[1], {
    message: 'the scale needs min < max',
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
  /** The built-in criteria the UI offers ticked; their records (judge/records.ts) say which are in a default run. */
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

/** Saved settings from an older version, completed with today's defaults and validated. */
export function withJudgeDefaults(saved: Partial<JudgeSettings> | undefined): JudgeSettings {
  const merged = { ...DEFAULT_JUDGE_SETTINGS, ...saved };
  const parsed = judgeSettingsSchema.safeParse(merged);
  return parsed.success ? parsed.data : DEFAULT_JUDGE_SETTINGS;
}
