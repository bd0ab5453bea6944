/**
 * Scores as the data-set views print them: the exports' three decimals, so both agree, written
 * with the page's language's decimal sign (0,823 in Russian and Indonesian).
 */
import { formatNumber } from '../../lib/i18n/format.svelte.ts';

function missing(value: number | null | undefined): value is null | undefined {
  return value === null || value === undefined || !Number.isFinite(value);
}

/** A score: `digits` decimals, a dash when there is none. */
export function fmt(value: number | null | undefined, digits = 3): string {
  return missing(value) ? '—' : formatNumber(value, digits);
}

/** A difference: always signed (+, −, ±), a dash when there is none. */
export function signed(value: number | null | undefined, digits = 3): string {
  if (missing(value)) return '—';
  return `${value > 0 ? '+' : value < 0 ? '−' : '±'}${formatNumber(Math.abs(value), digits)}`;
}

/** A p-value as papers print it: three decimals, "< 0.001" below that. */
export function formatP(p: number | null | undefined): string {
  if (missing(p)) return '—';
  return p < 0.001 ? `< ${formatNumber(0.001, 3)}` : formatNumber(p, 3);
}
