/**
 * What the first bytes of an imported file say about it, before any of it is decoded: the text
 * encoding to read it with (UTF-8, UTF-16, or Windows-1252 for bytes that are not UTF-8 and fit
 * it), or that it is not text at all.
 *
 * Windows Notepad and Excel ("Unicode text") save UTF-16, which decoded as UTF-8 turns every
 * other character into a NUL, so the columns come out as garbage instead of an error. A renamed
 * PNG or an .xlsx dropped as CSV decodes to mojibake the same way. Both are caught here, from the
 * byte-order mark, the magic number, or the pattern of NUL and control bytes in the first
 * `SNIFF_BYTES`, so that the user gets one sentence saying what the file is and what to do.
 */

/**
 * The encodings SumLens decodes (TextDecoder's, across chunk boundaries). Windows-1252 stands for
 * Latin-1 (ISO-8859-1) too: it is Latin-1 with printable characters (€, “, ”, …) where Latin-1
 * has control codes no text uses, which is how browsers read both.
 */
export type TextEncoding = 'UTF-8' | 'UTF-16LE' | 'UTF-16BE' | 'Windows-1252';

export type SniffResult =
  /** `bom`: the file starts with a byte-order mark (TextDecoder drops it). */
  | { encoding: TextEncoding; bom: boolean }
  /** Not text: `binary` is what it looks like ("a PNG image"), `message` the whole refusal. */
  | { binary: string; message: string }
  /** Text SumLens cannot decode (UTF-32, UTF-16 of unknown byte order): the whole refusal. */
  | { refuse: string };

/** Bytes the NUL and control-byte statistics look at; magic numbers may look further. */
export const SNIFF_BYTES = 1024;

const LABELS = {
  'UTF-8': 'utf-8',
  'UTF-16LE': 'utf-16le',
  'UTF-16BE': 'utf-16be',
  'Windows-1252': 'windows-1252',
} as const;

/** TextDecoder's label for an encoding. */
export function decoderLabel(encoding: TextEncoding): (typeof LABELS)[TextEncoding] {
  return LABELS[encoding];
}

const READS = 'SumLens reads JSONL, JSON or CSV';
const RESAVE =
  'Save it again as UTF-8 (Notepad: Save as → Encoding: UTF-8; Excel: Save as → CSV UTF-8) and import that.';
const AS_CSV =
  'Open it in Excel or LibreOffice and save the sheet as CSV UTF-8 (Save as → CSV UTF-8), then import the CSV.';
const TO_JSONL =
  "Convert it to JSONL first (e.g. pandas: df.to_json('data.jsonl', orient='records', lines=True)).";
const UNPACK = 'Unpack it and import the file inside.';

interface Magic {
  at?: number;
  /** Bytes, or an ASCII string. */
  bytes: readonly number[] | string;
  what: string | ((head: Uint8Array, fileName: string) => { what: string; advice?: string });
  advice?: string;
}

/** Whether `head` contains the ASCII string `needle` anywhere. */
function contains(head: Uint8Array, needle: string): boolean {
  const first = needle.charCodeAt(0);
  outer: for (let i = head.indexOf(first); i >= 0 && i + needle.length <= head.length;) {
    for (let j = 1; j < needle.length; j++) {
      if (head[i + j] !== needle.charCodeAt(j)) {
        i = head.indexOf(first, i + 1);
        continue outer;
      }
    }
    return true;
  }
  return false;
}

const extension = (fileName: string) => /\.([a-z0-9]+)$/iu.exec(fileName)?.[1]?.toLowerCase();

/** A ZIP is most often an Office file: its entry names (stored uncompressed) say which. */
function zipKind(head: Uint8Array, fileName: string): { what: string; advice?: string } {
  const ext = extension(fileName);
  if (contains(head, 'xl/') || ext === 'xlsx' || ext === 'xlsm') {
    return { what: 'an Excel workbook (.xlsx)', advice: AS_CSV };
  }
  if (contains(head, 'opendocument.spreadsheet') || ext === 'ods') {
    return { what: 'an OpenDocument spreadsheet (.ods)', advice: AS_CSV };
  }
  if (contains(head, 'word/') || ext === 'docx') return { what: 'a Word document (.docx)' };
  if (contains(head, 'ppt/') || ext === 'pptx') return { what: 'a PowerPoint file (.pptx)' };
  return { what: 'a ZIP archive', advice: UNPACK };
}

