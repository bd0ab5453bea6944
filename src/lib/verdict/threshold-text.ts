import { formatNumber } from '../i18n/format.svelte.ts';

/** A threshold as the user typed it (0.9, not 0.900), at most 3 decimals, in the page's locale. */
export function thresholdText(x: number): string {
  const decimals = Math.min(3, (String(x).split('.')[1] ?? '').length);
  return formatNumber(x, decimals);
}
