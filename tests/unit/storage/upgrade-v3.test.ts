/**
 * A database written by the previous version (v2: cases, history, drafts, judge-cache,
 * capabilities) opens as v3 with every record kept and the four data-set stores added.
 */
import 'fake-indexeddb/auto';
import { deleteDB, openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { DB_NAME, DB_VERSION } from '../../../src/lib/storage/schema.ts';

describe('IndexedDB upgrade v2 → v3', () => {
  it('keeps every v2 record and adds the data-set stores', async () => {
    await deleteDB(DB_NAME);
    // The v2 schema exactly as db.ts created it before v3.
    const old = await openDB(DB_NAME, 2, {
      upgrade(database, oldVersion) {
        if (oldVersion < 1) {
          database.createObjectStore('cases', { keyPath: 'id' });
          const history = database.createObjectStore('history', { keyPath: 'id' });
          history.createIndex('by-created', 'createdAt');
          database.createObjectStore('drafts', { keyPath: 'key' });
        }
        if (oldVersion < 2) {
          const cache = database.createObjectStore('judge-cache', { keyPath: 'key' });
          cache.createIndex('by-stored', 'storedAt');
          database.createObjectStore('capabilities', { keyPath: 'key' });
        }
      },
    });
    const stored = {
      case: { id: 'c1', createdAt: 1, input: { source: 's', summary: 'x' }, results: [] },
      history: { id: 'c1', createdAt: 1, title: 'x', scores: [] },
      draft: { key: 'current', input: { source: 'draft', summary: '' }, savedAt: 5 },
      cache: { key: 'k1', storedAt: 7, provider: 'openai', model: 'm', response: { a: 1 } },
      caps: { key: 'openai/m', probedAt: 8, value: { logprobs: true } },
    };
    await old.put('cases', stored.case);
    await old.put('history', stored.history);
    await old.put('drafts', stored.draft);
    await old.put('judge-cache', stored.cache);
    await old.put('capabilities', stored.caps);
    old.close();

    const { db } = await import('../../../src/lib/storage/db.ts');
    const database = await db();
    expect(DB_VERSION).toBe(3);
    expect(database.version).toBe(3);
    expect([...database.objectStoreNames].sort()).toEqual(
      [
        'capabilities',
        'cases',
        'dataset-rows',
        'datasets',
        'drafts',
        'history',
        'judge-cache',
        'run-results',
        'runs',
      ].sort(),
    );
    expect(await database.get('cases', 'c1')).toEqual(stored.case);
    expect(await database.getAllFromIndex('history', 'by-created')).toEqual([stored.history]);
    expect(await database.get('drafts', 'current')).toEqual(stored.draft);
    expect(await database.getAllFromIndex('judge-cache', 'by-stored')).toEqual([stored.cache]);
    expect(await database.get('capabilities', 'openai/m')).toEqual(stored.caps);

    // The new stores work, with their indexes and compound keys.
    const tx = database.transaction(['dataset-rows', 'runs', 'run-results'], 'readonly');
    expect([...tx.objectStore('dataset-rows').indexNames]).toEqual(['by-dataset']);
    expect(tx.objectStore('dataset-rows').keyPath).toEqual(['datasetId', 'row']);
    expect([...tx.objectStore('runs').indexNames].sort()).toEqual(['by-created', 'by-dataset']);
    expect([...tx.objectStore('run-results').indexNames]).toEqual(['by-run']);
    expect(tx.objectStore('run-results').keyPath).toEqual(['runId', 'row']);
    await tx.done;
  });
});