function oleKind(_head: Uint8Array, fileName: string): { what: string; advice?: string } {
  return extension(fileName) === 'xls'
    ? { what: 'an Excel 97–2003 workbook (.xls)', advice: AS_CSV }
    : { what: 'an old-format Office file (.xls, .doc or .ppt)', advice: AS_CSV };
}

function riffKind(head: Uint8Array): { what: string } {
  const form = String.fromCharCode(...head.subarray(8, 12));
  if (form === 'WEBP') return { what: 'a WebP image' };
  if (form === 'WAVE') return { what: 'a WAV audio file' };
  if (form === 'AVI ') return { what: 'an AVI video' };
  return { what: 'a RIFF media file' };
}

/**
 * Magic numbers of the files most likely to be dropped by mistake. ASCII-only magics are long
 * enough (or followed by a control byte) that no JSONL, JSON or CSV file starts with them.
 */
const MAGICS: readonly Magic[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], what: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], what: 'a JPEG image' },
  { bytes: 'GIF87a', what: 'a GIF image' },
  { bytes: 'GIF89a', what: 'a GIF image' },
  { bytes: [0x49, 0x49, 0x2a, 0x00], what: 'a TIFF image' },
  { bytes: [0x4d, 0x4d, 0x00, 0x2a], what: 'a TIFF image' },
  { bytes: 'RIFF', what: riffKind },
  { at: 4, bytes: 'ftyp', what: 'an MP4/MOV video or HEIC image' },
  { bytes: '%PDF-', what: 'a PDF document' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: zipKind },
  { bytes: [0x50, 0x4b, 0x05, 0x06], what: zipKind },
  { bytes: [0x50, 0x4b, 0x07, 0x08], what: zipKind },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], what: oleKind },
  { bytes: [0x1f, 0x8b], what: 'a gzip-compressed file', advice: UNPACK },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], what: 'a 7-Zip archive', advice: UNPACK },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: 'an xz-compressed file', advice: UNPACK },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], what: 'a Zstandard-compressed file', advice: UNPACK },
  { bytes: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], what: 'a RAR archive', advice: UNPACK },
  { at: 4, bytes: [0x31, 0x41, 0x59, 0x26, 0x53, 0x59], what: 'a bzip2-compressed file' },
  { bytes: 'SQLite format 3\u0000', what: 'an SQLite database' },
  { bytes: [0x50, 0x41, 0x52, 0x31, 0x15], what: 'a Parquet file', advice: TO_JSONL },
  { bytes: 'ARROW1', what: 'an Arrow/Feather file', advice: TO_JSONL },
  { bytes: [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a], what: 'an HDF5 file' },
  { bytes: [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59], what: 'a NumPy array file (.npy)' },
  { bytes: [0x80, 0x04], what: 'a Python pickle' },
  { bytes: [0x80, 0x05], what: 'a Python pickle' },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], what: 'a program (ELF)' },
  { bytes: [0x00, 0x61, 0x73, 0x6d], what: 'a WebAssembly module' },
];

function matches(head: Uint8Array, magic: Magic): boolean {
  const at = magic.at ?? 0;
  const { bytes } = magic;
  if (head.length < at + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) {
    const b = typeof bytes === 'string' ? bytes.charCodeAt(i) : bytes[i];
    if (head[at + i] !== b) return false;
  }
  return true;
}

const startsWith = (head: Uint8Array, ...bytes: number[]) =>
  head.length >= bytes.length && bytes.every((b, i) => head[i] === b);

/** Tab, LF, CR, and printable ASCII: what the ASCII half of UTF-16 text mostly is. */
const isTextAscii = (b: number) =>
  b === 0x09 || b === 0x0a || b === 0x0d || (b >= 0x20 && b < 0x7f);

/** Control bytes that text files do not have (tab, LF, FF, CR and ESC they may). */
const isControl = (b: number) =>
  b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d && b !== 0x1b;

function binary(name: string, what: string, advice?: string): SniffResult {
  return {
    binary: what,
    message: `${name} is a binary file (${what}), not text: ${READS}.${advice ? ` ${advice}` : ''}`,
  };
}

/**
 * The share of 2-byte (or 4-byte) units of `head` whose ASCII character sits at `offset` with
 * every other byte of the unit NUL.
 */
