/**
 * Round numbers for chart axes and histogram bins: steps of 1, 2, 2.5 or 5 times a power of ten,
 * so that ticks read 0.00, 0.05, 0.10 … rather than 0.00, 0.05, 0.10, 0.14 (a span cut into 20
 * equal parts). Pure, for the charts (src/components/charts/) and their tests.
 */

/** Drops the binary noise of decimal arithmetic (0.1 * 3 = 0.30000000000000004). */
function clean(x: number): number {
  return Number(x.toPrecision(12));
}

/** The round step that cuts `span` into about `count` parts (never fewer than `count` / 2). */
export function niceStep(span: number, count: number): number {
  if (!(span > 0) || !Number.isFinite(span)) return 1;
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  const nice =
    fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10;
  return clean(nice * power);
}

/** Decimals that show every multiple of `step` exactly (0.25 → 2, 0.05 → 2, 5 → 0). */
export function stepDecimals(step: number): number {
  if (!(step > 0)) return 0;
  for (let d = 0; d <= 12; d++) {
    if (Math.abs(Math.round(step * 10 ** d) - step * 10 ** d) < 1e-6) return d;
  }
  return 12;
}

/** The numbers a chart takes: finite values only, their least and greatest. */
export function extentOf(values: Iterable<number>): { min: number; max: number } | undefined {
  let min = Infinity;
  let max = -Infinity;
  // A loop, not Math.min(...values): spreading 100,000 arguments overflows the stack.
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return min <= max ? { min, max } : undefined;
}

/** A span to draw a single value in: its neighbourhood rather than a zero-width axis. */
function widen(min: number, max: number): { min: number; max: number } {
  if (max > min) return { min, max };
  const half = Math.abs(min) > 0 ? Math.abs(min) * 0.1 : 0.5;
  return { min: min - half, max: max + half };
}

export interface Axis {
  min: number;
  max: number;
  /** Distance between ticks. */
  step: number;
}

/**
 * An axis over [min, max], its ends on the round ticks (about `ticks` of them) at or beyond the
 * data, with `pad` (a fraction of the span) of room first if asked. The scatter plot draws points
 * unclipped, so that a point on an end is drawn whole without a tick past the data.
 */
export function niceAxis(min: number, max: number, ticks = 6, pad = 0): Axis {
  const wide = widen(min, max);
  const room = (wide.max - wide.min) * pad;
  const step = niceStep(wide.max - wide.min + 2 * room, ticks);
  return {
    min: clean(Math.floor((wide.min - room) / step) * step),
    max: clean(Math.ceil((wide.max + room) / step) * step),
    step,
  };
}

export interface Bins {
  /** Bin edges, `counts.length + 1` of them, evenly spaced on round numbers. */
  edges: number[];
  /** Values per bin; bin i is [edges[i], edges[i + 1]), the last one closed. */
  counts: number[];
  step: number;
}

/** A histogram of the finite values in about `target` bins of a round width. */
export function histogramBins(values: readonly number[], target = 20): Bins {
  const range = extentOf(values);
  if (!range) return { edges: [], counts: [], step: 0 };
  const wide = widen(range.min, range.max);
  const step = niceStep(wide.max - wide.min, target);
  const first = Math.floor(wide.min / step + 1e-9);
  // At least one bin; the greatest value, when it sits on the last edge, counts in the last bin.
  const last = Math.max(first + 1, Math.ceil(wide.max / step - 1e-9));
  const edges: number[] = [];
  for (let k = first; k <= last; k++) edges.push(clean(k * step));
  const counts = new Array<number>(edges.length - 1).fill(0);
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    const i = Math.floor((v - edges[0]!) / step + 1e-9);
    const at = Math.min(counts.length - 1, Math.max(0, i));
    counts[at] = (counts[at] ?? 0) + 1;
  }
  return { edges, counts, step };
}
