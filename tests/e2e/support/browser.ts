/**
 * Launches Debian's Chromium with the flags that make "no request leaves the machine" testable,
 * and records every request the page and its workers make.
 */
import { chromium } from 'playwright-core';
import type {
  Browser,
  BrowserContext,
  BrowserContextOptions,
  Page,
  Request,
} from 'playwright-core';
import { METRICS } from '../../../src/lib/metrics/registry.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../src/lib/node/chromium.ts';
import { appOrigin } from './app-origin.ts';

export { WEBGPU_ARGS } from '../../../src/lib/node/chromium.ts';

export { appOrigin };

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
        return new URL(url).origin !== appOrigin();
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

/** One page of the app in a fresh context, with what it requested and the errors it logged. */
export interface AppPage {
  context: BrowserContext;
  page: Page;
  requests: RequestLog;
  errors: string[];
}

export interface AppPageOptions {
  /** For instance `{ acceptDownloads: true }` where a test reads an export. */
  context?: BrowserContextOptions;
  /** False leaves the page blank, for a test that checks what the first visit does. */
  visit?: boolean;
}

/** Opens a context of `browser` with its requests and page errors recorded, and loads the app. */
export async function openPage(browser: Browser, options: AppPageOptions = {}): Promise<AppPage> {
  const context = await browser.newContext(options.context);
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = recordErrors(page);
  if (options.visit ?? true) await page.goto(appOrigin());
  return { context, page, requests, errors };
}

/** The app in a browser of its own; `close()` ends the browser. */
export interface App extends AppPage {
  browser: Browser;
  close(): Promise<void>;
}

/** Launches Chromium (with `args` besides the usual flags) and opens the app in it. */
export async function openApp(
  options: AppPageOptions & { args?: readonly string[] } = {},
): Promise<App> {
  const browser = await launchBrowser(options.args);
  try {
    return { browser, ...(await openPage(browser, options)), close: () => browser.close() };
  } catch (error) {
    // Nothing would close it otherwise: the suite's afterAll has no app to close.
    await browser.close();
    throw error;
  }
}

export const OFFLINE_METRIC_IDS = METRICS.filter((m) => m.needs !== 'llm').map((m) => m.id);

/** Types a case into the single-case form (an empty reference clears the field). */
export async function fillCase(
  page: Page,
  source: string,
  summary: string,
  reference = '',
): Promise<void> {
  await page.getByTestId('source-input').fill(source);
  await page.getByTestId('summary-input').fill(summary);
  await page.getByTestId('reference-input').fill(reference);
}

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

/** Unfolds a metric card (explanation, validity note, backend, detail view) and waits for it. */
export async function openCard(page: Page, id: string): Promise<void> {
  const more = page.getByTestId(`metric-${id}`).getByTestId('card-more').first();
  if ((await more.getAttribute('open')) === null) await more.locator('summary').first().click();
  await page
    .locator(`[data-testid="metric-${id}"] details[data-testid="card-more"][open]`)
    .waitFor();
}
