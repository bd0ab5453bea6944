import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import {
  deleteAllCases,
  deleteCase,
  getCase,
  listHistory,
  loadDraft,
  saveCase,
  saveDraft,
} from '../../../src/lib/storage/cases.ts';
import type { StoredCase } from '../../../src/lib/storage/schema.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { fakeResult } from '../metrics/scored.ts';

function storedCase(id: string, createdAt: number, summary: string): StoredCase {
  return {
    id,
    createdAt,
    input: { source: 'A long source text. '.repeat(50), summary, reference: 'ref' },
    settings: DEFAULT_SETTINGS,
    appVersion: 'test',
    results: [
      fakeResult({
        id: 'rouge-1',
        status: 'ok',
        score: 0.5,
        explanation: 'half',
        backend: 'rouge_score-0.1.2',
        details: { p: 1 },
      }),
      {
        id: 'coherence',
        status: 'n/a',
        score: null,
        reason: 'needs at least 3 sentences',
        explanation: 'needs at least 3 sentences',
        backend: 'glove',
        details: {},
      },
    ],
  };
}

describe('case storage', () => {
  it('saves cases, lists history newest first without texts, and deletes', async () => {
    await deleteAllCases();
    await saveCase(storedCase('a', 1000, 'First   summary\nwith lines'));
    await saveCase(storedCase('b', 2000, 'Second summary'));
    const history = await listHistory();
    expect(history.map((h) => h.id)).toEqual(['b', 'a']);
    expect(history[1]).toMatchObject({
      title: 'First summary with lines',
      hasReference: true,
      scores: [
        { id: 'rouge-1', status: 'ok', score: 0.5, backend: 'rouge_score-0.1.2' },
        { id: 'coherence', status: 'n/a', score: null, backend: 'glove' },
      ],
    });
    expect(history[1]).not.toHaveProperty('input');

    const full = await getCase('a');
    expect(full?.results[0]?.details).toEqual({ p: 1 });

    await deleteCase('a');
    expect((await listHistory()).map((h) => h.id)).toEqual(['b']);
    expect(await getCase('a')).toBeUndefined();

    await deleteAllCases();
    expect(await listHistory()).toEqual([]);
  });

  it('keeps one draft that survives and is replaced', async () => {
    await saveDraft({ input: { source: 's1', summary: 'x' }, savedAt: 1 });
    await saveDraft({ input: { source: 's2', summary: 'y', reference: 'r' }, savedAt: 2 });
    expect(await loadDraft()).toEqual({
      key: 'current',
      input: { source: 's2', summary: 'y', reference: 'r' },
      savedAt: 2,
    });
  });
});
