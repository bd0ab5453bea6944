/**
 * A stray quote in a CSV costs its own row, never the rows after it, and every row keeps its
 * spreadsheet number (header = row 1): an unclosed quote with the later fields unquoted or quoted,
 * a merge that happens to give the right field count, a quote inside an unquoted field, a quote
 * at the end of the file, CRLF, and chunk boundaries anywhere. Well-formed files (quoted
 * paragraphs, `""`) read exactly as papaparse reads them whole.
 */
import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { parseDatasetText } from '../../../src/lib/datasets/parse/dataset.ts';
import { CsvSplitter } from '../../../src/lib/datasets/parse/csv.ts';
import type { Item } from '../../../src/lib/datasets/parse/items.ts';
import { isCaseRow, type DatasetRow } from '../../../src/lib/rows/formats.ts';
import { brokenCsv } from './_csv.ts';

const HEADER = 'id,source,summary';

function cases(rows: DatasetRow[]) {
  return rows.filter(isCaseRow).map((r) => ({ row: r.row, id: r.id, ...r.input }));
}

describe('a stray quote costs its own row', () => {
  it.each([
    ['unquoted', '\n'],
    ['quoted', '\n'],
    ['unquoted', '\r\n'],
    ['quoted', '\r\n'],
  ] as const)(
    '1,000 rows, an unclosed quote in row 4, later fields %s (line end %j): 999 rows, each with its number',
    (later, newline) => {
      const csv = brokenCsv(1000, 4, later, newline);
      for (const size of [Infinity, 1, 7, 4096]) {
        const { rows, problems } = parseDatasetText(csv, { fileName: 'cases.csv' }, size);
        expect(rows).toHaveLength(999);
        // The id column holds the spreadsheet row number the row was written at.
        for (const row of rows) expect(row.id).toBe(String(row.row));
        expect(rows.map((r) => r.row)).not.toContain(4);
        expect(problems.map((p) => p.reason)).toEqual([
          `row 4: the quote that opens column 'source' ("Source 4 has a stray quote,Sum…) is not closed on its line: the row is left out and its next line is read as the next row (a quote inside a field is written twice: "")`,
        ]);
      }
    },
  );

  it('two rows that merge into the right field count are still told apart', () => {
    const csv = [HEADER, '2,S2,A2', '3,"abc', '4,"x","y"', '5,S5,A5', ''].join('\n');
    const { rows, problems } = parseDatasetText(csv, { fileName: 'cases.csv' });
    expect(cases(rows)).toEqual([
      { row: 2, id: '2', source: 'S2', summary: 'A2' },
      { row: 4, id: '4', source: 'x', summary: 'y' },
      { row: 5, id: '5', source: 'S5', summary: 'A5' },
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.row).toBe(3);
    expect(problems[0]!.reason).toMatch(/^row 3: the quote that opens column 'source' \("abc\)/u);
  });

  it('a quote inside an unquoted field is text, as before', () => {
    const csv = [HEADER, '2,S2,A2', '3,ab"c,A3', '4,S4,A4'].join('\n');
    const { rows, problems } = parseDatasetText(csv, { fileName: 'cases.csv' });
    expect(problems).toEqual([]);
    expect(cases(rows).map((r) => [r.row, r.source])).toEqual([
      [2, 'S2'],
      [3, 'ab"c'],
      [4, 'S4'],
    ]);
  });

  it('a quote closed too early on its own line is that row alone, named with its text', () => {
    const csv = [HEADER, '2,S2,A2', '3,"ab"c",A3', '4,S4,A4'].join('\n');
    const { rows, problems } = parseDatasetText(csv, { fileName: 'cases.csv' });
    expect(rows.map((r) => r.row)).toEqual([2, 4]);
    expect(problems.map((p) => p.reason)).toEqual([
      `row 3: a quote in column 'source' (3,"ab"c",A3) should close the field but is followed by more text (a quote inside a field is written twice: "")`,
    ]);
  });

  it('a quote left open at the end of the file: the last row, and no other', () => {
    for (const last of ['5,"abc', '"']) {
      const csv = [HEADER, '2,S2,A2', '3,S3,A3', '4,S4,A4', last].join('\n');
      const { rows, problems } = parseDatasetText(csv, { fileName: 'cases.csv' });
      expect(rows.map((r) => r.row)).toEqual([2, 3, 4]);
      expect(problems).toHaveLength(1);
      expect(problems[0]!.reason).toMatch(/^row 5: the quote that opens column '(source|id)'/u);
      // Nothing after it to read again.
      expect(problems[0]!.reason).not.toMatch(/next line/u);
    }
  });

  it('quoted paragraphs and "" next to a broken row read exactly as before', () => {
    const csv = [
      HEADER,
      '2,"Para one, with a comma.\n\nPara ""two"".",A2',
      '3,"broken,A3',
      '4,"Para x,\nmore",A4',
      '5,S5,"A ""quoted"" summary"',
    ].join('\r\n');
    for (const size of [Infinity, 1, 5]) {
      const { rows, problems } = parseDatasetText(csv, { fileName: 'cases.csv' }, size);
      expect(cases(rows)).toEqual([
        { row: 2, id: '2', source: 'Para one, with a comma.\n\nPara "two".', summary: 'A2' },
        { row: 4, id: '4', source: 'Para x,\nmore', summary: 'A4' },
        { row: 5, id: '5', source: 'S5', summary: 'A "quoted" summary' },
      ]);
      expect(problems.map((p) => p.row)).toEqual([3]);
    }
  });

  it('a merged record with too many fields gives back the line after the bad one', () => {
    const csv = [HEADER, '2,S2,A2', '3,"abc', '4,def",x,y', '5,S5,A5'].join('\n');
    const { rows, problems } = parseDatasetText(csv, { fileName: 'cases.csv' });
    expect(rows.map((r) => r.row)).toEqual([2, 5]);
    expect(problems.map((p) => p.reason)).toEqual([
      expect.stringMatching(/^row 3: the quote that opens column 'source' \("abc\)/u),
      'row 4: 4 fields where the header has 3 (an unquoted comma?)',
    ]);
  });

  it('the problem is worded in the reader’s language too', () => {
    const csv = [HEADER, '2,"abc', '3,S3,A3'].join('\n');
    const { problems } = parseDatasetText(csv, { fileName: 'cases.csv' });
    expect(problems[0]!.reasonRef).toMatchObject({
      key: 'datasets.problem.rowLine',
      values: {
        row: 2,
        reason: {
          key: 'datasets.problem.csvUnclosedQuote',
          values: { column: 'source', text: '"abc', rescanned: 'yes' },
        },
      },
    });
  });
});

/** A random well-formed CSV: quoted commas, line breaks and "" quotes, blanks after quotes. */
function randomCsv(seed: number): { text: string; newline: string } {
  let state = seed;
  const rand = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const newline = pick(['\n', '\r\n']);
  const columns = 2 + Math.floor(rand() * 3);
  const word = () => pick(['alpha', 'beta', 'a"b', 'x y', '42', '', 'é😀', 'c\rr']);
  // Blanks after a closing quote, but not at the end of the file, where papaparse calls them an
  // unclosed quote.
  const field = (last: boolean) => {
    if (rand() < 0.5) return word();
    const inside = Array.from({ length: 1 + Math.floor(rand() * 4) }, () =>
      pick([word().replaceAll('"', '""'), ',', '""', newline, '\n', ' ']),
    ).join('');
    return `"${inside}"${last ? '' : pick(['', '', ' ', '  '])}`;
  };
  const lines = [Array.from({ length: columns }, (_, i) => `c${i}`).join(',')];
  const count = 1 + Math.floor(rand() * 30);
  for (let r = 0; r < count; r++) {
    const fields = Array.from({ length: columns }, (_, i) => field(i === columns - 1));
    lines.push(rand() < 0.05 ? '' : fields.join(','));
  }
  return { text: lines.join(newline) + pick(['', newline]), newline };
}

function splitterItems(text: string, size: number): Item[] {
  const items: Item[] = [];
  const splitter = new CsvSplitter((item) => items.push(item), 1_000_000);
  for (let i = 0; i < text.length; i += size) splitter.push(text.slice(i, i + size));
  splitter.end();
  return items;
}

describe('well-formed files read as papaparse reads them', () => {
  it('300 random files, in chunks of 1, 3, 64 and all: the same records and row numbers', () => {
    let compared = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { text } = randomCsv(seed);
      const whole = Papa.parse<Record<string, string>>(text, {
        header: true,
        transformHeader: (h) => h.trim(),
      });
      const blank = (record: Record<string, string>) =>
        Object.values(record).every((v) => v.trim() === '');
      const expected = whole.data
        .map((record, i) => ({ row: i + 2, record }))
        .filter(({ record }) => !blank(record));
      // Only files papaparse reads without a complaint (a blank line aside): where it finds one,
      // the splitter is meant to differ. papaparse may guess '\r' as the line end of a file with a
      // lone '\r' in a cell, and then some field counts are off.
      if (whole.errors.some((e) => e.row === undefined || !blank(whole.data[e.row]!))) continue;
      compared++;
      for (const size of [1, 3, 64, text.length]) {
        expect(splitterItems(text, size), `seed ${seed}, chunks of ${size}`).toEqual(expected);
      }
    }
    expect(compared).toBeGreaterThan(240);
  });
});

describe('broken rows among good ones', () => {
  it('200 random files with 1–3 unclosed quotes: every other row loads under its own number', () => {
    for (let seed = 1; seed <= 200; seed++) {
      let state = seed;
      const rand = () => {
        state = (state * 1103515245 + 12345) % 2147483648;
        return state / 2147483648;
      };
      const newline = rand() < 0.5 ? '\n' : '\r\n';
      const count = 5 + Math.floor(rand() * 60);
      const bad = new Set(
        Array.from({ length: 1 + Math.floor(rand() * 3) }, () => 2 + Math.floor(rand() * count)),
      );
      // Good rows quote some fields (a letter first, "" inside) and may hold a quote mid-field.
      const text = (row: number) =>
        rand() < 0.5 ? `"Text ${row}, with ""quotes"""` : `Text ${row} a"b`;
      const lines = [HEADER];
      for (let row = 2; row < count + 2; row++) {
        lines.push(bad.has(row) ? `${row},"Open ${row},x` : `${row},${text(row)},${text(row)}`);
      }
      const csv = lines.join(newline) + newline;
      const size = 1 + Math.floor(rand() * 200);
      const { rows, problems } = parseDatasetText(csv, { fileName: 'r.csv' }, size);
      const good = Array.from({ length: count }, (_, i) => i + 2).filter((r) => !bad.has(r));
      expect(
        rows.map((r) => [r.row, r.id]),
        `seed ${seed}`,
      ).toEqual(good.map((r) => [r, String(r)]));
      expect(
        problems.map((p) => p.row),
        `seed ${seed}`,
      ).toEqual([...bad].sort((a, b) => a - b));
    }
  });
});
