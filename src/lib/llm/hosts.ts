/**
 * Every host the page may connect to, in one place: the LLM providers' default base URLs and the
 * Content-Security-Policy `connect-src` sources that let the page reach them (both from the
 * provider records, providers/registry.ts), the model hub, and loopback. vite.config.ts builds `connect-src` from this module (plus the build-time setting
 * SUMLENS_CONNECT_SRC, parsed here), the settings read their default base URLs from it, and the
 * page asks `connectAllowed` whether a base URL will get past the policy before sending anything.
 *
 * Pure and DOM-free: vite.config.ts imports it in Node.
 */
import type { KnownHosts } from './providers/record.ts';
import { byKind, providerRecords } from './providers/registry.ts';
import type { ProviderKind } from './types.ts';
import { englishRef, ref, type MessageRef } from '../i18n/message.ts';

export type { KnownHosts };

/** The providers' hosts by id (the openai-compatible ones by their usual base URLs). */
export const PROVIDER_HOSTS: Readonly<Record<string, KnownHosts>> = Object.fromEntries(
  providerRecords().flatMap(([, record]) => record.hosts.map((hosts) => [hosts.id, hosts])),
);

/** The Hugging Face hub: huggingface.co redirects downloads to its CDN hosts under hf.co. */
export const MODEL_HUB_HOSTS = {
  id: 'huggingface',
  name: 'the Hugging Face hub',
  baseUrl: 'https://huggingface.co',
  connectSrc: ['https://huggingface.co', 'https://*.huggingface.co', 'https://*.hf.co'],
} as const satisfies KnownHosts;

/** The base URL each provider kind starts with in the settings. */
export const DEFAULT_BASE_URLS: Readonly<Record<ProviderKind, string>> = byKind(
  (record) => record.defaultBaseUrl,
);

/**
 * `connect-src` as shipped: the page's own origin, the model hub (downloads only after consent),
 * the providers, and loopback (local LLM servers and local hub mirrors).
 */
export const BUILT_IN_CONNECT_SRC: readonly string[] = [
  "'self'",
  ...MODEL_HUB_HOSTS.connectSrc,
  ...providerRecords().flatMap(([, record]) => record.hosts.flatMap((hosts) => hosts.connectSrc)),
];

/** The environment variable vite.config.ts reads at build (and dev) time. */
export const CONNECT_SRC_SETTING = 'SUMLENS_CONNECT_SRC';

