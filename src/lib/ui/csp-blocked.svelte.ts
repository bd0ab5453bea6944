/**
 * Connections the page's Content-Security-Policy blocked, for a visible notice: without one, a
 * base URL outside `connect-src` (an OpenAI-compatible server on the LAN, a corporate gateway)
 * fails as a bare network error. The browser reports each blocked request as a
 * `securitypolicyviolation` event on the document; only `connect-src` ones are kept, one per
 * origin, and a dismissed origin stays dismissed for the page's life (the provider settings still
 * warn about it).
 */
import { blockedConnectOrigin } from '../llm/hosts.ts';

export const cspBlocked = $state<{ origins: string[] }>({ origins: [] });

const dismissed = new Set<string>();
let watching = false;

/** Starts listening (once); call before anything may connect. */
export function watchCspViolations(target: Document = document): void {
  if (watching) return;
  watching = true;
  target.addEventListener('securitypolicyviolation', (event) => {
    const origin = blockedConnectOrigin(event);
    if (!origin || dismissed.has(origin) || cspBlocked.origins.includes(origin)) return;
    cspBlocked.origins.push(origin);
  });
}

export function dismissCspBlocked(origin: string): void {
  dismissed.add(origin);
  cspBlocked.origins = cspBlocked.origins.filter((o) => o !== origin);
}
