/** Number formatting shared by cards, history and exports. */
import type { MetricId } from '../metrics/types.ts';

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
