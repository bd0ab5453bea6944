/** axe-core audits of the page, for the accessibility end-to-end tests. */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
export const SCHEMES = ['light', 'dark'] as const;

/** One serious or critical violation, worded for a failure message. */
export interface Finding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
  /** What axe measured at the first target (a contrast's colours and ratio, say). */
  why: string;
}

/** The serious and critical WCAG 2.1 A/AA violations axe finds in the page as it is now. */
export async function seriousViolations(page: Page): Promise<Finding[]> {
  const results = await new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact ?? '',
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
      why: v.nodes[0]?.any[0]?.message ?? v.nodes[0]?.failureSummary ?? '',
    }));
}

/** Lets the charts repaint in the scheme just emulated (they redraw a frame after the change). */
async function repainted(page: Page): Promise<void> {
  await page.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
  );
}

/**
 * Audits the page in the light and the dark scheme and answers one line per violation found,
 * `view scheme: id (impact) help — targets`, so that a failing `toEqual([])` names what to fix.
 */
export async function auditBothSchemes(page: Page, view: string): Promise<string[]> {
  const lines: string[] = [];
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    await repainted(page);
    for (const v of await seriousViolations(page)) {
      const shown = v.targets.slice(0, 8).join(' | ');
      const more = v.targets.length > 8 ? ` (+${v.targets.length - 8} more)` : '';
      lines.push(`${view} ${scheme}: ${v.id} (${v.impact}) ${v.help} — ${shown}${more} — ${v.why}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return lines;
}
