/**
 * Content-addressed response cache (SPEC §3: a case scored before costs zero calls). The key is a
 * hash of what makes an answer reusable: never the API key, and never the messages, which carry a
 * random delimiter per call so they would never match.
 */
import { hostOf } from './capabilities.ts';
import type { JudgeRequest, JudgeResponse, ProviderConfig } from './types.ts';

export interface ResponseCache {
  get(key: string): Promise<JudgeResponse | undefined>;
  set(key: string, response: JudgeResponse): Promise<void>;
  /** Drops an answer the metric could not use (see Judge.forget). */
  delete?(key: string): Promise<void>;
  /** Where single HTTP answers are kept the moment they arrive (arrivals.ts); none: not kept. */
  arrivals?: ArrivalStore;
}

/**
 * One HTTP answer's body as it arrived (keys redacted), by a key of its request (arrivals.ts),
 * with the provider and model it came from.
 */
export interface ArrivalStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, text: string, from: { provider: string; model: string }): Promise<void>;
  delete(keys: readonly string[]): Promise<void>;
}

/** JSON with object keys sorted at every level, so equal values hash equally. */
export function canonicalJson(value: unknown): string {
  const walk = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') {
      return typeof v === 'number' && !Number.isFinite(v) ? String(v) : v;
    }
    if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : walk(x)));
    if (v instanceof Date) return v.toISOString();
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) {
      const inner = (v as Record<string, unknown>)[key];
      if (inner !== undefined && typeof inner !== 'function') out[key] = walk(inner);
    }
    return out;
  };
  return JSON.stringify(walk(value) ?? null);
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The fence id drawn per call (metrics/judge/fence.ts) changes every body; it says nothing. */
const FENCE_ID = /\bs_[0-9a-f]{6}\b/gu;

/** canonicalJson without the per-call fence ids: equal for the same request in every session. */
export function fencelessJson(value: unknown): string {
  return canonicalJson(value).replace(FENCE_ID, 's_');
}

export type CacheKeyRequest = Pick<
  JudgeRequest,
  'cacheKey' | 'json' | 'temperature' | 'n' | 'topLogprobs'
>;

/** SHA-256 hex of the canonical JSON of what identifies a reusable answer. */
export function cacheKeyFor(config: ProviderConfig, request: CacheKeyRequest): Promise<string> {
  return sha256Hex(
    canonicalJson({
      provider: config.kind,
      host: hostOf(config),
      model: config.model,
      cacheKey: request.cacheKey,
      schema: request.json?.name ?? null,
      temperature: request.temperature ?? 0,
      n: request.n ?? 1,
      topLogprobs: request.topLogprobs ?? null,
    }),
  );
}

/** An in-memory cache: tests, and a session-only fallback when IndexedDB is unavailable. */
export class MemoryResponseCache implements ResponseCache {
  private readonly map = new Map<string, JudgeResponse>();
  async get(key: string): Promise<JudgeResponse | undefined> {
    const hit = this.map.get(key);
    return hit ? structuredClone(hit) : undefined;
  }
  async set(key: string, response: JudgeResponse): Promise<void> {
    this.map.set(key, structuredClone(response));
  }
  async delete(key: string): Promise<void> {
    this.map.delete(key);
  }
  get size(): number {
    return this.map.size;
  }
}
