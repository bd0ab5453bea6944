/**
 * Launches Debian's Chromium with the flags that make "no request leaves the machine" testable,
 * and records every request the page and its workers make.
 */
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { METRICS } from '../../../src/lib/metrics/registry.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../scripts/chromium.ts';

export { WEBGPU_ARGS } from '../../../scripts/chromium.ts';

/** Fixed per checkout (storage is per origin); another worktree can run its e2e beside on its own port. */
export const APP_PORT = Number(process.env.SUMLENS_E2E_PORT ?? 4173);
export const APP_ORIGIN = `http://127.0.0.1:${APP_PORT}`;

export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}

/** A context whose storage lives in `dir`, so it survives closing and relaunching the browser. */
export async function launchPersistent(dir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

export interface RequestLog {
  urls: string[];
  /** Requests whose origin is not the app's own. */
  foreign(): string[];
}

export function recordRequests(context: BrowserContext): RequestLog {
  const urls: string[] = [];
  context.on('request', (request: Request) => urls.push(request.url()));
  return {
    urls,
    foreign: () =>
      urls.filter((url) => {
        if (url.startsWith('data:') || url.startsWith('blob:')) return false;
        return new URL(url).origin !== APP_ORIGIN;
      }),
  };
}

/** Collects uncaught page errors and console errors, minus the noise a test says to ignore. */
export function recordErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return errors;
}

export const OFFLINE_METRIC_IDS = METRICS.filter((m) => m.needs !== 'llm').map((m) => m.id);

/** Waits until no metric card is running any more. */
export async function waitForScores(page: Page, timeout = 90_000): Promise<void> {
  await page.waitForFunction(
    (ids) =>
      ids.every((id) => {
        const status = document
          .querySelector(`[data-testid="metric-${id}"]`)
          ?.getAttribute('data-status');
        return status === 'ok' || status === 'n/a' || status === 'error';
      }),
    OFFLINE_METRIC_IDS,
    { timeout },
  );
}

export async function cardState(
  page: Page,
  id: string,
): Promise<{
  status: string | null;
  score: string | null;
  raw: string | null;
  backend: string | null;
}> {
  const card = page.getByTestId(`metric-${id}`);
  return {
    status: await card.getAttribute('data-status'),
    score: await card.getAttribute('data-score'),
    raw: await card.getAttribute('data-raw'),
    backend: await card.getAttribute('data-backend'),
  };
}
