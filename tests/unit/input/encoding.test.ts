/**
 * Sniffing an imported file's first bytes: byte-order marks, UTF-16 without one (decoded when the
 * byte order is clear, refused naming UTF-16 when not), UTF-32 refused, binary files named by
 * their magic number (an .xlsx with the way to export CSV) or by their NUL and control bytes, and
 * ordinary text (ASCII, UTF-8 Chinese, text with a form feed or an escape) left as UTF-8.
 */
import { describe, expect, it } from 'vitest';
import { SNIFF_BYTES, sniffEncoding } from '../../../src/lib/input/encoding.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

function utf16(text: string, order: 'le' | 'be', bom = false): Uint8Array {
  const bytes = new Uint8Array((text.length + (bom ? 1 : 0)) * 2);
  const view = new DataView(bytes.buffer);
  const units = (bom ? '\ufeff' : '') + text;
  for (let i = 0; i < units.length; i++) view.setUint16(2 * i, units.charCodeAt(i), order === 'le');
  return bytes;
}

function utf32le(text: string): Uint8Array {
  const points = [...text].map((c) => c.codePointAt(0)!);
  const bytes = new Uint8Array(points.length * 4);
  const view = new DataView(bytes.buffer);
  points.forEach((p, i) => view.setUint32(4 * i, p, true));
  return bytes;
}

