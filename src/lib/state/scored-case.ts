/**
 * Which case the cards' results belong to, as one comparable key: the texts, the instructions,
 * the metric settings, where models come from (a newly approved download changes the backend) and
 * what the LLM judge was asked for. The page marks results stale the moment
 * the current input's key differs from the scored one, and an identical re-score replaces its
 * history entry instead of adding one.
 */
import type { MetricSettings } from '../metrics/settings.ts';
import type { CaseInput } from '../metrics/types.ts';

/** JSON with object keys sorted, so that two equal values give one string whatever their order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function scoredCaseKey(
  input: CaseInput,
  settings: MetricSettings,
  /** What the LLM judge was asked for (metrics, provider, model, criteria), or undefined. */
  judge: unknown,
  /** The model source (hub or self-hosted, approved downloads). */
  models?: unknown,
): string {
  return stableJson({
    input: { ...input, reference: input.reference?.trim() ? input.reference : undefined },
    settings,
    judge,
    models,
  });
}