const HOST_SOURCE =
  /^(https?):\/\/(\*\.)?([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)(?::(\*|\d{1,5}))?\/?$/iu;

/** Checks one SUMLENS_CONNECT_SRC entry; the normalised source, or why it is refused. */
export function parseConnectSrcEntry(entry: string): { source: string } | { error: string } {
  const m = HOST_SOURCE.exec(entry);
  const example =
    'e.g. https://llm.corp.example, http://192.168.1.20:8000 or https://*.corp.example';
  if (!m) {
    let why = 'not scheme://host[:port]';
    if (/^'|^\*$|^[a-z][a-z0-9+.-]*:$/iu.test(entry))
      why = 'keywords and bare schemes are not accepted';
    else if (/^[a-z][a-z0-9+.-]*:\/\//iu.test(entry) && !/^https?:\/\//iu.test(entry)) {
      why = 'the scheme must be http or https';
    } else if (/^https?:\/\/[^/]+\/./iu.test(entry)) why = 'no path, query or fragment';
    else if (/^https?:\/\/[^/]*@/iu.test(entry)) why = 'no user name or password';
    else if (/^https?:\/\/\[/iu.test(entry)) why = 'CSP cannot name IPv6 addresses';
    return { error: `"${entry}" is refused (${why}): use scheme://host[:port], ${example}` };
  }
  const [, scheme = '', wildcard = '', host = '', port] = m;
  if (port !== undefined && port !== '*' && (Number(port) < 1 || Number(port) > 65535)) {
    return { error: `"${entry}" is refused (port ${port} is out of range): ${example}` };
  }
  if (wildcard && !host.includes('.')) {
    return { error: `"${entry}" is refused (*.${host} would allow a whole top-level domain)` };
  }
  const portPart = port === undefined ? '' : `:${port === '*' ? '*' : Number(port)}`;
  return { source: `${scheme.toLowerCase()}://${wildcard}${host.toLowerCase()}${portPart}` };
}

/**
 * SUMLENS_CONNECT_SRC: hosts a self-hoster adds to `connect-src`, separated by spaces or commas.
 * Throws one error naming every refused entry (the build stops with it).
 */
export function parseConnectSrcSetting(value: string | undefined): string[] {
  const entries = (value ?? '').split(/[\s,]+/u).filter(Boolean);
  const sources: string[] = [];
  const errors: string[] = [];
  for (const entry of entries) {
    const parsed = parseConnectSrcEntry(entry);
    if ('error' in parsed) errors.push(parsed.error);
    else if (!sources.includes(parsed.source)) sources.push(parsed.source);
  }
  if (errors.length > 0) throw new Error(`${CONNECT_SRC_SETTING}: ${errors.join('; ')}`);
  return sources;
}

/** The whole `connect-src` source list: the built-in one plus the extra sources, without repeats. */
export function connectSrcSources(extra: readonly string[] = []): string[] {
  return [...new Set([...BUILT_IN_CONNECT_SRC, ...extra])];
}

/** 'exact', 'upgrade' (http → https, ws → wss) or false, as Chromium matches schemes. */
function schemeMatch(expression: string, scheme: string): 'exact' | 'upgrade' | false {
  if (expression === scheme) return 'exact';
  if ((expression === 'http' && scheme === 'https') || (expression === 'ws' && scheme === 'wss')) {
    return 'upgrade';
  }
  return false;
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ws: '80', wss: '443' };

function portOf(url: URL): string {
  return url.port || DEFAULT_PORTS[url.protocol.slice(0, -1)] || '';
}

/**
 * Whether one CSP source expression allows `url`, the way Chromium matches them (CSP Level 3,
 * "Does url match expression in origin"; checked against Chromium in tests/e2e/csp.spec.ts):
 * - 'self': the page's host, the same port (or both default ports), and the page's own scheme or
 *   a secure one (https, wss; ws from an http page);
 * - scheme sources (`https:`; `http:` also allows https);
 * - host sources, with or without a scheme, a leading `*.` (never the bare domain itself), and a
 *   port or `*`; no port means the scheme's default. `http://h` also allows `https://h`, but an
 *   upgraded scheme keeps only the default port: `http://h:8000` does not allow `https://h:8000`.
 * Paths are not checked.
 */
export function sourceMatches(source: string, url: URL, self?: URL): boolean {
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (source === "'self'") {
    if (!self) return false;
    if (url.origin === self.origin) return true;
    // Same host, same or default ports, and a secure (or same-scheme websocket) connection.
    const selfScheme = self.protocol.slice(0, -1);
    return (
      url.hostname === self.hostname &&
      (portOf(url) === portOf(self) ||
        (DEFAULT_PORTS[selfScheme] === portOf(self) && DEFAULT_PORTS[scheme] === portOf(url))) &&
      (scheme === 'https' || scheme === 'wss' || (selfScheme === 'http' && scheme === 'ws'))
    );
  }
  if (source.startsWith("'")) return false;
  if (/^[a-z][a-z0-9+.-]*:$/iu.test(source)) {
    return schemeMatch(source.slice(0, -1).toLowerCase(), scheme) !== false;
  }
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*|(?:\*\.)?[^:/]+)(?::(\*|\d+))?(?:\/.*)?$/iu.exec(
    source,
  );
  if (!m || url.host === '') return false;
  const [, expressionScheme, hostPart = '', portPart] = m;
  const schemeResult = schemeMatch(
    (expressionScheme ?? self?.protocol.slice(0, -1) ?? '').toLowerCase(),
    scheme,
  );
  if (!schemeResult) return false;
  const host = url.hostname.toLowerCase();
  const pattern = hostPart.toLowerCase();
  if (pattern === '*') {
    // A bare `*` matches any host.
  } else if (pattern.startsWith('*.')) {
    if (!host.endsWith(pattern.slice(1))) return false;
  } else if (pattern !== host) return false;
  if (portPart === '*') return true;
  const urlPort = Number(portOf(url));
  if (schemeResult === 'upgrade') {
    return (
      urlPort === 443 &&
      (portPart === undefined || ['80', '443'].includes(String(Number(portPart))))
    );
  }
  if (portPart === undefined) return url.port === '';
  return Number(portPart) === urlPort;
}

declare const __SUMLENS_CONNECT_SRC__: readonly string[] | undefined;

/**
 * The `connect-src` sources of the policy this page runs under: the built list (vite.config.ts
 * defines it, SUMLENS_CONNECT_SRC included), or the built-in one outside a Vite build (Node, tests).
 */
export const ALLOWED_CONNECT_SRC: readonly string[] =
  typeof __SUMLENS_CONNECT_SRC__ !== 'undefined' ? __SUMLENS_CONNECT_SRC__ : BUILT_IN_CONNECT_SRC;

function pageUrl(): URL | undefined {
  const href = (globalThis as { location?: { href?: string } }).location?.href;
  return href ? new URL(href) : undefined;
}

/**
 * Whether the page's Content-Security-Policy lets it fetch `url` (false for a URL that does not
 * parse). `allowed` and `self` default to this page's policy and address.
 */
export function connectAllowed(
  url: string,
  allowed: readonly string[] = ALLOWED_CONNECT_SRC,
  self: URL | undefined = pageUrl(),
): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return allowed.some((source) => sourceMatches(source, parsed, self));
}

/**
 * The origin of a base URL the policy would block, for a warning before any request; undefined
 * when it is allowed or is not an http(s) URL yet (half-typed).
 */
export function blockedOrigin(
  url: string,
  allowed: readonly string[] = ALLOWED_CONNECT_SRC,
  self: URL | undefined = pageUrl(),
): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    return undefined;
  }
  return connectAllowed(parsed.href, allowed, self) ? undefined : parsed.origin;
}

