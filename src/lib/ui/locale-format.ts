/**
 * Scores, counts and times in the page's language, for cards, history and the data-set views
 * (English output equals toFixed, which tests parse). Page only: it reads the language rune.
 */
import type { MetricId } from '../metrics/types.ts';
import { formatDateTime, formatInteger, formatNumber } from '../i18n/format.svelte.ts';

export function formatScore(id: MetricId, score: number | null | undefined): string {
  if (score === null || score === undefined || !Number.isFinite(score)) return '—';
  return formatNumber(score, id === 'bleu' ? 1 : 3);
}

export function formatCount(n: number): string {
  return formatInteger(n);
}

export function formatTime(timestamp: number): string {
  return formatDateTime(timestamp);
}
