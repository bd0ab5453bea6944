/**
 * Content-Security-Policy violations, as the browser sees them: in the page (its
 * `securitypolicyviolation` events, registered before any script runs) and in every worker,
 * whose events fire on the worker's own global where a page listener cannot see them (read from
 * DevTools' issues for each worker target instead).
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';

export interface Violation {
  directive: string;
  blockedURI: string;
  sourceFile: string;
}

/** Records the page's violations from its first script on; read them with `pageViolations`. */
export async function recordPageViolations(target: Page | BrowserContext): Promise<void> {
  await target.addInitScript(() => {
    const seen: unknown[] = [];
    (globalThis as { __cspViolations?: unknown[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) => {
      seen.push({
        directive: e.effectiveDirective,
        blockedURI: e.blockedURI,
        sourceFile: e.sourceFile,
      });
    });
  });
}

export function pageViolations(page: Page): Promise<Violation[]> {
  return page.evaluate(() =>
    ((globalThis as { __cspViolations?: Violation[] }).__cspViolations ?? []).slice(),
  );
}

/** The id of our Audits.enable message to each worker (its answer carries the same id). */
const AUDITS_ENABLE_ID = 1;

export interface WorkerViolations {
  /** "worker URL: directive kind" for each CSP issue DevTools reported in a worker. */
  issues: string[];
  /** Worker (and service worker) URLs seen, once `stop` has run. */
  workers: string[];
  stop(): Promise<void>;
}

/**
 * Attaches to every worker target as it starts and asks for its issues (DevTools replays the
 * ones collected before it attached), keeping the CSP ones.
 */
export async function recordWorkerViolations(browser: Browser): Promise<WorkerViolations> {
  const cdp: CDPSession = await browser.newBrowserCDPSession();
  const issues: string[] = [];
  const workers: string[] = [];
  /** sessionId → targetId, targetId → URL (known a moment after the target is created). */
  const targetOf = new Map<string, string>();
  const urlOf = new Map<string, string>();
  const attached = new Set<string>();
  /**
   * Per worker session, until its answer to Audits.enable (or its end): DevTools replays the
   * issues collected so far before it answers, so an answered session has reported them all.
   */
  const enabling = new Map<string, () => void>();
  const pending: Promise<void>[] = [];
  const enabled = (sessionId: string) => {
    enabling.get(sessionId)?.();
    enabling.delete(sessionId);
  };
  cdp.on('Target.detachedFromTarget', (event) => {
    if (event.sessionId) enabled(event.sessionId);
  });
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    const message = JSON.parse(event.message) as {
      id?: number;
      method?: string;
      params?: { issue?: { code?: string; details?: unknown } };
    };
    if (message.id === AUDITS_ENABLE_ID) enabled(event.sessionId);
    if (message.method !== 'Audits.issueAdded') return;
    if (message.params?.issue?.code !== 'ContentSecurityPolicyIssue') return;
    const details = JSON.stringify(message.params.issue.details);
    const url = urlOf.get(targetOf.get(event.sessionId) ?? '') || 'a worker';
    issues.push(`${url}: ${details}`);
  });
  const attach = async (info: { targetId: string; type: string; url: string }) => {
    if ((info.type !== 'worker' && info.type !== 'service_worker') || attached.has(info.targetId)) {
      return;
    }
    attached.add(info.targetId);
    urlOf.set(info.targetId, info.url);
    let sessionId: string | undefined;
    try {
      ({ sessionId } = await cdp.send('Target.attachToTarget', {
        targetId: info.targetId,
        flatten: false,
      }));
      targetOf.set(sessionId, info.targetId);
      const id = sessionId;
      pending.push(new Promise<void>((resolve) => enabling.set(id, resolve)));
      await cdp.send('Target.sendMessageToTarget', {
        sessionId,
        message: JSON.stringify({ id: AUDITS_ENABLE_ID, method: 'Audits.enable' }),
      });
    } catch {
      // The worker ended before we got to it: nothing more will come from it.
      if (sessionId) enabled(sessionId);
    }
  };
  const attaching = (info: { targetId: string; type: string; url: string }) => {
    pending.push(attach(info));
  };
  cdp.on('Target.targetCreated', (event) => attaching(event.targetInfo));
  cdp.on('Target.targetInfoChanged', ({ targetInfo }) => {
    if (attached.has(targetInfo.targetId) && targetInfo.url) {
      urlOf.set(targetInfo.targetId, targetInfo.url);
    }
  });
  await cdp.send('Target.setDiscoverTargets', { discover: true });
  return {
    issues,
    workers,
    stop: async () => {
      // Any worker whose creation event was missed (replayed issues included), then every
      // worker's answer to Audits.enable: its issues have all arrived before it.
      const { targetInfos } = await cdp.send('Target.getTargets');
      for (const info of targetInfos) {
        attaching(info);
        if (attached.has(info.targetId) && info.url) urlOf.set(info.targetId, info.url);
      }
      // (an attach still under way adds its session's wait to `pending` before it settles)
      for (let settled = 0; settled < pending.length;) {
        const batch = pending.slice(settled);
        await Promise.all(batch);
        settled += batch.length;
      }
      await cdp.detach();
      workers.push(...urlOf.values());
    },
  };
}