/**
 * The origin a `securitypolicyviolation` event names when it is a blocked connection (fetch,
 * XHR, WebSocket, EventSource); undefined for any other directive or an unnamed URL.
 */
export function blockedConnectOrigin(event: {
  effectiveDirective?: string;
  violatedDirective?: string;
  blockedURI?: string;
}): string | undefined {
  const directive = event.effectiveDirective || event.violatedDirective || '';
  if (!directive.startsWith('connect-src')) return undefined;
  try {
    const url = new URL(event.blockedURI ?? '');
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

/** What to do about a blocked origin (the settings warning and the notice both end with it). */
export function connectAdviceRef(origin: string): MessageRef {
  return ref('llm.csp.advice', { setting: CONNECT_SRC_SETTING, origin });
}

/** The notice shown after the policy blocked a request. */
export function blockedConnectionRef(origin: string): MessageRef {
  return ref('llm.csp.blocked', { origin, advice: connectAdviceRef(origin) });
}

export function blockedConnectionMessage(origin: string): string {
  return englishRef(blockedConnectionRef(origin));
}

/** The warning shown while a typed base URL is one the policy would block. */
export function blockedBaseUrlRef(origin: string): MessageRef {
  return ref('llm.csp.wouldBlock', { origin, advice: connectAdviceRef(origin) });
}

export function blockedBaseUrlMessage(origin: string): string {
  return englishRef(blockedBaseUrlRef(origin));
}