function asciiUnits(head: Uint8Array, size: 2 | 4, offset: number): number {
  const units = Math.floor(head.length / size);
  if (units === 0) return 0;
  let hits = 0;
  for (let u = 0; u < units; u++) {
    const base = u * size;
    if (!isTextAscii(head[base + offset]!)) continue;
    let nulls = true;
    for (let k = 0; k < size && nulls; k++) if (k !== offset && head[base + k] !== 0) nulls = false;
    if (nulls) hits++;
  }
  return hits / units;
}

/**
 * Whether `head` decodes as UTF-16 in this byte order without what text never holds: C0 or C1
 * control characters (tab and line ends aside), surrogates out of pairs, U+FFFE/U+FFFF. Text
 * decodes cleanly in its own order; in the other order its low bytes become the high ones, and
 * across 500 characters some land in the surrogate range alone. Binary data has aligned NUL pairs,
 * which are U+0000 in either order.
 */
function cleanUtf16(head: Uint8Array, littleEndian: boolean): boolean {
  const units = Math.floor(head.length / 2);
  for (let u = 0; u < units; u++) {
    const a = head[2 * u]!;
    const b = head[2 * u + 1]!;
    const c = littleEndian ? a | (b << 8) : (a << 8) | b;
    if (c < 0x20 ? c !== 0x09 && c !== 0x0a && c !== 0x0d : c >= 0x7f && c <= 0x9f) return false;
    if (c === 0xfffe || c === 0xffff) return false;
    if (c >= 0xdc00 && c <= 0xdfff) return false; // a low surrogate with no high one before it
    if (c >= 0xd800 && c <= 0xdbff) {
      if (u + 1 === units) break; // the pair goes on past the sample
      const d = littleEndian
        ? head[2 * u + 2]! | (head[2 * u + 3]! << 8)
        : (head[2 * u + 2]! << 8) | head[2 * u + 3]!;
      if (d < 0xdc00 || d > 0xdfff) return false;
      u++;
    }
  }
  return true;
}

const NUL_BYTES = 'it has NUL bytes, which text does not have';

/** Bytes Windows-1252 leaves undefined: no text in it has them. */
const UNDEFINED_1252 = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

/**
 * Whether bytes that are not UTF-8 read as Windows-1252 (or Latin-1) text: no byte it leaves
 * undefined, and the bytes over 0x7F mostly alone or in pairs between ASCII ones, as accented
 * letters are in Western European text ("Müller", "ação"). Cyrillic, Greek or East Asian text in
 * its own older encoding has whole words of such bytes, which would read as mojibake ("Ïðèâåò").
 */
export function fitsWindows1252(bytes: Uint8Array): boolean {
  let high = 0;
  let inWords = 0;
  let run = 0;
  for (const b of bytes) {
    if (b >= 0x80) {
      if (UNDEFINED_1252.has(b)) return false;
      high++;
      run++;
    } else {
      if (run >= 3) inWords += run;
      run = 0;
    }
  }
  if (run >= 3) inWords += run;
  return inWords * 2 < high || high === 0;
}

/**
 * The UTF-8 in `bytes`: how many multi-byte sequences are valid, and where the first byte that no
 * valid sequence explains is (-1: none). A sequence `bytes` cuts at its end counts as neither.
 */
export function utf8Shape(bytes: Uint8Array): { valid: number; firstInvalid: number } {
  let valid = 0;
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // The sequence's length and the range of its second byte (RFC 3629's table).
    let length = 0;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    }
    if (length === 0) return { valid, firstInvalid: i };
    let ok = true;
    for (let k = 1; k < length && ok; k++) {
      if (i + k >= bytes.length) return { valid, firstInvalid: -1 };
      const c = bytes[i + k]!;
      ok = k === 1 ? c >= low && c <= high : c >= 0x80 && c <= 0xbf;
    }
    if (!ok) return { valid, firstInvalid: i };
    valid++;
    i += length;
  }
  return { valid, firstInvalid: -1 };
}

/** The refusal of bytes that are neither UTF-8 nor Windows-1252. */
export function notLatinText(name: string): string {
  return `${name} is not UTF-8 text, and its bytes beyond ASCII do not read as Windows-1252 or Latin-1 either (they look like Cyrillic, Greek or East Asian text saved in an older encoding). ${RESAVE}`;
}

