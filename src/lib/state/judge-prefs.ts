/**
 * The judge's provider choice (never the key: see provider-keys.ts), remembered with the other
 * preferences. Base URLs default per provider; 'openai-compatible' needs one (Ollama, LM Studio,
 * llama.cpp, vLLM, OpenRouter, Groq, Mistral, DeepSeek…).
 */
import { z } from 'zod';
import { PROVIDER_KINDS, type ProviderKind } from '../llm/types.ts';
import { DEFAULT_BASE_URLS } from '../llm/hosts.ts';
import { byKind } from '../llm/providers/registry.ts';

/** One list of hosts for the settings and the Content-Security-Policy (src/lib/llm/hosts.ts). */
export { DEFAULT_BASE_URLS, PROVIDER_KINDS };

/** The settings' lists, from the provider records (src/lib/llm/providers/registry.ts). */
export const PROVIDER_LABELS: Readonly<Record<ProviderKind, string>> = byKind((r) => r.label);

export const DEFAULT_MODELS: Readonly<Record<ProviderKind, string>> = byKind((r) => r.defaultModel);

export const judgeProviderSchema = z.object({
  kind: z.enum(PROVIDER_KINDS),
  model: z.string().trim().min(1, 'needs a model name'),
  baseUrl: z.url({ protocol: /^https?$/ }),
  concurrency: z.number().int().min(1).max(16),
  /** Seconds one request may take; a slow local model may need more than the default. */
  timeoutSec: z.number().int().min(5, 'is at least 5 seconds').max(900).default(120),
});

export type JudgeProviderPrefs = z.infer<typeof judgeProviderSchema>;

export const DEFAULT_JUDGE_PROVIDER: JudgeProviderPrefs = {
  kind: 'openai',
  model: DEFAULT_MODELS.openai,
  baseUrl: DEFAULT_BASE_URLS.openai,
  concurrency: 4,
  timeoutSec: 120,
};

/** Where the run setup's budget is remembered, on this device only. */
export const RUN_BUDGET_KEY = 'sumlens.run-budget.v1';

const runBudgetSchema = z.object({
  usd: z.number().positive().optional(),
  requests: z.number().int().positive().optional(),
});

export type StoredRunBudget = z.infer<typeof runBudgetSchema>;

/** The budget last set in a run setup; empty (the plan is the ceiling) when none or unreadable. */
export function loadRunBudget(): StoredRunBudget {
  try {
    const raw: unknown = JSON.parse(globalThis.localStorage?.getItem(RUN_BUDGET_KEY) ?? '{}');
    const parsed = runBudgetSchema.safeParse(raw);
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export function saveRunBudget(budget: StoredRunBudget): void {
  try {
    globalThis.localStorage?.setItem(RUN_BUDGET_KEY, JSON.stringify(runBudgetSchema.parse(budget)));
  } catch {
    // storage refused (quota, privacy mode), or a value out of range: not remembered
  }
}
