/**
 * The Content-Security-Policy in Chromium: the app loads, scores and opens a data set without a
 * single violation (zod runs jitless, in the page and in every worker); the header forbids
 * framing; a base URL outside connect-src is warned about before any request and, once blocked,
 * named in a notice that says how to allow it; and `connectAllowed` agrees with Chromium on which
 * URLs a connect-src list allows. Never a private-range address: blocked hosts are `.invalid`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  appOrigin,
  OFFLINE_METRIC_IDS,
  cardState,
  launchBrowser,
  openPage,
  waitForScores,
} from './support/browser.ts';
import { importDataset } from './support/datasets.ts';
import { pageViolations, recordPageViolations, recordWorkerViolations } from './support/csp.ts';
import { openProviderSettings } from './support/llm.ts';
import {
  connectAllowed,
  connectSrcSources,
  parseConnectSrcSetting,
} from '../../src/lib/llm/hosts.ts';
import { contentSecurityPolicy } from '../../src/lib/llm/csp.ts';

const SOURCE =
  'The city council voted to close the old bridge on Monday. Repairs would cost 4 million euros. ' +
  'Engineers found cracks in two pillars last year. A ferry will carry commuters until a new bridge ' +
  'opens in 2027.';
const SUMMARY =
  'The council voted to close the old bridge. A ferry will carry commuters until a new bridge opens ' +
  'in 2027. Repairs would cost 4 million euros.';
const REFERENCE = 'The old bridge closes; a ferry runs until the new one opens in 2027.';

const BLOCKED = 'https://blocked-llm.invalid';
/** An origin no connect-src list of the policy lab allows (see the last test). */
const CSP_SENTINEL = 'http://csp-sentinel.invalid:1';

