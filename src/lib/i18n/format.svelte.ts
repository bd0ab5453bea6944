/**
 * Numbers, percentages, dates and durations in the page's language, through Intl (Russian and
 * Indonesian write 0,82; Chinese and Japanese dates read 2026/12/02). Reads the locale rune, so a
 * template that formats re-renders on a switch.
 */
import { i18n } from './i18n.svelte.ts';

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function numberFormat(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `n${i18n.locale}${JSON.stringify(options)}`;
  let f = cache.get(key) as Intl.NumberFormat | undefined;
  if (!f) {
    f = new Intl.NumberFormat(i18n.locale, options);
    cache.set(key, f);
  }
  return f;
}

function dateFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `d${i18n.locale}${JSON.stringify(options)}`;
  let f = cache.get(key) as Intl.DateTimeFormat | undefined;
  if (!f) {
    f = new Intl.DateTimeFormat(i18n.locale, options);
    cache.set(key, f);
  }
  return f;
}

/** A number with exactly `digits` decimals (scores: 0.823), no grouping below 10,000. */
export function formatNumber(value: number, digits = 3): string {
  return numberFormat({ minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    value,
  );
}

/** A signed difference: +0.042, −0.010 (a true minus sign). */
export function formatSigned(value: number, digits = 3): string {
  return numberFormat({
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    signDisplay: 'exceptZero',
  }).format(value);
}

/** A count: 1,308 / 1 308 / 1.308 by language. */
export function formatInteger(value: number): string {
  return numberFormat({ maximumFractionDigits: 0 }).format(value);
}

/** A share in [0, 1] as a percentage: 0.5 → 50%. */
export function formatPercent(share: number, digits = 0): string {
  return numberFormat({
    style: 'percent',
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(share);
}

/** Bytes as kB / MB, with the unit in the page's language. */
export function formatBytes(bytes: number): string {
  if (bytes < 1e6) {
    return numberFormat({ style: 'unit', unit: 'kilobyte', maximumFractionDigits: 0 }).format(
      bytes / 1e3,
    );
  }
  return numberFormat({ style: 'unit', unit: 'megabyte', maximumFractionDigits: 1 }).format(
    bytes / 1e6,
  );
}

export function formatDateTime(value: Date | number | string): string {
  return dateFormat({ dateStyle: 'medium', timeStyle: 'short' }).format(new Date(value));
}

/** A list in the page's language: "A, B and C" / "A、B和C". */
export function formatList(
  items: readonly string[],
  type: 'conjunction' | 'disjunction' = 'conjunction',
): string {
  return new Intl.ListFormat(i18n.locale, { type }).format(items);
}
