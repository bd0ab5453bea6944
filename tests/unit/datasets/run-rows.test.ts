import { describe, expect, it } from 'vitest';
import {
  initiallyHidden,
  filterRows,
  firstDirection,
  rowColumns,
  rowSystems,
  sortRows,
  type RowColumn,
} from '../../../src/lib/datasets/run-rows.ts';
import type { RunView } from '../../../src/lib/datasets/run-view.ts';
import { englishWords } from '../../../src/lib/datasets/export/words.ts';

const NaN_ = Number.NaN;

function view(): RunView {
  return {
    table: {
      columns: ['rouge-l'],
      rows: [1, 2, 3, 4, 5],
      failed: [false, false, false, false, true],
      values: new Map([['rouge-l', Float64Array.from([0.5, NaN_, 0.9, 0.1, NaN_])]]),
      summary: [],
      flags: new Map([[2, [{ id: 'too-short', message: 'Too short.' }]]]),
    },
    ratings: new Map([['expert_coherence', Float64Array.from([3, 4.5, NaN_, 1, 2])]]),
    ids: ['doc-10', 'doc-2', 'doc-1', 'Doc-3', ''],
    systems: ['M10', 'M2', 'M2', 'M1', 'M10'],
  };
}

const column = (columns: RowColumn[], key: string) => columns.find((c) => c.key === key)!;

describe('the row table as data', () => {
  const v = view();
  const columns = rowColumns(v, ['expert_coherence', 'not-rated']);

  it('lists row, id, system, the scores, the rated human columns and the flags', () => {
    expect(columns.map((c) => c.key)).toEqual([
      'row',
      'id',
      'system',
      'score:rouge-l',
      'human:expert_coherence',
      'flags',
    ]);
    expect(columns.map((c) => c.label(englishWords))).toEqual([
      'Row',
      'Id',
      'System',
      'ROUGE-L',
      'expert_coherence (human)',
      englishWords('card.flags.column'),
    ]);
    expect(column(columns, 'flags').badges!(2, englishWords)).toMatchObject([
      { id: 'too-short', tone: 'flag' },
    ]);
    // A run without ids, systems or flags shows none of their columns.
    const bare = rowColumns(
      {
        ...v,
        ids: v.ids.map(() => ''),
        systems: v.systems.map(() => ''),
        table: { ...v.table, flags: new Map() },
      },
      [],
    );
    expect(bare.map((c) => c.key)).toEqual(['row', 'score:rouge-l']);
  });

  it('sorts numbers numerically with empty cells last, in both directions', () => {
    const all = [0, 1, 2, 3, 4];
    const human = column(columns, 'human:expert_coherence');
    expect(sortRows(all, human, true)).toEqual([1, 0, 4, 3, 2]);
    expect(sortRows(all, human, false)).toEqual([3, 4, 0, 1, 2]);
    const score = column(columns, 'score:rouge-l');
    expect(sortRows(all, score, true)).toEqual([2, 0, 3, 1, 4]);
    expect(sortRows(all, score, false)).toEqual([3, 0, 2, 1, 4]);
  });

  it('sorts text with numbers in it as people count, case aside, empty last', () => {
    const id = column(columns, 'id');
    expect(sortRows([0, 1, 2, 3, 4], id, false)).toEqual([2, 1, 3, 0, 4]);
    expect(sortRows([0, 1, 2, 3, 4], id, true)).toEqual([0, 3, 1, 2, 4]);
    expect(firstDirection(id)).toBe('ascending');
    expect(firstDirection(column(columns, 'row'))).toBe('ascending');
    expect(firstDirection(column(columns, 'score:rouge-l'))).toBe('descending');
  });

  it('filters by text in id or system, by system, and to flagged rows', () => {
    expect(filterRows(v, {})).toEqual([0, 1, 2, 3, 4]);
    expect(filterRows(v, { system: 'M2' })).toEqual([1, 2]);
    expect(filterRows(v, { text: 'doc-1' })).toEqual([0, 2]);
    expect(filterRows(v, { text: 'm1' })).toEqual([0, 3, 4]);
    expect(filterRows(v, { text: ' DOC-3 ' })).toEqual([3]);
    expect(filterRows(v, { flagged: true })).toEqual([2]);
    expect(filterRows(v, { system: 'M2', flagged: true, text: 'doc' })).toEqual([2]);
    expect(rowSystems(v)).toEqual(['M1', 'M2', 'M10']);
  });

  it("hides, at first, human columns outside the best reference's group when there are many", () => {
    const summeval = ['coherence', 'consistency', 'fluency', 'relevance'].flatMap((d) => [
      `expert_${d}`,
      `turker_${d}`,
    ]);
    const ratings = new Map(summeval.map((c) => [c, Float64Array.from([1, 2, 3, 4, 5])]));
    const wide = rowColumns({ ...v, ratings }, summeval);
    expect([...initiallyHidden(wide, summeval)].sort()).toEqual(
      summeval
        .filter((c) => c.startsWith('turker_'))
        .map((c) => `human:${c}`)
        .sort(),
    );
    expect(initiallyHidden(columns, ['expert_coherence'])).toEqual(new Set());
  });

  it('keeps 100,000 rows quick to filter and sort', () => {
    const n = 100_000;
    const big: RunView = {
      table: {
        columns: ['rouge-l'],
        rows: Array.from({ length: n }, (_, i) => i + 1),
        failed: new Array<boolean>(n).fill(false),
        values: new Map([
          ['rouge-l', Float64Array.from({ length: n }, (_, i) => (i * 7919) % 1000)],
        ]),
        summary: [],
      },
      ratings: new Map(),
      ids: Array.from({ length: n }, (_, i) => `doc-${i}`),
      systems: Array.from({ length: n }, (_, i) => `M${i % 16}`),
    };
    const started = performance.now();
    const rows = filterRows(big, { system: 'M3' });
    const sorted = sortRows(rows, column(rowColumns(big, []), 'score:rouge-l'), true);
    expect(sorted).toHaveLength(n / 16);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('the checks column', () => {
  it('comes after system when the data set has checks, with a chip per row and failures first', () => {
    const v = view();
    const checks = new Map([
      [1, 'pass'],
      [2, 'fail'],
      [3, 'skip'],
      [4, 'pass'],
    ] as const);
    const columns = rowColumns(v, [], checks);
    expect(columns.map((c) => c.key).slice(0, 4)).toEqual(['row', 'id', 'system', 'checks']);
    const c = column(columns, 'checks');
    expect([0, 1, 2, 3, 4].map((i) => c.badges!(i, englishWords).map((b) => b.tone))).toEqual([
      ['pass'],
      ['fail'],
      [],
      ['pass'],
      [],
    ]);
    // Ascending: the failing row first; rows no check could read (skipped, not scored) last.
    expect(sortRows([0, 1, 2, 3, 4], c, false)).toEqual([1, 0, 3, 2, 4]);
    expect(rowColumns(v, [], new Map()).some((col) => col.key === 'checks')).toBe(false);
  });
});
