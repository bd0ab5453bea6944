/**
 * Text that is not UTF-8: Windows-1252 (and Latin-1, its part) read right and said so, whether
 * the first KB shows it or only a later row does; UTF-8 with a few bytes that are not names the
 * rows they are in instead of loading U+FFFD; another older encoding is refused by name. And a
 * file dropped on a text box is read the same way.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { parseDatasetText } from '../../../src/lib/datasets/parse/dataset.ts';
import { DatasetParseError } from '../../../src/lib/datasets/parse/types.ts';
import { readTextFile } from '../../../src/lib/input/decode.ts';
import { sniffEncoding } from '../../../src/lib/input/encoding.ts';
import { isCaseRow, type DatasetRow } from '../../../src/lib/rows/formats.ts';
import { windows1252 } from './_encodings.ts';
import { importRows } from './_parse-worker.ts';

const encoder = new TextEncoder();

/** The cases' texts, and that no U+FFFD is among them. */
function texts(rows: DatasetRow[]): string[] {
  const out = rows.filter(isCaseRow).flatMap((r) => [r.input.source, r.input.summary]);
  for (const text of out) expect(text).not.toContain('\uFFFD');
  return out;
}

const CASES = [
  ['Herr Müller sagt, das Café ist geöffnet.', 'Müller: Café offen.'],
  ['A naïve reading of the résumé.', 'Naïve résumé.'],
  ['Der Eintritt kostet 5 €.', 'Eintritt 5 €.'],
  ['Plain ASCII source.', 'Plain summary.'],
  ['Crème brûlée à la française.', 'Crème brûlée.'],
];
const CSV = ['source,summary', ...CASES.map(([s, a]) => `"${s}",${a}`)].join('\r\n');
const JSONL = CASES.map(([source, summary]) => JSON.stringify({ source, summary })).join('\n');

describe('Windows-1252 files', () => {
  it.each([
    ['cases.csv', CSV],
    ['cases.jsonl', JSONL],
  ])(
    '%s: 5 rows read right in any chunks, the encoding named on the detection and the summary',
    (fileName, text) => {
      const bytes = windows1252(text);
      for (const size of [Infinity, 1, 7, 100]) {
        const { rows, problems, summary } = parseDatasetText(bytes, { fileName }, size);
        expect(problems).toEqual([]);
        expect(texts(rows)).toEqual(CASES.flat());
        expect(summary.encoding).toBe('Windows-1252');
        expect(summary.detected.encoding).toBe('Windows-1252');
        expect(summary.warnings).toEqual([
          'not UTF-8: read as Windows-1252 (Latin-1). Check its accented letters, or save the file as UTF-8.',
        ]);
      }
    },
  );

  it('ASCII for the first KB, Windows-1252 on row 40: read right from there, the byte named', () => {
    const lines = ['source,summary'];
    for (let row = 2; row < 40; row++) lines.push(`Plain source ${row}.,Plain summary ${row}.`);
    lines.push('Herr Müller zahlt 5 €.,Müller zahlt.', 'Last source.,Last summary.');
    const text = lines.join('\n');
    const bytes = windows1252(text);
    const at = text.indexOf('ü');
    expect(at).toBeGreaterThan(1024);
    for (const size of [Infinity, 1, 333, 4096]) {
      const { rows, problems, summary } = parseDatasetText(bytes, { fileName: 'late.csv' }, size);
      expect(problems).toEqual([]);
      expect(texts(rows).slice(-4)).toEqual([
        'Herr Müller zahlt 5 €.',
        'Müller zahlt.',
        'Last source.',
        'Last summary.',
      ]);
      expect(summary.encoding).toBe('Windows-1252');
      expect(summary.detected.encoding).toBe('Windows-1252');
      expect(summary.warnings).toEqual([
        `not UTF-8: read as Windows-1252 (Latin-1) from byte ${at.toLocaleString('en-US')} on (the text before it is ASCII, the same in both). Check its accented letters, or save the file as UTF-8.`,
      ]);
    }
  });

  it('UTF-8 that is not ASCII, then bytes that are not UTF-8: those rows are named, the rest load', () => {
    const head = ['source,summary', 'Die Größe.,Groß.'];
    for (let row = 3; row < 40; row++) head.push(`Plain source ${row}.,Plain summary ${row}.`);
    const utf8 = encoder.encode(head.join('\n') + '\n');
    const latin = windows1252('Herr Müller.,Müller.\nLast source.,Last summary.\n');
    const bytes = new Uint8Array(utf8.length + latin.length);
    bytes.set(utf8);
    bytes.set(latin, utf8.length);
    for (const size of [Infinity, 1, 500]) {
      const { rows, problems, summary } = parseDatasetText(bytes, { fileName: 'mixed.csv' }, size);
      expect(texts(rows).slice(0, 2)).toEqual(['Die Größe.', 'Groß.']);
      expect(rows.map((r) => r.row)).not.toContain(40);
      expect(rows).toHaveLength(39);
      expect(problems.map((p) => p.reason)).toEqual([
        'row 40: bytes that are not UTF-8 (read as �), in a file whose earlier text is UTF-8: save the file as UTF-8 and import it again',
      ]);
      expect(problems[0]!.reasonRef).toMatchObject({
        values: { reason: { key: 'datasets.problem.notUtf8' } },
      });
      expect(summary.encoding).toBe('UTF-8');
    }
  });

  it('Cyrillic in Windows-1251 is refused by name, in the first KB or after it', () => {
    // "Привет мир" in Windows-1251.
    const cyrillic = [0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x20, 0xec, 0xe8, 0xf0];
    const row = (n: number) => [...encoder.encode(`${n},`), ...cyrillic, 0x0a];
    const early = Uint8Array.from([...encoder.encode('id,source\n'), ...row(2), ...row(3)]);
    const message =
      /^ru\.csv is not UTF-8 text, and its bytes beyond ASCII do not read as Windows-1252 or Latin-1 either/u;
    expect(() => parseDatasetText(early, { fileName: 'ru.csv' })).toThrow(DatasetParseError);
    expect(() => parseDatasetText(early, { fileName: 'ru.csv' })).toThrow(message);
    const ascii = Array.from({ length: 80 }, (_, i) => `${i},plain text ${i}\n`).join('');
    const late = Uint8Array.from([...encoder.encode('id,source\n' + ascii), ...row(90)]);
    expect(() => parseDatasetText(late, { fileName: 'ru.csv' }, 4096)).toThrow(message);
  });

  it('a UTF-8 character cut at the end of the sniffed KB is still UTF-8', () => {
    const text = 'source,summary\n' + 'x'.repeat(1023 - 15) + 'é,Café.\n';
    const bytes = encoder.encode(text);
    // é's two bytes are the KB's last byte and the next one.
    expect(bytes[1023]).toBe(0xc3);
    expect(sniffEncoding(bytes.subarray(0, 1024))).toEqual({ encoding: 'UTF-8', bom: false });
    for (const size of [Infinity, 1, 1024]) {
      const { rows, summary } = parseDatasetText(bytes, { fileName: 'cut.csv' }, size);
      expect(texts(rows)).toEqual(['x'.repeat(1008) + 'é', 'Café.']);
      expect(summary.encoding).toBe('UTF-8');
    }
  });
});

