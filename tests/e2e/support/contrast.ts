/**
 * WCAG 2 contrast measured in the page: an element's text colour against the colour actually
 * behind it, found by walking up its ancestors and laying their semi-transparent backgrounds
 * (tints made with color-mix) over the first opaque one.
 */
import type { Locator } from 'playwright-core';

export interface Contrast {
  /** (L1 + 0.05) / (L2 + 0.05); WCAG AA asks 4.5 of body text, 3 of large text. */
  ratio: number;
  /** The text colour (an SVG text's fill), as computed. */
  colour: string;
  /** Relative luminance of the background behind the element, 0 (black) to 1 (white). */
  backgroundLuminance: number;
  /** The element's first words, to name it in a failure. */
  text: string;
}

/** The contrast of `target`'s text with its background (the first element it matches). */
export function textContrast(target: Locator): Promise<Contrast> {
  return target.first().evaluate((el) => {
    // Any CSS colour (oklab, color-mix…) as 0–255 RGBA, read back from a 1-pixel canvas.
    const probe = document.createElement('canvas').getContext('2d', { willReadFrequently: true })!;
    const rgba = (colour: string) => {
      probe.clearRect(0, 0, 1, 1);
      probe.fillStyle = colour;
      probe.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = probe.getImageData(0, 0, 1, 1).data;
      return [r!, g!, b!, a! / 255] as const;
    };
    const over = (top: readonly number[], below: readonly number[]) =>
      [0, 1, 2].map((i) => top[i]! * top[3]! + below[i]! * (1 - top[3]!)).concat(1);
    const luminance = (colour: readonly number[]) => {
      const [r, g, b] = colour.slice(0, 3).map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    // Tints from the element up, until an opaque background (the page's own at the latest).
    const layers: (readonly number[])[] = [];
    for (let node: Element | null = el; node; node = node.parentElement) {
      const layer = rgba(getComputedStyle(node).backgroundColor);
      if (layer[3] === 0) continue;
      layers.push(layer);
      if (layer[3] === 1) break;
    }
    if (layers.at(-1)?.[3] !== 1) layers.push([255, 255, 255, 1]);
    const background = layers.reduceRight((below, top) => over(top, below));
    const style = getComputedStyle(el);
    const colour = el instanceof SVGElement ? style.fill : style.color;
    const text = over(rgba(colour), background);
    const [hi, lo] = [luminance(text), luminance(background)].sort((x, y) => y - x);
    return {
      ratio: (hi! + 0.05) / (lo! + 0.05),
      colour,
      backgroundLuminance: luminance(background),
      text: (el.textContent ?? '').trim().slice(0, 40),
    };
  });
}
