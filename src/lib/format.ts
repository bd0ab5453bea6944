/** Number formatting shared by cards, history and exports. */
import type { MetricId } from './metrics/types.ts';

export function formatScore(id: MetricId, score: number | null | undefined): string {
  if (score === null || score === undefined || !Number.isFinite(score)) return '—';
  if (id === 'bleu') return score.toFixed(1);
  return score.toFixed(3);
}

export function formatPercent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatTime(timestamp: number): string {
  return new Date(timestamp).toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
}
