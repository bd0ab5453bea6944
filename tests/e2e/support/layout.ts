/** Layout checks the view specs share: cut-off text and sideways page scroll. */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';

/**
 * Buttons, labels and summaries cut by their box, and text ended with an ellipsis, unless the
 * element's tooltip holds the whole text (a history entry's first line); and buttons that lie past
 * the right edge of the box that scrolls them, seen only by scrolling a table sideways.
 */
export function clippedText(view: Locator): Promise<string[]> {
  return view.evaluate((root) => {
    const out: string[] = [];
    const scroller = (el: Element): Element | undefined => {
      for (
        let node = el.parentElement;
        node && node !== root.parentElement;
        node = node.parentElement
      ) {
        if (getComputedStyle(node).overflowX !== 'visible') return node;
      }
      return undefined;
    };
    for (const el of root.querySelectorAll<HTMLElement>('*')) {
      if (el instanceof HTMLOptionElement || el.closest('select')) continue;
      if (!el.checkVisibility() || el.clientWidth === 0) continue;
      const style = getComputedStyle(el);
      const control = el.matches('button, label, summary, a.button');
      if (!control && style.textOverflow !== 'ellipsis') continue;
      const text = (el.textContent ?? '').trim();
      const name = `${el.tagName.toLowerCase()} "${text.slice(0, 40)}"`;
      if (!control && el.title === text) continue;
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${name} is cut off`);
      const box = el.matches('button, a.button') ? scroller(el) : undefined;
      if (box && el.getBoundingClientRect().right > box.getBoundingClientRect().right + 1) {
        out.push(`${name} lies past its scroll box's edge`);
      }
    }
    return out;
  });
}

/** How far the page scrolls sideways (0 when it does not). */
export function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/**
 * Shoots `view` at 1280×800 and 390×844 in light and dark into `dir` (`<name>-<width>-<scheme>.png`,
 * to look at) and returns the sideways page scroll found at each, as problems; the page is left at
 * 1280×800 in light.
 */
export async function shootViews(
  page: Page,
  dir: string,
  name: string,
  view: () => Locator,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await view().scrollIntoViewIfNeeded();
      await page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
      );
      await view().screenshot({ path: join(dir, `${name}-${width}-${scheme}.png`) });
      const sideways = await sidewaysScroll(page);
      if (sideways > 0) problems.push(`${name} ${width} ${scheme}: ${sideways}px sideways`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  return problems;
}
