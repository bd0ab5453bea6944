/**
 * The streaming parsers: JSONL, JSON (array and stream) and CSV, fed in chunks of any size; bad
 * rows reported with their row numbers while the rest load; BOM, CRLF, empty files, row limits;
 * UTF-16 files read to the same rows as UTF-8, binary files refused before any row.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { sharedPath } from '../../helpers/shared.ts';
import { englishRef } from '../../../src/lib/i18n/message.ts';
import { parseDataset, parseDatasetText } from '../../../src/lib/datasets/parse/dataset.ts';
import { DatasetParser } from '../../../src/lib/datasets/parse/parser.ts';
import { toRows } from '../../../src/lib/datasets/parse/rows.ts';
import { sniffFormat } from '../../../src/lib/datasets/parse/sniff.ts';
import { DatasetParseError } from '../../../src/lib/datasets/parse/types.ts';
import {
  isCaseRow,
  type DatasetDescription,
  type DatasetRow,
} from '../../../src/lib/rows/formats.ts';
import { expertMean, parseInChunks, summeval, summevalCsv } from './_support.ts';

const devBytes = readFileSync(sharedPath('data/summeval/dev.jsonl'));
const encoder = new TextEncoder();

function caseRows(rows: DatasetRow[]) {
  return rows.filter(isCaseRow);
}

describe('JSONL', () => {
  it('loads the 600 SummEval records with mean expert and turker ratings per dimension', () => {
    const { rows, problems, summary } = parseDatasetText(devBytes, { fileName: 'dev.jsonl' });
    expect(problems).toEqual([]);
    expect(rows).toHaveLength(600);
    expect(summary.format).toBe('jsonl');
    expect(summary.detected.description).toBe(
      'SummEval records: 600 rows, 4 expert dimensions, 4 turker dimensions',
    );
    const first = caseRows(rows)[0]!;
    const record = summeval[0]!;
    expect(first).toMatchObject({
      row: 1,
      kind: 'summeval',
      id: `${record.id}/${record.model_id}`,
      group: record.id,
      system: record.model_id,
    });
    expect(first.input.source).toBe(record.text);
    expect(first.input.summary).toBe(record.decoded);
    expect(first.input.reference).toBe(record.references[0]);
    expect(first.references).toHaveLength(11);
    expect(Object.keys(first.human).sort()).toEqual(
      [
        'expert_coherence',
        'expert_consistency',
        'expert_fluency',
        'expert_relevance',
        'turker_coherence',
        'turker_consistency',
        'turker_fluency',
        'turker_relevance',
      ].sort(),
    );
    expect(first.human.expert_coherence).toBeCloseTo(expertMean(record, 'coherence'), 12);
    expect(first.human.expert_coherence).toBeCloseTo(3, 12); // (3 + 4 + 2) / 3
    // 50 articles × 12 systems.
    expect(new Set(rows.map((r) => r.group)).size).toBe(50);
    // The raw fields left: filepath (small scalars only).
    expect(Object.keys(first.raw ?? {})).toEqual(['filepath']);
  });

  it('lists bad lines with their line number and a specific reason; the rest load', () => {
    const good = (i: number) =>
      JSON.stringify({ source: `Source ${i}.`, summary: `Summary ${i}.`, overall: i });
    const text = [
      good(1),
      good(2),
      '{"source": "broken json',
      '',
      JSON.stringify({ source: 'Only a source.' }),
      '[1, 2]',
      JSON.stringify({ source: 'A source.', summary: '   ' }),
      good(8),
      JSON.stringify({ source: 'S.', summary: 42, overall: '' }),
    ].join('\n');
    const { rows, problems } = parseDatasetText(text);
    expect(rows.map((r) => r.row)).toEqual([1, 2, 8, 9]);
    expect(problems.map((p) => p.row)).toEqual([3, 5, 6, 7]);
    expect(problems[0]!.reason).toMatch(/^row 3: not valid JSON \(.+\)$/u);
    expect(problems[1]!.reason).toBe("row 5: no summary text in column 'summary'");
    expect(problems[1]!.column).toBe('summary');
    expect(problems[2]!.reason).toBe('row 6: not a JSON object but an array');
    expect(problems[3]!.reason).toBe("row 7: no summary text in column 'summary'");
    expect(caseRows(rows)[0]!.human).toEqual({ overall: 1 });
    // A number in a text column is taken as text; an empty rating is left out.
    expect(caseRows(rows)[3]!.input.summary).toBe('42');
    expect(caseRows(rows)[3]!.human).toEqual({});
  });

  it('reports a rating cell that is not a number with its row and column, and keeps the row', () => {
    const text = [
      { source: 'The bridge closed.', summary: 'A bridge closed.', coherence: 4, fluency: 3 },
      { source: 'Rain fell all week.', summary: 'It rained.', coherence: 'high', fluency: 2 },
      { source: 'A shop opened.', summary: 'A shop.', coherence: 3, fluency: '[1, oops' },
      { source: 'The team won.', summary: 'A win.', coherence: 5, fluency: 4 },
      { source: 'Snow closed roads.', summary: 'Snow.', coherence: 2, fluency: 5 },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const result = parseDatasetText(text);
    // Every row loads; the cells that held no rating are listed, and no row counts as bad.
    expect(caseRows(result.rows).map((r) => r.human)).toEqual([
      { coherence: 4, fluency: 3 },
      { fluency: 2 },
      { coherence: 3 },
      { coherence: 5, fluency: 4 },
      { coherence: 2, fluency: 5 },
    ]);
    expect(result.summary.problems).toBe(0);
    // The page words each problem from its ref; in English the ref reads as the stored reason.
    for (const p of result.problems) expect(englishRef(p.reasonRef!)).toBe(p.reason);
    expect(result.problems.map(({ reasonRef: _ref, ...p }) => p)).toEqual([
      {
        row: 2,
        column: 'coherence',
        kept: true,
        reason:
          "row 2: the rating in column 'coherence', 'high' is not a number: the row is kept without it",
      },
      {
        row: 3,
        column: 'fluency',
        kept: true,
        reason:
          "row 3: the rating in column 'fluency', '[1, oops' is not a list of ratings (unreadable JSON): the row is kept without it",
      },
    ]);
  });

  it('gives the same rows for any chunk size (1 and 7 bytes, mid-character UTF-8)', () => {
    const sample = devBytes.subarray(0, devBytes.indexOf('\n'.charCodeAt(0), 200_000) + 1);
    const whole = parseDatasetText(sample);
    expect(whole.rows.length).toBeGreaterThan(30);
    for (const size of [1, 7, 4096]) {
      const chunked = parseInChunks(sample, size);
      expect(chunked.rows).toEqual(whole.rows);
      expect(chunked.problems).toEqual(whole.problems);
    }
    // Chinese text split inside its UTF-8 bytes.
    const zh = encoder.encode(
      JSON.stringify({ pred: '北京大学在北京。', answers: ['北京'] }) + '\n',
    );
    expect(parseInChunks(zh, 1).rows[0]!.input).toEqual({
      prediction: '北京大学在北京。',
      answers: ['北京'],
    });
  });

  it('drops a BOM, accepts CRLF, and reports progress in bytes', () => {
    const text = '\uFEFF{"source":"S1.","summary":"A1."}\r\n{"source":"S2.","summary":"A2."}\r\n';
    const bytes = encoder.encode(text);
    const parser = new DatasetParser({ totalBytes: bytes.byteLength });
    const first = parser.push(bytes.subarray(0, 10));
    expect(first).toMatchObject({ bytes: 10, total: bytes.byteLength });
    parser.push(bytes.subarray(10));
    const last = parser.end();
    expect(last.bytes).toBe(bytes.byteLength);
    const rows = caseRows(last.rows);
    expect(rows.map((r) => r.input.source)).toEqual(['S1.', 'S2.']);
    expect(rows[1]!.input.summary).toBe('A2.');
    expect(last.summary.rows).toBe(2);
    expect(last.detected?.kind ?? last.summary.detected.kind).toBe('case');
  });

  it('rejects a row over the character limit with its length, and the file goes on', () => {
    const long = JSON.stringify({ source: 'x'.repeat(5000), summary: 'y' });
    const text = [long, JSON.stringify({ source: 'S.', summary: 'A.' })].join('\n');
    for (const size of [Infinity, 333]) {
      const { rows, problems } = parseInChunks(text, size, { maxRowChars: 1000 });
      expect(rows.map((r) => r.row)).toEqual([2]);
      expect(problems).toHaveLength(1);
      expect(problems[0]!.reason).toMatch(
        /^row 1: 5,0\d\d characters, over the 1,000-character limit for one row$/u,
      );
    }
  });

  it('an empty file (or only blank lines) loads nothing and says so', () => {
    for (const text of ['', '\n\n  \r\n']) {
      const { rows, problems, summary } = parseDatasetText(text);
      expect(rows).toEqual([]);
      expect(problems).toEqual([]);
      expect(summary.detected.description).toBe('Empty file: no rows.');
    }
  });

  it('stops with one clear error when no column can be the summary (nothing would load)', () => {
    const text = JSON.stringify({ article: 'A.', highlights: 'H.' });
    expect(() => parseDatasetText(text)).toThrow(DatasetParseError);
    try {
      parseDatasetText(text);
    } catch (error) {
      expect((error as Error).message).toMatch(
        /Unrecognised records \(columns article, highlights\)/u,
      );
      expect((error as DatasetParseError).detected?.columns).toEqual(['article', 'highlights']);
    }
    // With a mapping it loads.
    const { rows } = parseDatasetText(text, {
      mapping: { kind: 'case', source: 'article', summary: 'highlights' },
    });
    expect(rows).toHaveLength(1);
  });
});

describe('JSON arrays and streams', () => {
  const records = summeval.slice(0, 5);

  it('a top-level array: one row per element, numbered from 1, any chunk size', () => {
    const text = JSON.stringify(records, null, 2);
    const whole = parseDatasetText(text);
    expect(whole.summary.format).toBe('json');
    expect(whole.rows).toHaveLength(5);
    expect(whole.rows.map((r) => r.row)).toEqual([1, 2, 3, 4, 5]);
    for (const size of [1, 7]) expect(parseInChunks(text, size).rows).toEqual(whole.rows);
  });

  it('a bad element is a problem naming its record and line; the others load', () => {
    const text =
      '[\n' +
      [
        JSON.stringify({ source: 'S1.', summary: 'A1.' }),
        '{"source": "S2.", "summary": tru}',
        '"just a string"',
        JSON.stringify({ source: 'S4.', summary: 'A4.' }),
      ].join(',\n') +
      '\n]';
    for (const size of [Infinity, 1, 7]) {
      const { rows, problems } = parseInChunks(text, size);
      expect(rows.map((r) => r.row)).toEqual([1, 4]);
      expect(problems.map((p) => p.reason)).toEqual([
        expect.stringMatching(/^row 2 \(line 3\): not valid JSON \(.+\)$/u),
        'row 3 (line 4): not a JSON object but a string',
      ]);
    }
  });

  it("TinyEval's GAOKAO_math.jsonl (pretty-printed objects one after another) is a JSON stream", () => {
    const text = readFileSync(sharedPath('data/tinyeval/dataset/GAOKAO_math.jsonl'));
    const mapping = {
      kind: 'sft' as const,
      instruction: 'instruction',
      input: 'input',
      output: 'output',
      prediction: 'output',
    };
    const { rows, problems, summary } = parseDatasetText(text, { mapping });
    expect(summary.format).toBe('json');
    expect(problems).toEqual([]);
    expect(rows).toHaveLength(10);
    for (const size of [1, 7]) {
      expect(parseInChunks(text, size, { mapping }).rows).toEqual(rows);
    }
  });

  it('an unclosed array and a truncated record are reported, the complete records load', () => {
    const text = '[{"source":"S1.","summary":"A1."},{"source":"S2.","summ';
    const { rows, problems, summary } = parseDatasetText(text);
    expect(rows).toHaveLength(1);
    expect(problems[0]!.reason).toBe(
      'row 2 (line 1): the file ends inside this record (an unclosed string)',
    );
    expect(summary.warnings).toEqual(['The JSON array is not closed with ].']);
  });
});

describe('CSV (papaparse)', () => {
  it('reads a header row, quoted commas, quotes and line breaks; rating columns are numbers', () => {
    const csv = summevalCsv(12);
    const { rows, problems, summary } = parseDatasetText(csv, { fileName: 'cases.csv' });
    expect(problems).toEqual([]);
    expect(summary.format).toBe('csv');
    expect(summary.detected.description).toBe(
      'Cases (source, summary, reference): 12 rows, 2 human rating columns (coherence, relevance)',
    );
    const cases = caseRows(rows);
    expect(cases).toHaveLength(12);
    // Row numbers count the header as row 1 (a spreadsheet's numbering).
    expect(cases.map((r) => r.row)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
    expect(cases[0]!.input.source.startsWith('"Quoted," she said.\nSecond line')).toBe(true);
    expect(cases[1]!.input.source).toBe(summeval[1]!.text);
    expect(cases[1]!.input.summary).toBe(summeval[1]!.decoded);
    expect(cases[1]!.input.reference).toBe(summeval[1]!.references[0]);
    expect(cases[1]!.group).toBe(summeval[1]!.id);
    expect(cases[1]!.human.coherence).toBeCloseTo(expertMean(summeval[1]!, 'coherence'), 12);
  });

  it('same rows for 1- and 7-character chunks, CRLF, a BOM, and ; as delimiter', () => {
    const csv = summevalCsv(4);
    const whole = parseDatasetText(csv, { format: 'csv' }).rows;
    for (const size of [1, 7]) {
      expect(parseInChunks(csv, size, { format: 'csv' }).rows).toEqual(whole);
    }
    const crlf = '\uFEFF' + summevalCsv(4, '\r\n');
    expect(parseInChunks(crlf, 7, { fileName: 'x.csv' }).rows).toEqual(whole);
    const semi = 'source;summary;score\n"A; source";"Its summary";4\n';
    const semiRows = caseRows(parseDatasetText(semi, { format: 'csv' }).rows);
    expect(semiRows[0]!.input.source).toBe('A; source');
    expect(semiRows[0]!.human).toEqual({ score: 4 });
  });

  it('bad CSV rows are listed with their row numbers; blank lines are skipped', () => {
    const csv = [
      'source,summary,reference',
      'S1.,A1.,R1.',
      'S2.,,R2.',
      '',
      'S4.,A4.,R4.,extra,fields',
      'S5.,A5.,R5.',
    ].join('\n');
    const { rows, problems } = parseDatasetText(csv, { format: 'csv' });
    expect(rows.map((r) => r.row)).toEqual([2, 6]);
    expect(problems.map((p) => p.reason)).toEqual([
      "row 3: no summary text in column 'summary'",
      'row 5: 5 fields where the header has 3 (an unquoted comma?)',
    ]);
  });

  it('answers as a JSON or Python list in a CSV cell become lists', () => {
    const csv = 'pred,answers\n"Paris is it","[\'Paris\', \'paris\']"\nRome,"[""Rome""]"\n';
    const { rows } = parseDatasetText(csv, { format: 'csv' });
    expect(rows.map((r) => (r.input as { answers: string[] }).answers)).toEqual([
      ['Paris', 'paris'],
      ['Rome'],
    ]);
  });
});

/** `text` as UTF-16 code units in that byte order, with a BOM first when asked. */
function utf16(text: string, order: 'le' | 'be', bom: boolean): Uint8Array {
  const units = (bom ? '\uFEFF' : '') + text;
  const bytes = new Uint8Array(units.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < units.length; i++) view.setUint16(2 * i, units.charCodeAt(i), order === 'le');
  return bytes;
}

