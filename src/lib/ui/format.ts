/**
 * Number formatting shared by cards, history and the data-set views. Scores, counts and times go
 * through Intl in the page's language (English output equals toFixed, which tests parse).
 */
import type { MetricId } from '../metrics/types.ts';
import { formatDateTime, formatInteger, formatNumber } from '../i18n/format.svelte.ts';

export function formatScore(id: MetricId, score: number | null | undefined): string {
  if (score === null || score === undefined || !Number.isFinite(score)) return '—';
  return formatNumber(score, id === 'bleu' ? 1 : 3);
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
  return formatInteger(n);
}

export function formatTime(timestamp: number): string {
  return formatDateTime(timestamp);
}

/**
 * A backend name short enough for a history chip but still telling backends apart:
 * "transformers.js Xenova/all-MiniLM-L6-v2 · q8 · WASM" → "all-MiniLM-L6-v2 q8 WASM",
 * "compromise-14.17 (+dates)" → "compromise-14.17".
 */
export function shortBackend(backend: string): string {
  const model = /^transformers\.js (?:[^/\s]+\/)?(\S+) · (\S+) · (.+)$/u.exec(backend);
  if (model) return `${model[1]} ${model[2]} ${model[3]!.replace(/ \(software adapter\)/u, '')}`;
  return backend.split(' ')[0] ?? backend;
}
