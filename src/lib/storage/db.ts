/** The one `openDB` of the app, with its versioned upgrades. */
import { messageOf } from '../errors.ts';
import { openDB, unwrap, wrap } from 'idb';
import type { IDBPDatabase } from 'idb';
import { DB_NAME, DB_VERSION } from './schema.ts';
import type { SumLensDB } from './schema.ts';

let opening: Promise<IDBPDatabase<SumLensDB>> | undefined;

/**
 * Every transaction's `done` is handled. idb's shortcuts (db.get, db.getAll…) open a transaction
 * whose `done` nobody awaits on a read, so when the browser aborts it (site data cleared, the
 * database closed under the page) the rejection surfaced as an uncaught page error; the read's own
 * request still rejects for its caller.
 */
function handleEveryDone(database: IDBPDatabase<SumLensDB>): void {
  const raw = unwrap(database) as IDBDatabase;
  const open = IDBDatabase.prototype.transaction;
  Object.defineProperty(raw, 'transaction', {
    configurable: true,
    value: function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
      const tx = open.apply(this, args);
      // (idb wraps a transaction once: this is the proxy, and the `done`, its callers get)
      guarded(wrap(tx) as unknown as { done: Promise<void> });
      return tx;
    },
  });
}

const lostListeners = new Set<() => void>();

/**
 * Listens for the browser closing the database under the page (the user cleared the site's data,
 * or the browser evicted it): every open run and view then refers to records that are gone.
 */
export function onDatabaseLost(listener: () => void): () => void {
  lostListeners.add(listener);
  return () => lostListeners.delete(listener);
}

export function db(): Promise<IDBPDatabase<SumLensDB>> {
  opening ??= openDB<SumLensDB>(DB_NAME, DB_VERSION, {
    upgrade(database, oldVersion) {
      // Each step moves one version forward, so any old database reaches the current shape.
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
      if (oldVersion < 3) {
        const datasets = database.createObjectStore('datasets', { keyPath: 'id' });
        datasets.createIndex('by-created', 'createdAt');
        const rows = database.createObjectStore('dataset-rows', { keyPath: ['datasetId', 'row'] });
        rows.createIndex('by-dataset', 'datasetId');
        const runs = database.createObjectStore('runs', { keyPath: 'id' });
        runs.createIndex('by-created', 'createdAt');
        runs.createIndex('by-dataset', 'datasetId');
        const results = database.createObjectStore('run-results', { keyPath: ['runId', 'row'] });
        results.createIndex('by-run', 'runId');
      }
    },
    blocking() {
      // A newer tab wants to upgrade: let it, and reopen on next use.
      void opening?.then((database) => database.close());
      opening = undefined;
    },
    terminated() {
      // The next call opens a new, empty database instead of failing on the closed connection.
      opening = undefined;
      for (const listener of lostListeners) listener();
    },
  })
    .then((database) => {
      handleEveryDone(database);
      return database;
    })
    .catch((error: unknown) => {
      opening = undefined;
      throw new Error(
        `The browser's storage (IndexedDB) is not available: ${messageOf(error)}. Private windows in some browsers block it.`,
      );
    });
  return opening;
}

/**
 * Marks a transaction's `done` as handled at once: when a request throws before `tx.done` is
 * awaited (or the transaction is aborted on purpose), its rejection must not surface as an
 * unhandled one. Awaiting `tx.done` later still rejects.
 */
export function guarded<T extends { done: Promise<void> }>(tx: T): T {
  tx.done.catch(() => undefined);
  return tx;
}

// Compound keys sort numbers before strings, arrays after: these bounds span every row number.
export function idRange(id: string): IDBKeyRange {
  return IDBKeyRange.bound([id, -Infinity], [id, Infinity]);
}