/** Loopback or private-range addresses (never to be asked, even blocked). */
const PRIVATE = /^https?:\/\/(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/u;

async function fillCase(page: Page): Promise<void> {
  await page.getByTestId('source-input').fill(SOURCE);
  await page.getByTestId('summary-input').fill(SUMMARY);
  await page.getByTestId('reference-input').fill(REFERENCE);
}

describe('the Content-Security-Policy in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(() => browser?.close());

  it('loads, scores a case and opens a data-set run with no violation, in the page or a worker', async () => {
    const workers = await recordWorkerViolations(browser);
    const app = await openPage(browser, { visit: false });
    const { page } = app;
    const csp: string[] = [];
    page.on('console', (m) => {
      if (/Content[- ]Security[- ]Policy/iu.test(m.text())) csp.push(`${m.type()}: ${m.text()}`);
    });
    await recordPageViolations(page);
    await page.goto(appOrigin());

    await fillCase(page);
    await page.getByTestId('score-button').click();
    await waitForScores(page);
    for (const id of OFFLINE_METRIC_IDS) expect((await cardState(page, id)).status).toBe('ok');

    const dir = mkdtempSync(join(tmpdir(), 'sumlens-csp-'));
    const file = join(dir, 'csp-cases.jsonl');
    const rows = [1, 2, 3, 4].map((i) =>
      JSON.stringify({
        source: SOURCE,
        summary: SUMMARY.slice(0, 40 * i),
        reference: REFERENCE,
        rating: i,
      }),
    );
    writeFileSync(file, `${rows.join('\n')}\n`);
    await importDataset(page, file);
    const item = page.getByTestId('dataset-item').filter({ hasText: 'csp-cases' });
    await item.getByTestId('run-offline').click();
    await expect
      .poll(() => page.getByTestId('run-item').first().innerText(), { timeout: 90_000 })
      .toMatch(/done · 4\/4 rows/u);
    await page.getByTestId('run-open').first().click();
    await page.getByTestId('run-view').waitFor();
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(4);
    // The calibration worker's figures (rows × rating), in the table even while it is folded.
    await expect
      .poll(() =>
        page
          .locator('[data-testid="calibration-row"][data-metric="rouge-1"]')
          .getAttribute('data-n'),
      )
      .toBe('4');

    await workers.stop();
    expect(await pageViolations(page)).toEqual([]);
    expect(workers.issues).toEqual([]);
    // Every worker was watched: the metric workers, the parser, the batch and calibration ones.
    const watched = workers.workers.map((u) => /\/assets\/([\w-]+)\.worker-/u.exec(u)?.[1]);
    for (const name of ['lexical', 'embedding', 'ner', 'dataset-parse', 'batch', 'calibration']) {
      expect(watched).toContain(name);
    }
    expect(csp).toEqual([]);
    expect(app.errors).toEqual([]);
    expect(await page.getByTestId('csp-blocked').count()).toBe(0);
    await app.context.close();
  });

  it("sends frame-ancestors 'none' as a header (not in the meta copy), and no page can frame the app", async () => {
    const app = await openPage(browser, { visit: false });
    const { page, context } = app;
    const response = await page.goto(appOrigin());
    const headers = response?.headers() ?? {};
    expect(headers['content-security-policy']).toBe(contentSecurityPolicy('header'));
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-frame-options']).toBe('DENY');
    const meta = await page
      .locator('meta[http-equiv="Content-Security-Policy"]')
      .getAttribute('content');
    expect(meta).toBe(contentSecurityPolicy('meta'));
    expect(meta).not.toContain('frame-ancestors');

    // Another origin (a routed page, never on the network) that frames the app gets nothing.
    await context.route('http://framer.invalid/', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><iframe src="${appOrigin()}/" width="800" height="600"></iframe>`,
      }),
    );
    await page.goto('http://framer.invalid/');
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    // The page's load waits for its frames: the frame's navigation has ended, in the app or,
    // refused, in the browser's error page. Only then does "no #app in it" mean anything.
    await frame!.waitForLoadState('load');
    expect(await frame!.locator('#app').count()).toBe(0);
    await context.close();
  });

  it('warns about a base URL outside connect-src, and names the host it blocked', async () => {
    const app = await openPage(browser, { visit: false });
    const { page } = app;
    await recordPageViolations(page);
    await page.goto(appOrigin());

    await openProviderSettings(page);
    await page.getByTestId('provider-kind').selectOption('openai-compatible');
    // The default (loopback) base URL is allowed: no warning.
    expect(await page.getByTestId('provider-base-url-blocked').count()).toBe(0);
    await page.getByTestId('provider-model').fill('llama3.1');
    await page.getByTestId('provider-base-url').fill(`${BLOCKED}/v1`);
    const warning = page.getByTestId('provider-base-url-blocked');
    await warning.waitFor();
    expect(await warning.innerText()).toMatch(
      /does not allow connections to https:\/\/blocked-llm\.invalid.*SUMLENS_CONNECT_SRC="https:\/\/blocked-llm\.invalid" \(see README → Self-hosting\)/su,
    );

    const panel = page.getByTestId('judge-panel');
    if ((await panel.getAttribute('open')) === null) await panel.locator('summary').click();
    if (!(await page.getByTestId('judge-enabled').isChecked())) {
      await page.getByTestId('judge-enabled').check();
    }
    await fillCase(page);
    await page.getByTestId('score-button').click();

    const notice = page.getByTestId('csp-blocked');
    await notice.waitFor({ timeout: 30_000 });
    expect(await notice.count()).toBe(1);
    expect(await notice.getAttribute('data-origin')).toBe(BLOCKED);
    expect(await notice.innerText()).toContain(
      "This page's security policy blocked a connection to https://blocked-llm.invalid. To call " +
        'it, rebuild SumLens with SUMLENS_CONNECT_SRC="https://blocked-llm.invalid" (see README → ' +
        'Self-hosting), or use a provider listed there.',
    );
    // The judge's run stops (no request left the page): one notice says why in place of its
    // cards, naming the policy, not CORS or being offline; the offline cards score.
    await waitForScores(page);
    const stopped = page.getByTestId('judge-notice');
    await stopped.waitFor({ timeout: 60_000 });
    const reason = await stopped.innerText();
    expect(reason).toMatch(
      /^LLM metrics stopped: This page's security policy blocked a connection to https:\/\/blocked-llm\.invalid/u,
    );
    expect(reason).not.toMatch(/offline|CORS/u);
    expect(await page.getByTestId('metric-alignment').count()).toBe(0);
    expect((await cardState(page, 'rouge-1')).status).toBe('ok');

    const violations = await pageViolations(page);
    expect(violations.length).toBeGreaterThan(0);
    for (const v of violations) {
      expect(v.directive).toBe('connect-src');
      expect(new URL(v.blockedURI).origin).toBe(BLOCKED);
    }
    expect(app.requests.urls.filter((u) => PRIVATE.test(u))).toEqual([]);
    expect(app.requests.urls.filter((u) => u.startsWith(BLOCKED))).toEqual([]);

    await page.getByTestId('csp-blocked-dismiss').click();
    await expect.poll(() => notice.count()).toBe(0);
    await app.context.close();
  });

  it('connectAllowed agrees with Chromium on what a connect-src list allows', async () => {
    // Routed pages (never on the network) under a policy of their own; every request that gets
    // past the policy is aborted. First the built-in list plus the kinds of entry
    // SUMLENS_CONNECT_SRC takes, then the corner cases of ports, scheme upgrades and 'self'.
    const labs: { lab: string; list: string[]; urls: string[] }[] = [
      {
        lab: 'http://csp-lab.invalid/',
        list: connectSrcSources(
          parseConnectSrcSetting(
            'https://llm.corp.invalid http://gw.invalid:8000 https://*.corp2.invalid http://any.invalid:*',
          ),
        ),
        urls: [
          'https://api.openai.com/v1/models',
          'https://api.openai.com:8443/v1',
          'http://api.openai.com/v1',
          'https://openai.com/v1',
          'https://res.openai.azure.com/openai/v1',
          'https://a.b.cognitiveservices.azure.com/x',
          'https://openai.azure.com/x',
          'https://res.openai.azure.com.evil.invalid/x',
          'https://cas-bridge.xethub.hf.co/x',
          'https://hf.co/x',
          'https://huggingface.co/x',
          'http://127.0.0.1:11434/v1',
          'http://localhost:1234/v1',
          'http://localhost/v1',
          'https://127.0.0.1:8443/v1',
          'http://127.0.0.2:11434/v1',
          'http://csp-lab.invalid/self',
          'https://csp-lab.invalid/self-upgraded',
          `${BLOCKED}/v1`,
          'https://llm.corp.invalid/v1',
          'https://llm.corp.invalid:8443/v1',
          'http://llm.corp.invalid/v1',
          'http://gw.invalid:8000/v1',
          'http://gw.invalid:8001/v1',
          'http://gw.invalid/v1',
          'https://gw.invalid:8000/v1',
          'https://a.corp2.invalid/v1',
          'https://a.b.corp2.invalid/v1',
          'https://corp2.invalid/v1',
          'http://a.corp2.invalid/v1',
          'http://any.invalid:9999/v1',
          'https://any.invalid/v1',
        ],
      },
      {
        lab: 'http://csp-lab2.invalid:8080/',
        list: [
          "'self'",
          'http://h1.invalid:80',
          'http://h2.invalid:80',
          'http://h3.invalid:443',
          'https://h4.invalid:443',
          'http://h5.invalid:*',
          'ws://h6.invalid',
          'https://h7.invalid',
          'https:',
        ],
        urls: [
          'http://csp-lab2.invalid:8080/x',
          'https://csp-lab2.invalid:8080/x',
          'https://csp-lab2.invalid/x',
          'http://csp-lab2.invalid/x',
          'ws://csp-lab2.invalid:8080/x',
          'wss://csp-lab2.invalid:8080/x',
          'https://h1.invalid/',
          'http://h1.invalid/',
          'http://h2.invalid:443/',
          'https://h2.invalid:8443/',
          'https://h3.invalid/',
          'http://h3.invalid:443/',
          'https://h4.invalid/',
          'https://h5.invalid:8000/',
          'wss://h6.invalid/',
          'https://h6.invalid/',
          'http://h7.invalid/',
          'https://anything.invalid:8443/',
          'http://anything.invalid/',
        ],
      },
    ];
    // Chromium reports a violation in a task of its own, after the fetch has already failed. So
    // each URL is followed by a request that every list here blocks: violations are reported in
    // order, and once the sentinel's is in, the URL's own (if it had one) is in too.
    const fetchTest = `async ({ all, sentinel }) => {
      const out = {};
      for (const url of all) {
        let violated = false;
        let sentinelReported;
        const reported = new Promise(function (resolve) { sentinelReported = resolve; });
        function listener(e) {
          if (e.effectiveDirective !== 'connect-src') return;
          if (e.blockedURI.startsWith(sentinel)) sentinelReported();
          else violated = true;
        }
        document.addEventListener('securitypolicyviolation', listener);
        try {
          await fetch(url, { mode: 'no-cors', cache: 'no-store' });
        } catch {
          // aborted by the route, or blocked
        }
        try {
          await fetch(sentinel + '/', { mode: 'no-cors', cache: 'no-store' });
        } catch {
          // blocked
        }
        await reported;
        document.removeEventListener('securitypolicyviolation', listener);
        out[url] = !violated;
      }
      return out;
    }`;
    for (const { lab, list, urls } of labs) {
      // (allowed, the sentinel would never be reported and the page would wait for it forever)
      expect(connectAllowed(CSP_SENTINEL, list, new URL(lab))).toBe(false);
      const context = await browser.newContext({ serviceWorkers: 'block' });
      const seen: string[] = [];
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url === lab) {
          return route.fulfill({
            contentType: 'text/html',
            headers: { 'Content-Security-Policy': `connect-src ${list.join(' ')}` },
            body: '<!doctype html><title>lab</title>',
          });
        }
        seen.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      await page.goto(lab);
      const chromium = (await page.evaluate(
        `(${fetchTest})(${JSON.stringify({ all: urls, sentinel: CSP_SENTINEL })})`,
      )) as Record<string, boolean>;
      const ours = Object.fromEntries(urls.map((u) => [u, connectAllowed(u, list, new URL(lab))]));
      expect(ours, lab).toEqual(chromium);
      // Both kinds were tried, and only the allowed ones reached the route.
      expect(Object.values(chromium).filter(Boolean).length).toBeGreaterThan(2);
      expect(Object.values(chromium).filter((v) => !v).length).toBeGreaterThan(2);
      const reached = new Set(seen.map((u) => new URL(u).href));
      for (const url of urls)
        if (!chromium[url]) expect(reached.has(new URL(url).href)).toBe(false);
      await context.close();
    }
  });
});
