/**
 * Test set-ups the storage-backed tests share: an in-memory Web Storage, and a SummEval-kind data
 * set or TinyEval trec prediction rows saved to (fake) IndexedDB under a predictable id.
 */
import { saveDataset } from '../../src/lib/storage/datasets.ts';
import type { StoredDataset } from '../../src/lib/storage/schema.ts';
import type { CaseRow, PredictionRow } from '../../src/lib/rows/formats.ts';

/** localStorage/sessionStorage for Node, with its map exposed so a test can look inside. */
export function memoryStorage() {
  const data = new Map<string, string>();
  return {
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
    removeItem: (k: string) => void data.delete(k),
    data,
  };
}

/** Saves `rows` as data set `ds-<id>` (kind summeval, no human columns declared). */
export function saveTestDataset(id: string, rows: CaseRow[]): Promise<StoredDataset> {
  return saveDataset(
    {
      id: `ds-${id}`,
      name: `Data set ${id}`,
      createdAt: 1,
      kind: 'summeval',
      mapping: { kind: 'summeval', human: [] },
      problems: { count: 0, examples: [] },
    },
    rows,
  );
}

/** Saves `rows` as the TinyEval trec prediction data set `trec` (answers in `answers`). */
export function saveTrecDataset(rows: PredictionRow[]): Promise<StoredDataset> {
  return saveDataset(
    {
      id: 'trec',
      name: 'trec',
      createdAt: 1,
      kind: 'prediction',
      task: 'trec',
      mapping: { kind: 'prediction', answers: 'answers', human: [] },
      problems: { count: 0, examples: [] },
    },
    rows,
  );
}
