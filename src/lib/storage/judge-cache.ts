/**
 * The judge's content-addressed answer cache and capability store, in IndexedDB, so a re-run of a
 * case costs zero calls even after a reload. Keys are hashes computed by the LLM client from
 * provider, model, prompt version, settings and texts; API keys never reach this module.
 */
import { db } from './db.ts';

export interface StoredValueCache<T> {
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T): Promise<void>;
  delete?(key: string): Promise<void>;
}

/** Backs the LLM client's ResponseCache. */
export function judgeAnswerCache<
  T extends { provider: string; model: string },
>(): StoredValueCache<T> {
  return {
    async get(key) {
      const row = await (await db()).get('judge-cache', key);
      return row?.response as T | undefined;
    },
    async set(key, response) {
      await (
        await db()
      ).put('judge-cache', {
        key,
        storedAt: Date.now(),
        provider: response.provider,
        model: response.model,
        response,
      });
    },
    async delete(key) {
      await (await db()).delete('judge-cache', key);
    },
  };
}

/** Backs the capability probe's persistent store (one probe per provider + model, ever). */
export function capabilityStore<T>(): StoredValueCache<T> {
  return {
    async get(key) {
      return (await (await db()).get('capabilities', key))?.value as T | undefined;
    },
    async set(key, value) {
      await (await db()).put('capabilities', { key, probedAt: Date.now(), value });
    },
  };
}

export async function judgeCacheSize(): Promise<number> {
  return (await db()).count('judge-cache');
}

/** "Forget cached judge answers": the next run calls the provider again. */
export async function clearJudgeCache(): Promise<void> {
  const database = await db();
  await Promise.all([database.clear('judge-cache'), database.clear('capabilities')]);
}
