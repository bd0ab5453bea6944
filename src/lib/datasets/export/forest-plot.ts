/**
 * Forest plots as inline SVG for the HTML exports. A comparison's metrics live on different scales
 * (BLEU 0–100, the rest 0–1), so each metric gets a row of its own with its own axis and round
 * tick labels, in the metric's own units, rather than one shared axis on which BLEU's interval
 * dwarfs the others (or a standardised Δ, which would hide the units the table beside it prints).
 * Each axis spans 0 and the whole interval. The label sits on a line of its own above its axis,
 * cut with an ellipsis where it is too long (the whole label in the row's <title>), so labels
 * never overlap; the raw Δ and interval are printed at the line's end. One small SVG per row, so a
 * phone shows each at a readable size instead of shrinking one wide chart.
 */
import { niceAxis, stepDecimals } from '../../ui/axis.ts';
import { escapeHtml } from './escape.ts';
import { signed } from './format.ts';

export interface ForestItem {
  label: string;
  mean: number;
  low: number;
  high: number;
}

export interface ForestScale {
  min: number;
  max: number;
  /** Round tick values from min to max, min and max included. */
  ticks: number[];
  /** Decimals each tick label needs. */
  decimals: number;
}

/** Drops the binary noise of decimal arithmetic. */
function clean(x: number): number {
  return Number(x.toPrecision(12));
}

/**
 * The axis of one interval: round ticks (about `ticks` of them) from at or below min(0, low, mean)
 * to at or above max(0, high, mean).
 */
export function forestScale(item: Omit<ForestItem, 'label'>, ticks = 4): ForestScale {
  return sharedForestScale([item], true, ticks);
}

/**
 * One axis for several intervals (a metric's systems), spanning every interval, and 0 where they
 * are differences (`zero`); means of a score need not reach 0.
 */
export function sharedForestScale(
  items: readonly Omit<ForestItem, 'label'>[],
  zero: boolean,
  ticks = 4,
): ForestScale {
  let low = zero ? 0 : Infinity;
  let high = zero ? 0 : -Infinity;
  for (const i of items) {
    low = Math.min(low, i.low, i.mean);
    high = Math.max(high, i.high, i.mean);
  }
  const axis = niceAxis(low, high, ticks);
  const values: number[] = [];
  for (let k = 0; ; k++) {
    const v = clean(axis.min + k * axis.step);
    if (v > axis.max + axis.step / 1e6) break;
    values.push(v);
  }
  return { min: axis.min, max: axis.max, ticks: values, decimals: stepDecimals(axis.step) };
}

/** Average advance of an 11px system-ui glyph, generously (CJK runs about twice that). */
function textWidth(text: string): number {
  let w = 0;
  for (const ch of text)
    w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60]/u.test(ch)
      ? 11.5
      : 6.4;
  return w;
}

/** `text` cut with an ellipsis to fit `width` pixels. */
export function fitLabel(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  let out = '';
  for (const ch of text) {
    if (textWidth(`${out}${ch}…`) > width) break;
    out += ch;
  }
  return `${out.trimEnd()}…`;
}

const WIDTH = 360;
const SIDE = 12;

function position(scale: ForestScale, v: number): number {
  return SIDE + ((v - scale.min) / (scale.max - scale.min || 1)) * (WIDTH - 2 * SIDE);
}

function axisMarkup(scale: ForestScale, y: number): string {
  const x = (v: number) => position(scale, v).toFixed(1);
  const ticks = scale.ticks
    .map(
      (v) =>
        `<line class="axis" x1="${x(v)}" x2="${x(v)}" y1="${y}" y2="${y + 4}"/><text x="${x(v)}" y="${y + 15}" text-anchor="middle">${v.toFixed(scale.decimals).replace('-', '−')}</text>`,
    )
    .join('');
  return `<line class="axis" x1="${SIDE}" x2="${WIDTH - SIDE}" y1="${y}" y2="${y}"/>${ticks}`;
}

function intervalMarkup(scale: ForestScale, item: ForestItem, y: number): string {
  const x = (v: number) => position(scale, v).toFixed(1);
  return `<line class="ci" x1="${x(item.low)}" x2="${x(item.high)}" y1="${y}" y2="${y}"/><circle class="dot" cx="${x(item.mean)}" cy="${y}" r="4"/>`;
}

/** The figures printed beside a label: Δ and its interval. */
function figures(item: ForestItem): string {
  return `${signed(item.mean)} [${signed(item.low)}, ${signed(item.high)}]`;
}

/**
 * One SVG per item, each with its own axis: a comparison's metrics. `title` names the chart for
 * assistive technology (the wrapper's label).
 */
export function forestPlot(items: readonly ForestItem[], title: string): string {
  if (items.length === 0) return '';
  const height = 62;
  const rows = items.map((item) => {
    const scale = forestScale(item);
    const shown = figures(item);
    const label = fitLabel(item.label, WIDTH - 2 * SIDE - textWidth(shown) - 12);
    const zero = position(scale, 0).toFixed(1);
    return `<svg role="img" aria-label="${escapeHtml(`${item.label}: ${shown}`)}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" xmlns="http://www.w3.org/2000/svg" data-chart="intervals" data-min="${scale.min}" data-max="${scale.max}"><title>${escapeHtml(`${item.label}: ${shown}`)}</title><text x="${SIDE}" y="13">${escapeHtml(label)}</text><text x="${WIDTH - SIDE}" y="13" text-anchor="end">${escapeHtml(shown)}</text><line class="axis" x1="${zero}" x2="${zero}" y1="20" y2="40" stroke-dasharray="3 3"/>${intervalMarkup(scale, item, 30)}${axisMarkup(scale, 40)}</svg>`;
  });
  return `<div class="forest" role="group" aria-label="${escapeHtml(title)}">${rows.join('')}</div>`;
}

/**
 * Several intervals of one metric on one shared axis (a leaderboard's systems), each label on its
 * own line above its interval, cut to fit; a dashed 0 line where `zero` (differences).
 */
export function sharedForestPlot(
  items: readonly ForestItem[],
  title: string,
  zero = false,
): string {
  if (items.length === 0) return '';
  const scale = sharedForestScale(items, zero);
  const row = 30;
  const bottom = 8 + items.length * row;
  const lines = items.map((item, i) => {
    const y = 8 + i * row;
    const label = fitLabel(item.label, WIDTH - 2 * SIDE);
    return `<g><title>${escapeHtml(`${item.label}: ${figures(item)}`)}</title><text x="${SIDE}" y="${y + 9}">${escapeHtml(label)}</text>${intervalMarkup(scale, item, y + 19)}</g>`;
  });
  const zeroLine = zero
    ? `<line class="axis" x1="${position(scale, 0).toFixed(1)}" x2="${position(scale, 0).toFixed(1)}" y1="4" y2="${bottom}" stroke-dasharray="3 3"/>`
    : '';
  return `<svg role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${WIDTH} ${bottom + 22}" width="${WIDTH}" height="${bottom + 22}" xmlns="http://www.w3.org/2000/svg" data-chart="intervals" data-min="${scale.min}" data-max="${scale.max}"><title>${escapeHtml(title)}</title>${zeroLine}${lines.join('')}${axisMarkup(scale, bottom)}</svg>`;
}
