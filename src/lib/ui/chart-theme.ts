/**
 * The colours a chart.js canvas draws its text, grid and marks in, read from the page's theme
 * variables (src/app.css) so that axis numbers stay readable in dark mode: a canvas does not
 * inherit CSS colours, and chart.js's default grey (#666) is faint on the dark panel.
 */

export interface ChartColors {
  text: string;
  grid: string;
  mark: string;
}

const FALLBACK: ChartColors = { text: '#1c2430', grid: '#dde2e8', mark: '#2f5d8a' };

/** The theme's ink, line and accent colours as they apply to `element` now. */
export function chartColors(element: Element): ChartColors {
  const style = globalThis.getComputedStyle?.(element);
  const read = (name: string, fallback: string) => style?.getPropertyValue(name).trim() || fallback;
  return {
    text: read('--ink', FALLBACK.text),
    grid: read('--line', FALLBACK.grid),
    mark: read('--accent', FALLBACK.mark),
  };
}

/** Calls `redraw` when the colour scheme changes; returns the unsubscribe. */
export function onSchemeChange(redraw: () => void): () => void {
  const query = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
  if (!query) return () => undefined;
  query.addEventListener('change', redraw);
  return () => query.removeEventListener('change', redraw);
}

/** `#rrggbb` with an alpha, for translucent marks (scatter points that overlap). */
export function withAlpha(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{6})$/iu.exec(color)?.[1];
  if (!hex) return color;
  const n = Number.parseInt(hex, 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}
