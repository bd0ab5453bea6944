/**
 * A metric's name, meaning and citation in the page's language. The registry keeps English (the CLI
 * and exports read it); the page asks here. A metric id without messages (a stale stored id) falls
 * back to the registry's English.
 */
import type { MetricId } from '../metrics/types.ts';
import { metricInfo } from '../metrics/registry.ts';
import { en, type MessageKey } from './catalog-en.ts';
import { t } from './i18n.svelte.ts';

function has(key: string): key is MessageKey {
  return key in en;
}

export function metricLabel(id: MetricId): string {
  const key = `card.metric.${id}.label`;
  return has(key) ? t(key) : metricInfo(id).label;
}

export function metricMeaning(id: MetricId): string {
  const key = `card.metric.${id}.meaning`;
  return has(key) ? t(key) : metricInfo(id).meaning;
}

export function metricCitation(id: MetricId): string | undefined {
  const key = `card.metric.${id}.citation`;
  return has(key) ? t(key) : metricInfo(id).citation;
}
