/**
 * The parser's bytes → text: the first `SNIFF_BYTES` are held until they show the encoding
 * (input/encoding.ts), then decoded across chunk boundaries (input/decode.ts); and what the
 * description and the summary say about an encoding that is not UTF-8.
 */
import { FileDecoder, UndecodableError } from '../../input/decode.ts';
import { SNIFF_BYTES, sniffEncoding, type TextEncoding } from '../../input/encoding.ts';
import { DatasetParseError } from './types.ts';

/** Whether a record's text holds U+FFFD, the character bytes that were not UTF-8 were read as. */
export function hasReplacement(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\uFFFD');
  if (Array.isArray(value)) return value.some(hasReplacement);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasReplacement);
  return false;
}

export class SniffingDecoder {
  /** Created once the first bytes have said which encoding they are in. */
  #decoder?: FileDecoder;
  /** The first bytes, held until there are enough to sniff. */
  #head: Uint8Array[] = [];
  #headBytes = 0;

  constructor(private readonly fileName?: string) {}

  /** The encoding the bytes are read in, once known. */
  get encoding(): TextEncoding | undefined {
    return this.#decoder?.encoding;
  }

  /** Whether bytes that were not UTF-8 were read as U+FFFD in a file that is. */
  get replaced(): boolean {
    return this.#decoder?.replaced ?? false;
  }

  /**
   * The text these bytes complete ('' while the head is held). Throws `DatasetParseError` when
   * they are not text SumLens can read.
   */
  decode(chunk: Uint8Array, final: boolean): string {
    try {
      return this.#decodeBytes(chunk, final);
    } catch (error) {
      if (error instanceof UndecodableError) throw new DatasetParseError(error.message);
      throw error;
    }
  }

  #decodeBytes(chunk: Uint8Array, final: boolean): string {
    if (this.#decoder) return this.#decoder.decode(chunk, final);
    let head = chunk;
    if (this.#headBytes > 0 || (chunk.byteLength < SNIFF_BYTES && !final)) {
      // Copied: a stream may hand out views of a buffer it reuses.
      if (chunk.byteLength > 0) this.#head.push(chunk.slice());
      this.#headBytes += chunk.byteLength;
      if (this.#headBytes < SNIFF_BYTES && !final) return '';
      head = new Uint8Array(this.#headBytes);
      let at = 0;
      for (const piece of this.#head) {
        head.set(piece, at);
        at += piece.byteLength;
      }
      this.#head = [];
    }
    if (head.byteLength === 0) return '';
    const sniffed = sniffEncoding(head, this.fileName);
    if ('binary' in sniffed) throw new DatasetParseError(sniffed.message);
    if ('refuse' in sniffed) throw new DatasetParseError(sniffed.refuse);
    this.#decoder = new FileDecoder(sniffed.encoding, this.fileName);
    return this.#decoder.decode(head, final);
  }

  /** For the description: the encoding, when it is not the UTF-8 everyone expects. */
  encodingNote(): { encoding?: TextEncoding } {
    const encoding = this.#decoder?.encoding;
    return encoding && encoding !== 'UTF-8' ? { encoding } : {};
  }

  /** A file read as Windows-1252 is said so at its end too (the CLI prints it under its table). */
  encodingWarning(): string[] {
    if (this.#decoder?.encoding !== 'Windows-1252') return [];
    const from = this.#decoder.switchedAt;
    const where =
      from === undefined
        ? ''
        : ` from byte ${from.toLocaleString('en-US')} on (the text before it is ASCII, the same in both)`;
    return [
      `not UTF-8: read as Windows-1252 (Latin-1)${where}. Check its accented letters, or save the file as UTF-8.`,
    ];
  }
}