/** Whether `head` is valid UTF-8, but for a sequence the sample cuts at its end. */
function isUtf8(head: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Decides how to read a file from its first bytes (`head`: at least `SNIFF_BYTES` of it, or the
 * whole file when shorter). `fileName` goes into the messages ("photo.jsonl is a binary file…").
 */
export function sniffEncoding(head: Uint8Array, fileName = ''): SniffResult {
  const name = fileName || 'The file';
  const utf32 = `${name} is UTF-32 text, which SumLens does not read. ${RESAVE}`;
  // UTF-32LE's mark starts with UTF-16LE's, so it is looked at first.
  if (startsWith(head, 0xff, 0xfe, 0x00, 0x00) || startsWith(head, 0x00, 0x00, 0xfe, 0xff)) {
    return { refuse: utf32 };
  }
  if (startsWith(head, 0xef, 0xbb, 0xbf)) return { encoding: 'UTF-8', bom: true };
  if (startsWith(head, 0xff, 0xfe)) return { encoding: 'UTF-16LE', bom: true };
  if (startsWith(head, 0xfe, 0xff)) return { encoding: 'UTF-16BE', bom: true };

  for (const magic of MAGICS) {
    if (!matches(head, magic)) continue;
    const found =
      typeof magic.what === 'string'
        ? { what: magic.what, advice: magic.advice }
        : magic.what(head, fileName);
    return binary(name, `it looks like ${found.what}`, found.advice ?? magic.advice);
  }

  const sample = head.subarray(0, SNIFF_BYTES);
  let nul = 0;
  let control = 0;
  for (const b of sample) {
    if (b === 0) nul++;
    else if (isControl(b)) control++;
  }
  if (nul === 0) {
    if (control > 0 && control >= sample.length * 0.1) {
      return binary(
        name,
        'its first bytes are mostly control characters, which text does not have',
      );
    }
    if (isUtf8(sample)) return { encoding: 'UTF-8', bom: false };
    // Not UTF-8. With valid UTF-8 sequences too, it is UTF-8 with some bytes that are not (the
    // parser names their rows); else an older single-byte encoding, if its bytes fit one.
    if (utf8Shape(sample).valid > 0) return { encoding: 'UTF-8', bom: false };
    if (fitsWindows1252(sample)) return { encoding: 'Windows-1252', bom: false };
    return { refuse: notLatinText(name) };
  }
  // NUL bytes: UTF-32 or UTF-16 text without a byte-order mark (ASCII characters padded with
  // NULs in a fixed position), or binary. CJK text in UTF-16 has few NULs, but the structure of
  // JSON and CSV (quotes, commas, digits, line ends) is ASCII, so at least 40% of the units are.
  const units16 = Math.floor(sample.length / 2);
  if (units16 >= 2) {
    if (asciiUnits(sample, 4, 0) >= 0.5 || asciiUnits(sample, 4, 3) >= 0.5) {
      return { refuse: utf32 };
    }
    const le = asciiUnits(sample, 2, 0);
    const be = asciiUnits(sample, 2, 1);
    const cleanLe = cleanUtf16(sample, true);
    const cleanBe = cleanUtf16(sample, false);
    // The other order's pattern also shows in UTF-16 text, for characters such as U+4E00 一
    // (bytes 00 4E): a few percent, never as many as the real order's.
    if (le >= 0.4 && be <= 0.1 && cleanLe) return { encoding: 'UTF-16LE', bom: false };
    if (be >= 0.4 && le <= 0.1 && cleanBe) return { encoding: 'UTF-16BE', bom: false };
    // Valid UTF-8 with a NUL in it is text with a NUL, not UTF-16 (whose bytes of 0x80 and over
    // seldom form UTF-8 sequences): NUL is what binary data has and text does not.
    if (isUtf8(sample)) return binary(name, NUL_BYTES);
    // Mostly CJK text has few ASCII units, but it reads cleanly in one order only.
    if (units16 >= 16 && cleanLe !== cleanBe) {
      return { encoding: cleanLe ? 'UTF-16LE' : 'UTF-16BE', bom: false };
    }
    // Text has no U+0000, which is two NULs in a unit in either order; binary data has many.
    let nulUnits = 0;
    for (let u = 0; u < units16; u++)
      if (sample[2 * u] === 0 && sample[2 * u + 1] === 0) nulUnits++;
    if ((cleanLe && cleanBe) || (nulUnits === 0 && (le >= 0.2 || be >= 0.2))) {
      return {
        refuse: `${name} looks like UTF-16 text without a byte-order mark, and SumLens cannot tell its byte order. ${RESAVE}`,
      };
    }
  }
  return binary(name, NUL_BYTES);
}
