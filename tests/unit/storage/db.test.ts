/**
 * The database module: a transaction the browser aborts under the page (site data cleared) must
 * not surface as an uncaught error when nobody awaits its `done` (idb's read shortcuts never do).
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { db } from '../../../src/lib/storage/db.ts';

describe('db', () => {
  it('an aborted transaction whose done nobody awaits raises no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const database = await db();
      const tx = database.transaction('drafts', 'readonly');
      const read = tx.store.get('current');
      tx.abort();
      await expect(read).rejects.toThrow();
      // Two turns of the event loop: Node reports an unhandled rejection after the microtasks.
      await new Promise((done) => setTimeout(done, 20));
      await new Promise((done) => setTimeout(done, 20));
      expect(unhandled).toEqual([]);
      // The transaction's done still rejects for a caller that awaits it.
      await expect(tx.done).rejects.toBeDefined();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('shortcuts and explicit transactions work through the handled transaction', async () => {
    const database = await db();
    await database.put('drafts', { key: 'current', source: 's', summary: 'm' } as never);
    expect((await database.get('drafts', 'current'))?.key).toBe('current');
    const tx = database.transaction('drafts', 'readwrite');
    await Promise.all([tx.store.delete('current'), tx.done]);
    expect(await database.count('drafts')).toBe(0);
  });
});
