/**
 * Bytes → text in the encoding sniffed from a file's first KB (encoding.ts), without ever putting
 * U+FFFD in place of a byte unsaid. A file can be ASCII for its first KB and Windows-1252 later
 * ("Müller" on row 40), which the sniff cannot see, and a UTF-8 decoder would turn each such byte
 * into U+FFFD, so UTF-8 is decoded strictly, chunk by chunk:
 *
 * - bytes that are not UTF-8, after nothing but ASCII: ASCII reads the same in Windows-1252, so
 *   the file is read as Windows-1252 from there on (when its bytes fit it; else it is refused by
 *   name), and `switchedAt` says from which byte;
 * - bytes that are not UTF-8 after UTF-8 text that is not ASCII: the text already read cannot be
 *   read again, so those bytes become U+FFFD and `replaced` is set, for the caller to name the
 *   rows they are in.
 */
import {
  decoderLabel,
  fitsWindows1252,
  notLatinText,
  SNIFF_BYTES,
  sniffEncoding,
  utf8Shape,
  type TextEncoding,
} from './encoding.ts';

/** Bytes that cannot be read as text in any encoding SumLens knows. */
export class UndecodableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndecodableError';
  }
}

/**
 * Where a sequence `bytes` cuts at its end starts (`bytes.length` when none is cut): those bytes
 * wait for the next chunk.
 */
function completeLength(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue;
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return length > back ? n - back : n;
  }
  return n;
}

const hasHighByte = (bytes: Uint8Array) => bytes.some((b) => b >= 0x80);

export class FileDecoder {
  private encodingNow: TextEncoding;
  /** Decodes anything but strict UTF-8 (TextDecoder keeps the state across chunks). */
  private other?: TextDecoder;
  private readonly strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private lenient?: TextDecoder;
  /** The start of a UTF-8 sequence the last chunk cut. */
  private carry = new Uint8Array(0);
  /** Bytes decoded before the current chunk. */
  private offset = 0;
  /** Whether UTF-8 beyond ASCII has been read: then Windows-1252 can no longer take over. */
  private beyondAscii = false;
  /** The byte from which a file sniffed as UTF-8 was read as Windows-1252. */
  switchedAt?: number;
  /** Whether bytes that are not UTF-8 were read as U+FFFD (in a file that is UTF-8 before them). */
  replaced = false;

  constructor(
    encoding: TextEncoding,
    private readonly fileName = '',
  ) {
    this.encodingNow = encoding;
    // The BOM is the caller's to drop, once, at the start of the text.
    if (encoding !== 'UTF-8')
      this.other = new TextDecoder(decoderLabel(encoding), { ignoreBOM: true });
  }

  /** The encoding the bytes are read in now. */
  get encoding(): TextEncoding {
    return this.encodingNow;
  }

  decode(chunk: Uint8Array, final: boolean): string {
    if (this.other) return this.other.decode(chunk, { stream: this.streams(final) });
    let bytes = chunk;
    if (this.carry.length > 0) {
      bytes = new Uint8Array(this.carry.length + chunk.length);
      bytes.set(this.carry);
      bytes.set(chunk, this.carry.length);
    }
    const end = final ? bytes.length : completeLength(bytes);
    const body = bytes.subarray(0, end);
    try {
      const text = this.strict.decode(body);
      this.beyondAscii ||= hasHighByte(body);
      this.carry = bytes.slice(end);
      this.offset += end;
      return text;
    } catch {
      return this.notUtf8(bytes, end, final);
    }
  }

  /**
   * Node 20's TextDecoder drops bytes 0x80–0x9F of windows-1252 (€, “, ”…) when not streaming (its
   * Latin-1 shortcut); a single-byte decoder has nothing to flush at the end, so it always streams.
   */
  private streams(final: boolean): boolean {
    return !final || this.encodingNow === 'Windows-1252';
  }

  private notUtf8(bytes: Uint8Array, end: number, final: boolean): string {
    const shape = utf8Shape(bytes.subarray(0, end));
    if (!this.beyondAscii && shape.valid === 0) {
      if (!fitsWindows1252(bytes))
        throw new UndecodableError(notLatinText(this.fileName || 'The file'));
      this.switchedAt = this.offset + Math.max(0, shape.firstInvalid);
      this.encodingNow = 'Windows-1252';
      this.other = new TextDecoder('windows-1252');
      this.carry = new Uint8Array(0);
      return this.other.decode(bytes, { stream: this.streams(final) });
    }
    this.replaced = true;
    this.beyondAscii = true;
    this.lenient ??= new TextDecoder('utf-8', { ignoreBOM: true });
    this.carry = bytes.slice(end);
    this.offset += end;
    return this.lenient.decode(bytes.subarray(0, end));
  }
}

/**
 * A whole file's bytes as text (a file dropped on a text box): in the encoding its bytes show, or
 * a refusal saying why not (a binary file, UTF-32, or UTF-8 with some bytes that are not, which
 * would read as U+FFFD).
 */
export function readTextFile(
  bytes: Uint8Array,
  fileName: string,
): { text: string; encoding: TextEncoding } | { refuse: string } {
  const sniffed = sniffEncoding(bytes.subarray(0, SNIFF_BYTES), fileName);
  if ('binary' in sniffed) return { refuse: sniffed.message };
  if ('refuse' in sniffed) return sniffed;
  try {
    const decoder = new FileDecoder(sniffed.encoding, fileName);
    let text = decoder.decode(bytes, true);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (decoder.replaced) {
      return {
        refuse: `${fileName} is UTF-8 text with some bytes that are not UTF-8, which would read as �. Save it again as UTF-8 and drop that.`,
      };
    }
    return { text, encoding: decoder.encoding };
  } catch (error) {
    if (error instanceof UndecodableError) return { refuse: error.message };
    throw error;
  }
}