describe('encodings and binary files', () => {
  // Non-ASCII in every column, a surrogate pair (😀), and a quoted comma and line break.
  const csv = [
    'source,summary,reference,coherence',
    '"Die Größe des Parks, sagte er,\nist 3 km².",Größe: 3 km².,Der Park ist groß.,4',
    '北京市今天宣布了新的公园建设计划。,北京将建新公园 😀。,北京将建公园。,5',
    'Plain ASCII source.,Plain summary.,A reference.,2',
  ].join('\r\n');
  const fromUtf8 = parseDatasetText(encoder.encode(csv), { fileName: 'cases.csv' });

  it('the UTF-8 file itself: three rows, read as UTF-8', () => {
    expect(fromUtf8.problems).toEqual([]);
    expect(caseRows(fromUtf8.rows).map((r) => r.input.summary)).toEqual([
      'Größe: 3 km².',
      '北京将建新公园 😀。',
      'Plain summary.',
    ]);
    expect(fromUtf8.summary.encoding).toBe('UTF-8');
    expect(fromUtf8.summary.detected.encoding).toBeUndefined();
  });

  it.each([
    ['UTF-16LE', true, 'le'],
    ['UTF-16BE', true, 'be'],
    ['UTF-16LE', false, 'le'],
    ['UTF-16BE', false, 'be'],
  ] as const)(
    '%s (with a BOM: %s) gives the UTF-8 rows, for chunks that split code units and surrogate pairs',
    (encoding, bom, order) => {
      const bytes = utf16(csv, order, bom);
      // 1 and 3 bytes split every other unit; 1023 and 1025 put the sniffed head's end mid-unit.
      for (const size of [Infinity, 1, 3, 1023, 1025]) {
        const parsed = parseInChunks(bytes, size, { fileName: 'cases.csv' });
        expect(parsed.problems).toEqual([]);
        expect(parsed.rows).toEqual(fromUtf8.rows);
        expect(parsed.summary).toMatchObject({ encoding, bytes: bytes.byteLength });
        expect(parsed.summary.detected).toMatchObject({ encoding, kind: 'case', format: 'csv' });
      }
    },
  );

  it('UTF-16 JSONL over many chunks, and the encoding on the detection as it arrives', () => {
    const jsonl = Array.from({ length: 80 }, (_, i) =>
      JSON.stringify({ source: `Größe ${i}: 北京市的公园。`, summary: `公园 ${i} 😀` }),
    ).join('\n');
    const expected = parseDatasetText(encoder.encode(jsonl)).rows;
    expect(expected).toHaveLength(80);
    const bytes = utf16(jsonl, 'le', true);
    const parser = new DatasetParser({ fileName: 'cases.jsonl' });
    const rows: DatasetRow[] = [];
    let detected: DatasetDescription | undefined;
    for (let i = 0; i < bytes.byteLength; i += 333) {
      const batch = parser.push(bytes.subarray(i, i + 333));
      rows.push(...batch.rows);
      detected ??= batch.detected;
    }
    rows.push(...parser.end().rows);
    expect(detected?.encoding).toBe('UTF-16LE');
    expect(rows).toEqual(expected);
  });

  it('a PNG renamed .jsonl is refused as binary at once, with no rows', () => {
    const png = new Uint8Array(5000);
    png.set([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
    ]);
    for (let i = 16; i < png.length; i++) png[i] = (i * 7919) % 251;
    const message =
      'photo.jsonl is a binary file (it looks like a PNG image), not text: SumLens reads JSONL, JSON or CSV.';
    expect(() => parseDatasetText(png, { fileName: 'photo.jsonl' })).toThrow(
      new DatasetParseError(message),
    );
    // Pushed in pieces: nothing comes out before the refusal, which comes with the first KB.
    const parser = new DatasetParser({ fileName: 'photo.jsonl' });
    expect(parser.push(png.subarray(0, 600))).toMatchObject({ rows: [], problems: [] });
    expect(() => parser.push(png.subarray(600, 1200))).toThrow(message);
    // A file shorter than what is sniffed is refused at its end.
    expect(() => parseDatasetText(png.subarray(0, 100), { fileName: 'tiny.jsonl' })).toThrow(
      /^tiny\.jsonl is a binary file \(it looks like a PNG image\)/u,
    );
  });

  it('an .xlsx dropped as CSV says to export it as CSV; UTF-32 is refused by name', () => {
    const zip = new Uint8Array(2000);
    zip.set([0x50, 0x4b, 0x03, 0x04]);
    zip.set(encoder.encode('xl/workbook.xml'), 30);
    expect(() => parseDatasetText(zip, { fileName: 'ratings.csv' })).toThrow(
      /^ratings\.csv is a binary file \(it looks like an Excel workbook \(\.xlsx\)\).*save the sheet as CSV UTF-8/u,
    );
    const utf32 = new Uint8Array([0xff, 0xfe, 0, 0, 0x61, 0, 0, 0, 0x0a, 0, 0, 0]);
    expect(() => parseDatasetText(utf32, { fileName: 'a.csv' })).toThrow(
      /^a\.csv is UTF-32 text, which SumLens does not read\. Save it again as UTF-8/u,
    );
  });

  it('text pushed as strings is not sniffed, and has no encoding in its summary', () => {
    const { rows, summary } = parseDatasetText('{"source":"S.","summary":"A."}\n');
    expect(rows).toHaveLength(1);
    expect(summary.encoding).toBeUndefined();
  });
});