describe('the parse worker', () => {
  it('stores a Windows-1252 file and answers with its encoding, for the page to say', async () => {
    const bytes = windows1252(CSV);
    const { summary, progress } = await importRows({ file: new Blob([bytes]), fileName: 'w.csv' });
    expect(summary).toMatchObject({ rows: 5, problems: 0, encoding: 'Windows-1252' });
    expect(summary.detected.encoding).toBe('Windows-1252');
    const detected = progress.find((p) => p.type === 'detected');
    expect(detected).toMatchObject({ detected: { encoding: 'Windows-1252' } });
  });
});

describe('a file dropped on a text box', () => {
  it('is read as Windows-1252 when it is, and says so; UTF-16 is read too', () => {
    const text = 'Herr Müller sagt, das Café kostet 5 €.';
    expect(readTextFile(windows1252(text), 'note.txt')).toEqual({ text, encoding: 'Windows-1252' });
    expect(readTextFile(encoder.encode(text), 'note.txt')).toEqual({ text, encoding: 'UTF-8' });
    const utf16 = new Uint8Array(2 + text.length * 2);
    utf16.set([0xff, 0xfe]);
    for (let i = 0; i < text.length; i++) {
      utf16[2 + 2 * i] = text.charCodeAt(i) & 0xff;
      utf16[3 + 2 * i] = text.charCodeAt(i) >> 8;
    }
    expect(readTextFile(utf16, 'note.txt')).toEqual({ text, encoding: 'UTF-16LE' });
  });

  it('UTF-8 with bytes that are not, or a binary file, is refused rather than read as �', () => {
    const mixed = Uint8Array.from([...encoder.encode('Größe '), ...windows1252('Müller')]);
    expect(readTextFile(mixed, 'note.txt')).toEqual({
      refuse: expect.stringMatching(/^note\.txt is UTF-8 text with some bytes that are not UTF-8/u),
    });
    const pdf = encoder.encode('%PDF-1.7\n');
    expect(readTextFile(pdf, 'paper.txt')).toEqual({
      refuse: expect.stringMatching(
        /^paper\.txt is a binary file \(it looks like a PDF document\)/u,
      ),
    });
  });
});
