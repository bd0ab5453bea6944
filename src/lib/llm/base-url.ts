/**
 * Where a provider config sends its requests: the configured base URL, else the provider's own
 * (its record in providers/registry.ts), and the host the limiter, the capability cache and the
 * messages name. Never the path or query, which may hold secrets.
 */
import { wordedError } from './errors.ts';
import { PROVIDERS, byKind } from './providers/registry.ts';
import { requiredBaseUrl } from './providers/shared.ts';
import type { ProviderConfig, ProviderKind } from './types.ts';

/** The providers' own hosts, for kinds that have one (the compatible servers do not). */
export const DEFAULT_BASE_URL: Readonly<Partial<Record<ProviderKind, string>>> = byKind((record) =>
  record.baseUrlRequired ? undefined : record.defaultBaseUrl,
);

export function baseUrlOf(config: ProviderConfig): string {
  if (config.baseUrl) return config.baseUrl;
  const record = PROVIDERS[config.kind];
  return record.baseUrlRequired ? requiredBaseUrl(config) : record.defaultBaseUrl;
}

/** Host (with port) of the base URL: never its path or query, which may hold secrets. */
export function hostOf(config: ProviderConfig): string {
  try {
    return new URL(baseUrlOf(config)).host;
  } catch {
    throw wordedError('bad-request', 'llm.error.badBaseUrl', undefined, { provider: config.kind });
  }
}

export function isLocalHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h.endsWith('.local') ||
    h === '::1' ||
    h === '0.0.0.0' ||
    /^127\./.test(h) ||
    /^10\./.test(h) ||
    /^192\.168\./.test(h) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(h) ||
    /^f[cd][0-9a-f]{2}:/.test(h)
  );
}
