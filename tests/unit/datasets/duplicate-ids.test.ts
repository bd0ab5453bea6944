/**
 * Rows that share an id: both load, the import says which (the id and both row numbers), and no
 * row's results take another's place downstream (runs key results by row number; a comparison
 * pairs by id only when every id is distinct).
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { parseDatasetText } from '../../../src/lib/datasets/parse/dataset.ts';
import { getDataset, getDatasetRows } from '../../../src/lib/storage/datasets.ts';
import { handReport, ROUGE_L } from './_comparison.ts';
import { importRows } from './_parse-worker.ts';

const RECORDS = [
  { id: 'a1', source: 'Source one.', summary: 'Summary one.' },
  { id: 'a2', source: 'Source two.', summary: 'Summary two.' },
  { id: 'a1', source: 'Source three.', summary: 'Summary three.' },
  { id: 'a3', source: 'Source four.', summary: 'Summary four.' },
  { id: 'a1', source: 'Source five.', summary: 'Summary five.' },
];
const JSONL = RECORDS.map((r) => JSON.stringify(r)).join('\n');
const CSV = ['id,source,summary', ...RECORDS.map((r) => `${r.id},${r.source},${r.summary}`)].join(
  '\n',
);

describe('duplicate ids at import', () => {
  it.each([
    ['d.jsonl', JSONL, 0],
    ['d.csv', CSV, 1],
  ] as const)(
    '%s: every row loads, each repeat names the id and both rows',
    (fileName, text, shift) => {
      const { rows, problems, summary } = parseDatasetText(text, { fileName });
      const row = (n: number) => n + shift;
      expect(rows.map((r) => [r.row, r.id])).toEqual(RECORDS.map((r, i) => [row(i + 1), r.id]));
      expect(summary.problems).toBe(0);
      expect(problems).toEqual([
        expect.objectContaining({
          row: row(3),
          reason: `row ${row(3)}: the id 'a1' is also the id of row ${row(1)}: both rows are kept and scored apart`,
          kept: true,
          duplicateOf: row(1),
        }),
        expect.objectContaining({ row: row(5), kept: true, duplicateOf: row(1) }),
      ]);
      expect(problems[0]!.reasonRef).toMatchObject({
        values: {
          reason: { key: 'datasets.problem.duplicateId', values: { id: 'a1', first: row(1) } },
        },
      });
    },
  );

  it('the parse worker stores both rows and posts the notice for the page', async () => {
    const { summary, progress } = await importRows({
      file: new Blob([JSONL]),
      fileName: 'd.jsonl',
    });
    expect(summary).toMatchObject({ rows: 5, problems: 0 });
    const stored = await getDatasetRows(summary.datasetId, -Infinity, 100);
    expect(stored.map((r) => [r.row, r.id])).toEqual(RECORDS.map((r, i) => [i + 1, r.id]));
    const posted = progress.flatMap((p) => (p.type === 'problems' ? p.problems : []));
    expect(posted.map((p) => [p.row, p.duplicateOf, p.kept])).toEqual([
      [3, 1, true],
      [5, 1, true],
    ]);
    // A notice, not a row left out.
    expect((await getDataset(summary.datasetId))?.problems.count).toBe(0);
  });
});

describe('duplicate ids downstream', () => {
  it('a comparison does not pair by an id two rows share: every row keeps its own scores', () => {
    const ids = ['a1', 'a2', 'a1', 'a3'];
    const { comparison } = handReport({}, { a: ids, b: [...ids, 'a4'] });
    expect(comparison.pairing).not.toBe('id');
    expect(comparison.keys).toHaveLength(4);
    expect([...comparison.valuesA.get('rouge-l')!]).toEqual(ROUGE_L.a);
    expect([...comparison.valuesB.get('rouge-l')!]).toEqual(ROUGE_L.b.slice(0, 4));
  });
});
