/**
 * The judge cache in IndexedDB: answers survive by key, and a database created by version 1 of
 * the app upgrades to version 2 without losing its cases.
 */
import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, it, vi } from 'vitest';
import { db } from '../../../src/lib/storage/db.ts';
import {
  capabilityStore,
  clearJudgeCache,
  judgeAnswerCache,
  judgeCacheSize,
} from '../../../src/lib/storage/judge-cache.ts';
import { DB_NAME } from '../../../src/lib/storage/schema.ts';

describe('judge cache', () => {
  it('stores and returns answers by key, and clears them', async () => {
    const cache = judgeAnswerCache<{ provider: string; model: string; choices: string[] }>();
    const answer = { provider: 'openai', model: 'gpt-4o-mini', choices: ['Final score: 4.'] };
    expect(await cache.get('k1')).toBeUndefined();
    await cache.set('k1', answer);
    expect(await cache.get('k1')).toEqual(answer);
    await capabilityStore<{ logprobs: boolean }>().set('openai|gpt-4o-mini', { logprobs: true });
    expect(await capabilityStore().get('openai|gpt-4o-mini')).toEqual({ logprobs: true });
    expect(await judgeCacheSize()).toBe(1);
    await clearJudgeCache();
    expect(await judgeCacheSize()).toBe(0);
    expect(await capabilityStore().get('openai|gpt-4o-mini')).toBeUndefined();
  });
});

describe('answers IndexedDB refuses (the disk budget is used up)', () => {
  it('are kept outside it, read back, and moved in by the next write it takes', async () => {
    const local = new Map<string, string>();
    vi.stubGlobal('localStorage', {
      getItem: (k: string) => local.get(k) ?? null,
      setItem: (k: string, v: string) => void local.set(k, v),
      removeItem: (k: string) => void local.delete(k),
      key: (i: number) => [...local.keys()][i] ?? null,
      get length() {
        return local.size;
      },
    });
    try {
      const database = await db();
      const put = vi
        .spyOn(database, 'put')
        .mockRejectedValue(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
      const cache = judgeAnswerCache<{ provider: string; model: string; text: string }>();
      const answer = { provider: 'openai', model: 'gpt-4o-mini', text: 'Final score: 4.' };
      // Neither the call's answer nor an arrival is lost when IndexedDB says the disk is full.
      await cache.set('bought', answer);
      await cache.arrivals.set('arrival:one', '{"choices":[]}', answer);
      expect(await cache.get('bought')).toEqual(answer);
      expect(await cache.arrivals.get('arrival:one')).toBe('{"choices":[]}');
      expect([...local.keys()].sort()).toEqual([
        'sumlens.answer.arrival:one',
        'sumlens.answer.bought',
      ]);
      // Another IndexedDB write goes through (space freed): the refused answers move in.
      put.mockRestore();
      await cache.set('later', { ...answer, text: 'Final score: 3.' });
      await expect.poll(() => local.size).toBe(0);
      expect(await judgeCacheSize()).toBe(3);
      expect(await cache.get('bought')).toEqual(answer);
      await clearJudgeCache();
      expect(await cache.get('bought')).toBeUndefined();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('other storage errors are not swallowed', async () => {
    const database = await db();
    const put = vi
      .spyOn(database, 'put')
      .mockRejectedValue(new DOMException('gone', 'UnknownError'));
    try {
      await expect(
        judgeAnswerCache<{ provider: string; model: string }>().set('k', {
          provider: 'openai',
          model: 'm',
        }),
      ).rejects.toThrow(/gone/u);
    } finally {
      put.mockRestore();
    }
  });
});

describe('upgrade from version 1', () => {
  it('adds the judge stores and keeps the cases of a version-1 database', async () => {
    indexedDB.deleteDatabase(DB_NAME);
    const v1 = await openDB(DB_NAME, 1, {
      upgrade(database) {
        database.createObjectStore('cases', { keyPath: 'id' });
        const history = database.createObjectStore('history', { keyPath: 'id' });
        history.createIndex('by-created', 'createdAt');
        database.createObjectStore('drafts', { keyPath: 'key' });
      },
    });
    await v1.put('cases', { id: 'old', createdAt: 1, input: { source: 's', summary: 't' } });
    v1.close();

    const { getCase } = await import('../../../src/lib/storage/cases.ts');
    expect((await getCase('old'))?.input.summary).toBe('t');
    await judgeAnswerCache<{ provider: string; model: string }>().set('k', {
      provider: 'gemini',
      model: 'gemini-2.0-flash',
    });
    expect(await judgeCacheSize()).toBe(1);
  });
});
