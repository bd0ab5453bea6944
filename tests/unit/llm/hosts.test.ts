/**
 * One list of hosts for the settings and the Content-Security-Policy: every default base URL is
 * in connect-src, SUMLENS_CONNECT_SRC is checked entry by entry, and `connectAllowed` matches
 * sources the way CSP Level 3 (and Chromium: tests/e2e/csp.spec.ts) does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ALLOWED_CONNECT_SRC,
  BUILT_IN_CONNECT_SRC,
  DEFAULT_BASE_URLS,
  MODEL_HUB_HOSTS,
  PROVIDER_HOSTS,
  blockedBaseUrlMessage,
  blockedConnectOrigin,
  blockedConnectionMessage,
  blockedOrigin,
  connectAllowed,
  connectSrcSources,
  parseConnectSrcEntry,
  parseConnectSrcSetting,
  sourceMatches,
} from '../../../src/lib/llm/hosts.ts';
import { contentSecurityPolicy } from '../../../src/lib/llm/csp.ts';
import { DEFAULT_BASE_URL } from '../../../src/lib/llm/capabilities.ts';
import { DEFAULT_BASE_URLS as SETTINGS_BASE_URLS } from '../../../src/lib/state/judge-prefs.ts';
import { DEFAULT_HUB_URL } from '../../../src/lib/models/source.ts';

const PAGE = new URL('http://127.0.0.1:4173/');
const allowed = (url: string, extra: string[] = []) =>
  connectAllowed(url, connectSrcSources(extra), PAGE);

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((d) => {
      const [name = '', ...values] = d.trim().split(/\s+/u);
      return [name, values];
    }),
  );
}

describe('the policy', () => {
  const header = directives(contentSecurityPolicy('header'));
  const meta = directives(contentSecurityPolicy('meta'));

  it("has frame-ancestors 'none' in the header and not in the meta copy", () => {
    expect(header.get('frame-ancestors')).toEqual(["'none'"]);
    expect(meta.has('frame-ancestors')).toBe(false);
    // Otherwise the same policy.
    header.delete('frame-ancestors');
    expect([...header]).toEqual([...meta]);
  });

  it("keeps WASM compilation, workers from the app and blob:, and has no 'unsafe-eval'", () => {
    expect(header.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(header.get('worker-src')).toEqual(["'self'", 'blob:']);
    expect(contentSecurityPolicy('header')).not.toContain("'unsafe-eval'");
    expect(header.get('object-src')).toEqual(["'none'"]);
    expect(header.get('base-uri')).toEqual(["'none'"]);
  });

  it('connects to the page, the hub, every provider and loopback, and to added hosts', () => {
    const connect = header.get('connect-src') ?? [];
    expect(connect).toEqual(BUILT_IN_CONNECT_SRC);
    for (const source of [
      "'self'",
      'https://huggingface.co',
      'https://*.hf.co',
      'https://api.openai.com',
      'https://api.anthropic.com',
      'https://generativelanguage.googleapis.com',
      'https://openrouter.ai',
      'https://api.groq.com',
      'https://api.mistral.ai',
      'https://api.deepseek.com',
      'https://*.openai.azure.com',
      'https://*.cognitiveservices.azure.com',
      'https://*.services.ai.azure.com',
      'http://127.0.0.1:*',
      'http://localhost:*',
    ]) {
      expect(connect).toContain(source);
    }
    const extra = ['https://llm.corp.example', 'http://192.168.1.20:8000'];
    const withExtra = directives(contentSecurityPolicy('header', connectSrcSources(extra)));
    expect(withExtra.get('connect-src')).toEqual([...BUILT_IN_CONNECT_SRC, ...extra]);
    // No repeats when an added host is built in already.
    expect(connectSrcSources(['https://api.openai.com'])).toEqual(BUILT_IN_CONNECT_SRC);
  });

  it('is the list the page checks against outside a Vite build', () => {
    expect(ALLOWED_CONNECT_SRC).toEqual(BUILT_IN_CONNECT_SRC);
  });
});

describe('default base URLs', () => {
  it('all come from the hosts module, and each is allowed by connect-src', () => {
    expect(SETTINGS_BASE_URLS).toBe(DEFAULT_BASE_URLS);
    expect(DEFAULT_BASE_URL.openai).toBe(DEFAULT_BASE_URLS.openai);
    expect(DEFAULT_BASE_URL.anthropic).toBe(DEFAULT_BASE_URLS.anthropic);
    expect(DEFAULT_BASE_URL.gemini).toBe(DEFAULT_BASE_URLS.gemini);
    expect(DEFAULT_HUB_URL).toBe(MODEL_HUB_HOSTS.baseUrl);
    const urls: string[] = [...Object.values(DEFAULT_BASE_URLS), MODEL_HUB_HOSTS.baseUrl];
    for (const p of Object.values(PROVIDER_HOSTS)) if (p.baseUrl) urls.push(p.baseUrl);
    for (const url of urls) expect(allowed(url), url).toBe(true);
    // The endpoints the adapters build from them too.
    expect(allowed('https://openrouter.ai/api/v1/chat/completions')).toBe(true);
    expect(allowed('https://api.groq.com/openai/v1/chat/completions')).toBe(true);
    expect(allowed('https://myres.openai.azure.com/openai/v1/chat/completions')).toBe(true);
    expect(allowed('https://cdn-lfs-us-1.hf.co/repos/x')).toBe(true);
  });
});

describe('SUMLENS_CONNECT_SRC', () => {
  it('takes hosts with a scheme, an optional *. and port, separated by spaces or commas', () => {
    expect(
      parseConnectSrcSetting(
        ' https://llm.corp.example  http://192.168.1.20:8000,https://*.corp.example\nHTTPS://GW.Example:8443/ http://h:* ',
      ),
    ).toEqual([
      'https://llm.corp.example',
      'http://192.168.1.20:8000',
      'https://*.corp.example',
      'https://gw.example:8443',
      'http://h:*',
    ]);
    expect(parseConnectSrcSetting(undefined)).toEqual([]);
    expect(parseConnectSrcSetting('  ')).toEqual([]);
    expect(parseConnectSrcSetting('https://a.example https://a.example')).toEqual([
      'https://a.example',
    ]);
    expect(parseConnectSrcEntry('http://h:08000')).toEqual({ source: 'http://h:8000' });
  });

  it.each([
    ['*', /keywords/u],
    ["'unsafe-inline'", /keywords/u],
    ['https:', /bare schemes/u],
    ['llm.corp.example', /scheme:\/\/host/u],
    ['ftp://files.example', /http or https/u],
    ['javascript://x', /http or https/u],
    ['https://llm.corp.example/v1', /no path/u],
    ['https://x.example?a=1', /scheme:\/\/host/u],
    ['https://user:pw@x.example', /no user name/u],
    ['http://[::1]:8000', /IPv6/u],
    ['https://*.com', /top-level domain/u],
    ['https://x.example:70000', /out of range/u],
    ['https://x.example:0', /out of range/u],
    ['https://*x.example', /scheme:\/\/host/u],
    ['https://x..example', /scheme:\/\/host/u],
    ['https://-x.example', /scheme:\/\/host/u],
    ['https://x.example;script-src', /scheme:\/\/host/u],
  ])('refuses %s', (entry, why) => {
    const parsed = parseConnectSrcEntry(entry);
    expect('error' in parsed && parsed.error).toMatch(why);
    expect(() => parseConnectSrcSetting(`https://ok.example ${entry}`)).toThrow(
      /^SUMLENS_CONNECT_SRC: ".*" is refused/u,
    );
  });

  it('names every refused entry in one error', () => {
    expect(() => parseConnectSrcSetting('ftp://a https://ok.example https://b/c')).toThrow(
      /"ftp:\/\/a" is refused.*; "https:\/\/b\/c" is refused/u,
    );
  });
});

describe('connectAllowed matches like the browser', () => {
  it.each([
    // exact hosts: the scheme's default port only, https only
    ['https://api.openai.com/v1/chat/completions', true],
    ['https://api.openai.com:443/v1', true],
    ['https://API.OpenAI.com/v1', true],
    ['https://api.openai.com:8443/v1', false],
    ['http://api.openai.com/v1', false],
    ['https://openai.com/v1', false],
    ['https://evil-api.openai.com/v1', false],
    // *. matches subdomains at any depth, never the bare domain
    ['https://res.openai.azure.com/openai/v1', true],
    ['https://a.b.cognitiveservices.azure.com', true],
    ['https://x.services.ai.azure.com', true],
    ['https://openai.azure.com', false],
    ['https://res.openai.azure.com.evil.example', false],
    ['https://hf.co/x', false],
    ['https://cas-bridge.xethub.hf.co/x', true],
    // loopback: any port, http (and its https upgrade), by the names in the policy only
    ['http://127.0.0.1:11434/v1', true],
    ['http://localhost:1234/v1', true],
    ['http://localhost/v1', true],
    ['https://127.0.0.1:8443/v1', true],
    ['http://127.0.0.2:11434/v1', false],
    ['http://[::1]:11434/v1', false],
    ['http://0.0.0.0:11434/v1', false],
    // the page itself ('self'), and what is not allowed at all
    ['http://127.0.0.1:4173/models/x.json', true],
    ['https://blocked-llm.invalid/v1', false],
    ['http://192.168.1.20:8000/v1', false],
    ['https://llm.corp.example/v1', false],
    ['ws://127.0.0.1:4173/', true],
    ['ftp://127.0.0.1/', false],
    ['not a url', false],
  ])('%s → %s', (url, expected) => {
    expect(allowed(url)).toBe(expected);
  });

  it('allows what SUMLENS_CONNECT_SRC added, with its port and wildcard', () => {
    const extra = parseConnectSrcSetting(
      'https://llm.corp.example http://192.168.1.20:8000 https://*.corp.example http://gw.example:*',
    );
    expect(allowed('https://llm.corp.example/v1', extra)).toBe(true);
    expect(allowed('https://llm.corp.example:8443/v1', extra)).toBe(false);
    expect(allowed('http://192.168.1.20:8000/v1', extra)).toBe(true);
    expect(allowed('http://192.168.1.20:8001/v1', extra)).toBe(false);
    expect(allowed('http://192.168.1.20/v1', extra)).toBe(false);
    expect(allowed('https://a.corp.example/v1', extra)).toBe(true);
    expect(allowed('https://corp.example/v1', extra)).toBe(false);
    expect(allowed('http://gw.example:9999', extra)).toBe(true);
    expect(allowed('https://gw.example', extra)).toBe(true);
  });

  // Measured in Chromium (tests/e2e/csp.spec.ts checks these against the browser too).
  it.each([
    ['http://h.example:80', 'https://h.example/', true],
    ['http://h.example:80', 'http://h.example:443/', false],
    ['http://h.example:8000', 'https://h.example:8000/', false],
    ['http://h.example', 'https://h.example:443/', true],
    ['http://h.example', 'https://h.example:8443/', false],
    ['https://h.example:443', 'https://h.example/', true],
    ['http://h.example:*', 'https://h.example:8000/', true],
    ['http://h.example:443', 'https://h.example/', true],
    ['http://h.example', 'http://h.example:80/', true],
    ['https://h.example', 'http://h.example/', false],
    ['http://h.example:443', 'http://h.example:443/', true],
    ['ws://h.example', 'https://h.example/', false],
    ['ws://h.example', 'wss://h.example/', true],
    ['http://h.example:80', 'https://h.example:8443/', false],
    ['http://1.2.3.4:81', 'http://1.2.3.4:81/', true],
  ])('%s allows %s: %s', (source, url, expected) => {
    expect(sourceMatches(source, new URL(url), PAGE)).toBe(expected);
  });

  it("matches 'self' by origin, and by host on a secure upgrade", () => {
    const self = new URL('http://app.example:8080/');
    expect(sourceMatches("'self'", new URL('http://app.example:8080/x'), self)).toBe(true);
    // Unlike a host source, 'self' keeps its port on the upgrade (Chromium agrees).
    expect(sourceMatches("'self'", new URL('https://app.example:8080/x'), self)).toBe(true);
    expect(sourceMatches("'self'", new URL('wss://app.example:8080/x'), self)).toBe(true);
    expect(sourceMatches("'self'", new URL('https://app.example/x'), self)).toBe(false);
    expect(
      sourceMatches("'self'", new URL('ws://app.example/x'), new URL('https://app.example/')),
    ).toBe(false);
    expect(sourceMatches("'self'", new URL('http://app.example:8081/x'), self)).toBe(false);
    expect(sourceMatches("'self'", new URL('http://other.example:8080/x'), self)).toBe(false);
    expect(
      sourceMatches("'self'", new URL('https://app.example/x'), new URL('http://app.example/')),
    ).toBe(true);
    expect(sourceMatches("'self'", new URL('http://app.example/x'), undefined)).toBe(false);
    expect(sourceMatches("'none'", new URL('http://app.example/x'), self)).toBe(false);
    expect(sourceMatches('https:', new URL('https://any.example/x'), self)).toBe(true);
    expect(sourceMatches('http:', new URL('https://any.example/x'), self)).toBe(true);
    expect(sourceMatches('https:', new URL('http://any.example/x'), self)).toBe(false);
  });
});

describe('blocked connections, in words', () => {
  it('names the blocked origin of a typed base URL, and nothing for allowed or half-typed ones', () => {
    const list = connectSrcSources();
    expect(blockedOrigin('https://blocked-llm.invalid/v1', list, PAGE)).toBe(
      'https://blocked-llm.invalid',
    );
    expect(blockedOrigin(' http://10.1.2.3:8000/v1 ', list, PAGE)).toBe('http://10.1.2.3:8000');
    expect(blockedOrigin('https://api.openai.com', list, PAGE)).toBeUndefined();
    expect(blockedOrigin('http://127.0.0.1:11434', list, PAGE)).toBeUndefined();
    expect(blockedOrigin('https://', list, PAGE)).toBeUndefined();
    expect(blockedOrigin('htt', list, PAGE)).toBeUndefined();
    expect(blockedOrigin('', list, PAGE)).toBeUndefined();
  });

  it('reads connect-src violations only', () => {
    expect(
      blockedConnectOrigin({
        effectiveDirective: 'connect-src',
        blockedURI: 'https://blocked-llm.invalid/v1/chat/completions',
      }),
    ).toBe('https://blocked-llm.invalid');
    expect(
      blockedConnectOrigin({ violatedDirective: 'connect-src', blockedURI: 'http://h.example:81' }),
    ).toBe('http://h.example:81');
    expect(blockedConnectOrigin({ effectiveDirective: 'script-src', blockedURI: 'eval' })).toBe(
      undefined,
    );
    expect(
      blockedConnectOrigin({ effectiveDirective: 'connect-src', blockedURI: 'eval' }),
    ).toBeUndefined();
  });

  it('says how to allow it', () => {
    expect(blockedConnectionMessage('https://llm.corp.example')).toBe(
      "This page's security policy blocked a connection to https://llm.corp.example. To call it, " +
        'rebuild SumLens with SUMLENS_CONNECT_SRC="https://llm.corp.example" (see README → ' +
        'Self-hosting), or use a provider listed there.',
    );
    expect(blockedBaseUrlMessage('http://10.1.2.3:8000')).toMatch(
      /does not allow connections to http:\/\/10\.1\.2\.3:8000.*SUMLENS_CONNECT_SRC="http:\/\/10\.1\.2\.3:8000"/u,
    );
  });
});

describe('vite.config.ts', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('sends the header policy, puts the meta copy in index.html, and defines the list', async () => {
    vi.stubEnv('SUMLENS_CONNECT_SRC', 'https://llm.corp.example http://192.168.1.20:8000');
    vi.resetModules();
    const config = await import('../../../vite.config.ts');
    expect(config.CONNECT_SRC).toEqual([
      ...BUILT_IN_CONNECT_SRC,
      'https://llm.corp.example',
      'http://192.168.1.20:8000',
    ]);
    expect(config.CONTENT_SECURITY_POLICY).toBe(
      contentSecurityPolicy('header', config.CONNECT_SRC),
    );
    expect(config.CONTENT_SECURITY_POLICY_META).toBe(
      contentSecurityPolicy('meta', config.CONNECT_SRC),
    );
    const resolved = config.default as import('vite').UserConfig;
    for (const server of [resolved.server, resolved.preview]) {
      expect(server?.headers?.['Content-Security-Policy']).toBe(config.CONTENT_SECURITY_POLICY);
      expect(server?.headers?.['X-Frame-Options']).toBe('DENY');
    }
    expect(JSON.parse(String(resolved.define?.__SUMLENS_CONNECT_SRC__))).toEqual(
      config.CONNECT_SRC,
    );
  });

  it('writes the headers a static host must send, and previews a build with them', async () => {
    vi.stubEnv('SUMLENS_CONNECT_SRC', 'https://llm.corp.example');
    vi.resetModules();
    const config = await import('../../../vite.config.ts');
    const file = config.staticHostHeaders();
    expect(file.split('\n')[0]).toBe('/*');
    expect(config.parseStaticHostHeaders(file)).toEqual({
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Content-Security-Policy': config.CONTENT_SECURITY_POLICY,
      'X-Frame-Options': 'DENY',
    });
    expect(file).toContain('https://llm.corp.example');
  });

  it('stops with the reason when SUMLENS_CONNECT_SRC has a bad entry', async () => {
    vi.stubEnv('SUMLENS_CONNECT_SRC', 'https://llm.corp.example/v1');
    vi.resetModules();
    await expect(import('../../../vite.config.ts')).rejects.toThrow(
      /SUMLENS_CONNECT_SRC: "https:\/\/llm\.corp\.example\/v1" is refused \(no path/u,
    );
  });
});
