/**
 * The judge's content-addressed answer cache and capability store, in IndexedDB, so a re-run of a
 * case costs zero calls even after a reload. Keys are hashes computed by the LLM client from
 * provider, model, prompt version, settings and texts; API keys never reach this module.
 *
 * The same store keeps single HTTP answers from the moment they arrive until their call is done
 * (src/lib/llm/arrivals.ts), under keys of their own: a reload mid-call loses only the answers
 * still on the wire. "Forget cached answers" clears them with the rest.
 */
import { db } from './db.ts';

export interface StoredValueCache<T> {
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T): Promise<void>;
  delete?(key: string): Promise<void>;
}

/** Answers kept as they arrive: the LLM client's ArrivalStore (src/lib/llm/cache.ts). */
export interface ArrivedAnswers {
  get(key: string): Promise<string | undefined>;
  set(key: string, text: string, from: { provider: string; model: string }): Promise<void>;
  delete(keys: readonly string[]): Promise<void>;
}

function arrivedAnswers(): ArrivedAnswers {
  return {
    async get(key) {
      const response = (await (await db()).get('judge-cache', key))?.response;
      return typeof response === 'string' ? response : undefined;
    },
    async set(key, text, from) {
      await (await db()).put('judge-cache', { key, storedAt: Date.now(), ...from, response: text });
    },
    async delete(keys) {
      if (keys.length === 0) return;
      const tx = (await db()).transaction('judge-cache', 'readwrite');
      await Promise.all([...keys.map((key) => tx.store.delete(key)), tx.done]);
    },
  };
}

/** Backs the LLM client's ResponseCache, with the answers that arrived for calls not yet done. */
export function judgeAnswerCache<
  T extends { provider: string; model: string },
>(): StoredValueCache<T> & {
  arrivals: ArrivedAnswers;
} {
  return {
    arrivals: arrivedAnswers(),
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
