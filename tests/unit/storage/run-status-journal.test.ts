/**
 * A run's status kept outside IndexedDB when IndexedDB refuses it (storage full), laid over the
 * stored record until a later write supersedes it; and the notices every view of a run listens to.
 */
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createRun,
  deleteRun,
  getRun,
  listRuns,
  putRowResult,
  updateRun,
} from '../../../src/lib/storage/runs.ts';
import {
  journaledRunIds,
  journalRunStatus,
  withJournaledStatus,
} from '../../../src/lib/storage/run-status-journal.ts';
import { onRunNotice, type RunNotice } from '../../../src/lib/storage/run-changes.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';

/** A localStorage with the Web Storage API's key()/length, in memory. */
function webStorage() {
  const data = new Map<string, string>();
  return {
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
    removeItem: (k: string) => void data.delete(k),
    key: (i: number) => [...data.keys()][i] ?? null,
    get length() {
      return data.size;
    },
    clear: () => data.clear(),
    data,
  };
}

const storage = webStorage();

beforeEach(() => {
  storage.clear();
  vi.stubGlobal('localStorage', storage);
});
afterEach(() => vi.unstubAllGlobals());

let n = 0;
async function newRun() {
  n++;
  return createRun({
    id: `journal-run-${n}`,
    datasetId: `journal-ds-${n}`,
    datasetName: 'dev',
    createdAt: Date.now() - 1000,
    metrics: ['rouge-l'],
    settings: { metrics: DEFAULT_SETTINGS },
    appVersion: 'test',
    total: 3,
  });
}

/** Stores row 1 of the run, done now. */
function storeRow(runId: string) {
  return putRowResult({
    runId,
    row: 1,
    status: 'done',
    results: [],
    finishedAt: Date.now(),
    elapsedMs: 1,
  });
}

describe('a status kept outside IndexedDB', () => {
  it('stands in for the record until IndexedDB takes a newer write', async () => {
    const run = await newRun();
    expect(run.status).toBe('running');
    journalRunStatus(run.id, {
      status: 'paused',
      message: 'storage is full',
      at: Date.now(),
    });
    // Every read the page makes sees the run paused, so a reload does not resume it.
    expect((await getRun(run.id))?.status).toBe('paused');
    expect((await getRun(run.id))?.message).toBe('storage is full');
    expect((await listRuns()).find((r) => r.id === run.id)?.status).toBe('paused');
    expect(journaledRunIds()).toEqual([run.id]);

    // A status written to IndexedDB later wins, and the journal is cleared.
    await updateRun(run.id, { status: 'running', message: null });
    expect((await getRun(run.id))?.status).toBe('running');
    expect(journaledRunIds()).toEqual([]);
  });

  it('is superseded by a row stored after it (updatedAt), and cleared with its run', async () => {
    const run = await newRun();
    journalRunStatus(run.id, { status: 'paused', at: Date.now() - 500 });
    await storeRow(run.id);
    expect((await getRun(run.id))?.status).toBe('running');
    await deleteRun(run.id);
    expect(journaledRunIds()).toEqual([]);
  });

  it('keeps the record as it is where the journal is older or absent', () => {
    const record = {
      id: 'r',
      status: 'done',
      updatedAt: 2_000,
      message: 'kept',
    } as Parameters<typeof withJournaledStatus>[0];
    expect(withJournaledStatus(record, storage)).toBe(record);
    journalRunStatus('r', { status: 'paused', at: 1_000 }, storage);
    expect(withJournaledStatus(record, storage)).toBe(record);
    journalRunStatus('r', { status: 'paused', at: 3_000 }, storage);
    expect(withJournaledStatus(record, storage)).toMatchObject({ status: 'paused' });
    expect(withJournaledStatus(record, storage).message).toBeUndefined();
  });

  it('says nothing and stores nothing where there is no localStorage', () => {
    vi.stubGlobal('localStorage', undefined);
    expect(journalRunStatus('x', { status: 'paused', at: 1 })).toBe(false);
    expect(journaledRunIds()).toEqual([]);
  });
});

describe('run notices', () => {
  it('every write of a run is announced to this context (other tabs get it by BroadcastChannel)', async () => {
    const heard: RunNotice[] = [];
    const stop = onRunNotice((notice) => heard.push(notice));
    const run = await newRun();
    await storeRow(run.id);
    await updateRun(run.id, { status: 'done' });
    await deleteRun(run.id);
    stop();
    expect(heard.filter((h) => h.runId === run.id).map((h) => h.type)).toEqual([
      'changed',
      'changed',
      'changed',
      'changed',
    ]);
  });
});
