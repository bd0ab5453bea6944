/** A score as the run view's tables print it: three decimals, a dash when there is none. */
export function fmt(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(3);
}