describe('format sniffing', () => {
  it('[ → JSON, a whole object per line → JSONL, a pretty-printed object → JSON stream, else CSV', () => {
    expect(sniffFormat('  [{"a":1}', false)).toBe('json');
    expect(sniffFormat('{"a":1}\n{"a"', false)).toBe('jsonl');
    expect(sniffFormat('{\n  "a": 1\n}\n{\n', false)).toBe('json');
    expect(sniffFormat('{"a": broken\n{"a":1}\n', false)).toBe('jsonl');
    expect(sniffFormat('{"a', false)).toBeUndefined();
    expect(sniffFormat('{"a', true)).toBe('jsonl');
    expect(sniffFormat('source,summary\n', false)).toBe('csv');
    expect(sniffFormat('{"a":1}', false, 'x.csv')).toBe('csv');
  });
});

describe('toRows', () => {
  it('applies a mapping to parsed records, with row numbers from firstRow', () => {
    const { rows, problems } = toRows(
      [
        { doc: 'S.', out: 'A.', gold: ['R1', 'R2'], score: '4.5', rater: 'x' },
        { doc: 'S.', out: '' },
      ],
      {
        kind: 'case',
        source: 'doc',
        summary: 'out',
        reference: 'gold',
        human: [{ column: 'score', name: 'overall' }],
      },
      10,
    );
    expect(rows).toEqual([
      {
        row: 10,
        kind: 'case',
        input: { source: 'S.', summary: 'A.', reference: 'R1' },
        references: ['R1', 'R2'],
        human: { overall: 4.5 },
        group: expect.stringMatching(/^src:[0-9a-f]{8}$/u),
        raw: { rater: 'x' },
      },
    ]);
    expect(problems.map(({ reasonRef: _ref, ...p }) => p)).toEqual([
      { row: 11, column: 'out', reason: "row 11: no summary text in column 'out'" },
    ]);
    expect(englishRef(problems[0]!.reasonRef!)).toBe(problems[0]!.reason);
  });

  it('reads instructions as `Name: instruction` lines or a JSON array of sections', () => {
    const { rows, problems } = toRows(
      [
        { source: 'S.', summary: 'A.', instructions: 'Outcome: Say if it was solved. [yes | no]' },
        {
          source: 'S.',
          summary: 'A.',
          instructions: [{ name: 'Steps', instruction: 'List the next steps.' }],
        },
        { source: 'S.', summary: 'A.', instructions: 'no colon here' },
      ],
      { kind: 'case', source: 'source', summary: 'summary', instructions: 'instructions' },
    );
    expect(caseRows(rows).map((r) => r.input.instructions)).toEqual([
      [{ name: 'Outcome', instruction: 'Say if it was solved.', categories: ['yes', 'no'] }],
      [{ name: 'Steps', instruction: 'List the next steps.' }],
    ]);
    expect(problems[0]!.reason).toMatch(/^row 3: Instructions line 1/u);
  });
});

describe('parseDataset (async iterable)', () => {
  it('yields the detection once, then batches, and the summary last', async () => {
    async function* chunks() {
      for (let i = 0; i < devBytes.length; i += 65536) yield devBytes.subarray(i, i + 65536);
    }
    let rows = 0;
    let detections = 0;
    let last: unknown;
    for await (const batch of parseDataset(chunks(), { fileName: 'dev.jsonl' })) {
      rows += batch.rows.length;
      if (batch.detected) {
        detections++;
        expect(batch.detected.kind).toBe('summeval');
        expect(batch.detected.description).toBe(
          'SummEval records: first 50 rows, 4 expert dimensions, 4 turker dimensions',
        );
      }
      last = batch.summary;
    }
    expect(detections).toBe(1);
    expect(rows).toBe(600);
    expect(last).toMatchObject({ rows: 600, problems: 0, bytes: devBytes.byteLength });
  });
});
