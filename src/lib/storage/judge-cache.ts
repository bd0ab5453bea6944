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
import { isQuotaExceeded } from './quota.ts';

/**
 * Answers IndexedDB refused because the disk budget is used up. They are bought: losing them
 * means buying them again on Resume, once space is freed. They are kept in memory and in
 * localStorage (outside the quota IndexedDB fills, a few MB), read back from there, and moved
 * into IndexedDB by the next write it takes.
 */
const OVERFLOW_PREFIX = 'sumlens.answer.';
/** localStorage holds at most this many characters of overflow (the rest stays in memory). */
const OVERFLOW_CHARS = 2_000_000;

interface OverflowEntry {
  key: string;
  storedAt: number;
  provider: string;
  model: string;
  response: unknown;
}

const overflow = new Map<string, OverflowEntry>();
let overflowChars = 0;

function localStore(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

function keepOverflow(entry: OverflowEntry): void {
  overflow.set(entry.key, entry);
  const text = JSON.stringify(entry);
  if (overflowChars + text.length > OVERFLOW_CHARS) return;
  try {
    localStore()?.setItem(OVERFLOW_PREFIX + entry.key, text);
    overflowChars += text.length;
  } catch {
    // localStorage full too: the answer lasts as long as the page.
  }
}

function overflowed(key: string): OverflowEntry | undefined {
  const held = overflow.get(key);
  if (held) return held;
  const text = localStore()?.getItem(OVERFLOW_PREFIX + key);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as OverflowEntry;
  } catch {
    return undefined;
  }
}

function dropOverflow(keys: readonly string[]): void {
  for (const key of keys) {
    overflow.delete(key);
    localStore()?.removeItem(OVERFLOW_PREFIX + key);
  }
}

function overflowKeys(): string[] {
  const keys = new Set(overflow.keys());
  const store = localStore();
  for (let i = 0; store && i < store.length; i++) {
    const name = store.key(i);
    if (name?.startsWith(OVERFLOW_PREFIX)) keys.add(name.slice(OVERFLOW_PREFIX.length));
  }
  return [...keys];
}

let moving: Promise<void> | undefined;

/** IndexedDB took a write: the answers it refused before go in too (once at a time). */
function moveOverflow(): void {
  if (moving) return;
  const keys = overflowKeys();
  if (keys.length === 0) return;
  moving = (async () => {
    try {
      const database = await db();
      for (const key of keys) {
        const entry = overflowed(key);
        if (entry) await database.put('judge-cache', entry);
        dropOverflow([key]);
      }
    } catch {
      // Still no room: they stay where they are.
    } finally {
      moving = undefined;
    }
  })();
}

/** Writes an entry to the cache, or keeps it outside IndexedDB when the disk budget is used up. */
async function putAnswer(entry: OverflowEntry): Promise<void> {
  try {
    await (await db()).put('judge-cache', entry);
  } catch (error) {
    if (!isQuotaExceeded(error)) throw error;
    keepOverflow(entry);
    return;
  }
  moveOverflow();
}

/** A cached entry's response: IndexedDB's, else one it refused. */
async function readAnswer(key: string): Promise<unknown> {
  const row = await (await db()).get('judge-cache', key);
  return row ? row.response : overflowed(key)?.response;
}

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
      const response = await readAnswer(key);
      return typeof response === 'string' ? response : undefined;
    },
    async set(key, text, from) {
      await putAnswer({ key, storedAt: Date.now(), ...from, response: text });
    },
    async delete(keys) {
      if (keys.length === 0) return;
      dropOverflow(keys);
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
      return (await readAnswer(key)) as T | undefined;
    },
    async set(key, response) {
      await putAnswer({
        key,
        storedAt: Date.now(),
        provider: response.provider,
        model: response.model,
        response,
      });
    },
    async delete(key) {
      dropOverflow([key]);
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
  dropOverflow(overflowKeys());
  const database = await db();
  await Promise.all([database.clear('judge-cache'), database.clear('capabilities')]);
}