/** `head` followed by pseudo-random bytes (a fixed LCG, so a failure reproduces). */
function withNoise(head: readonly number[] | Uint8Array, total = 2048): Uint8Array {
  const bytes = new Uint8Array(total);
  bytes.set(head);
  let x = 12345;
  for (let i = head.length; i < total; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

/** A ZIP's first local file header: the signature, fixed fields, then the entry's name. */
function zipEntry(name: string): number[] {
  const header = new Array<number>(30).fill(0);
  header.splice(0, 4, 0x50, 0x4b, 0x03, 0x04);
  header[26] = name.length;
  return [...header, ...utf8(name)];
}

const CSV = 'source,summary,größe\n"Der Rat, sagte er.",Kurz.,3\n北京宣布新公园。,公园。,4\n';

describe('sniffEncoding: text', () => {
  it('ASCII and UTF-8 (Chinese, German) are UTF-8; a UTF-8 BOM is noted', () => {
    expect(sniffEncoding(utf8(CSV))).toEqual({ encoding: 'UTF-8', bom: false });
    expect(sniffEncoding(utf8('{"source":"a","summary":"b"}\n'))).toEqual({
      encoding: 'UTF-8',
      bom: false,
    });
    expect(sniffEncoding(utf8('\ufeff' + CSV))).toEqual({ encoding: 'UTF-8', bom: true });
    // A form feed or an ANSI colour code is rare in a data file, but it is text.
    expect(sniffEncoding(utf8('a,b\n\u000c1,\u001b[31m2\n'))).toEqual({
      encoding: 'UTF-8',
      bom: false,
    });
    // Text that merely starts like a magic number ("PAR1" without Parquet's next byte).
    expect(sniffEncoding(utf8('PAR1,PAR2\n1,2\n'))).toEqual({ encoding: 'UTF-8', bom: false });
  });

  it('UTF-16 with a BOM, either order', () => {
    expect(sniffEncoding(utf16(CSV, 'le', true))).toEqual({ encoding: 'UTF-16LE', bom: true });
    expect(sniffEncoding(utf16(CSV, 'be', true))).toEqual({ encoding: 'UTF-16BE', bom: true });
  });

  it('UTF-16 without a BOM: the order from where the NULs of the ASCII characters are', () => {
    const jsonl = '{"source":"Größe: 北京宣布新公园。","summary":"公园 😀"}\n'.repeat(30);
    expect(sniffEncoding(utf16(jsonl, 'le'))).toEqual({ encoding: 'UTF-16LE', bom: false });
    expect(sniffEncoding(utf16(jsonl, 'be'))).toEqual({ encoding: 'UTF-16BE', bom: false });
    // A short file (under SNIFF_BYTES) is sniffed on what there is.
    expect(sniffEncoding(utf16('a,b\n1,2\n', 'le'))).toEqual({ encoding: 'UTF-16LE', bom: false });
    // Only the first SNIFF_BYTES count for the statistics: what follows may be anything.
    const long = new Uint8Array(SNIFF_BYTES * 2);
    long.set(utf16(jsonl, 'le').subarray(0, SNIFF_BYTES));
    expect(sniffEncoding(long)).toEqual({ encoding: 'UTF-16LE', bom: false });
  });

  it('mostly-CJK UTF-16 without a BOM is decoded or refused naming UTF-16, never called binary', () => {
    const zh =
      '标题,摘要\n' +
      '北京市今天宣布了新的公园建设计划一二三预计二零二七年开放,北京将建新公园\n'.repeat(30);
    for (const order of ['le', 'be'] as const) {
      const result = sniffEncoding(utf16(zh, order), 'zh.csv');
      if ('encoding' in result)
        expect(result.encoding).toBe(order === 'le' ? 'UTF-16LE' : 'UTF-16BE');
      else expect(result).toEqual({ refuse: expect.stringMatching(/^zh\.csv .*UTF-16.*UTF-8/u) });
    }
  });
});

describe('sniffEncoding: refused', () => {
  it('UTF-32 (with a BOM, or the pattern of three NULs) is refused naming UTF-32', () => {
    const le = utf32le('a,b\n1,2\n');
    const message = expect.stringMatching(/^data\.csv is UTF-32 text.*Save it again as UTF-8/u);
    expect(sniffEncoding(new Uint8Array([0xff, 0xfe, 0, 0, ...le]), 'data.csv')).toEqual({
      refuse: message,
    });
    expect(sniffEncoding(new Uint8Array([0, 0, 0xfe, 0xff, 0, 0, 0, 0x61]), 'data.csv')).toEqual({
      refuse: message,
    });
    expect(sniffEncoding(le, 'data.csv')).toEqual({ refuse: message });
  });
});

describe('sniffEncoding: binary', () => {
  it('a PNG renamed .jsonl is named as such, with what SumLens reads', () => {
    const png = withNoise([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(sniffEncoding(png, 'photo.jsonl')).toEqual({
      binary: 'it looks like a PNG image',
      message:
        'photo.jsonl is a binary file (it looks like a PNG image), not text: SumLens reads JSONL, JSON or CSV.',
    });
  });

  it('an Excel workbook (from its entry names, or from its name) says to save it as CSV', () => {
    const xlsx = new Uint8Array([
      ...zipEntry('[Content_Types].xml'),
      ...utf8('<?xml'),
      ...zipEntry('xl/workbook.xml'),
    ]);
    for (const [bytes, name] of [
      [xlsx, 'ratings.csv'],
      [new Uint8Array(zipEntry('[Content_Types].xml')), 'ratings.xlsx'],
    ] as const) {
      const result = sniffEncoding(bytes, name);
      expect(result).toMatchObject({ binary: 'it looks like an Excel workbook (.xlsx)' });
      expect('message' in result && result.message).toBe(
        `${name} is a binary file (it looks like an Excel workbook (.xlsx)), not text: SumLens reads JSONL, JSON or CSV. Open it in Excel or LibreOffice and save the sheet as CSV UTF-8 (Save as → CSV UTF-8), then import the CSV.`,
      );
    }
    const zip = sniffEncoding(new Uint8Array(zipEntry('data.jsonl')), 'data.zip');
    expect(zip).toMatchObject({ binary: 'it looks like a ZIP archive' });
    expect('message' in zip && zip.message).toMatch(/Unpack it and import the file inside\.$/u);
    const xls = sniffEncoding(withNoise([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), 'a.xls');
    expect('message' in xls && xls.message).toMatch(/Excel 97–2003 workbook.*CSV UTF-8/u);
  });

  it.each([
    ['a JPEG image', [0xff, 0xd8, 0xff, 0xe0]],
    ['a GIF image', [...utf8('GIF89a')]],
    ['a PDF document', [...utf8('%PDF-1.7\n')]],
    ['a gzip-compressed file', [0x1f, 0x8b, 0x08]],
    ['an SQLite database', [...utf8('SQLite format 3'), 0]],
    ['a Parquet file', [...utf8('PAR1'), 0x15, 0x04]],
    ['a WebP image', [...utf8('RIFF'), 1, 2, 3, 4, ...utf8('WEBP')]],
  ])('%s', (what, head) => {
    expect(sniffEncoding(withNoise(head), 'x.jsonl')).toMatchObject({
      binary: `it looks like ${what}`,
      message: expect.stringMatching(/^x\.jsonl is a binary file \(it looks like /u),
    });
  });

  it('no magic number: NUL bytes, or mostly control bytes, that UTF-16 does not explain', () => {
    expect(sniffEncoding(withNoise([1, 2, 3]), 'blob.csv')).toEqual({
      binary: 'it has NUL bytes, which text does not have',
      message:
        'blob.csv is a binary file (it has NUL bytes, which text does not have), not text: SumLens reads JSONL, JSON or CSV.',
    });
    // A text header, then a NUL: one is enough.
    expect(sniffEncoding(utf8('source,summary\nabc\u0000def\n'))).toMatchObject({
      binary: 'it has NUL bytes, which text does not have',
    });
    const controls = new Uint8Array(200).map((_, i) => (i % 3 === 0 ? 0x01 : 0x41));
    expect(sniffEncoding(controls)).toMatchObject({
      binary: 'its first bytes are mostly control characters, which text does not have',
    });
    // An archive of ASCII headers and NUL-padded numbers (an `ar` file) is not "UTF-16".
    const ar = new Uint8Array([
      ...utf8('!<arch>\n/               0           0     0     0       14124     `\n'),
      ...Array.from({ length: 100 }, (_, i) => [0, 0, 0x30 + (i % 10), 0x41 + (i % 26)]).flat(),
    ]);
    expect(sniffEncoding(ar)).toMatchObject({
      binary: 'it has NUL bytes, which text does not have',
    });
  });
});
