/**
 * Which format a file is in, from its name or its first characters, so the parser can pick a
 * splitter before it has read the whole file.
 */
import type { FileFormat } from '../../rows/formats.ts';

/** Characters the sniffer may hold before it decides (long first lines). */
export const SNIFF_LIMIT = 4 * 1024 * 1024;

/**
 * The format of the text so far, or undefined when more text is needed. `{` with one of the first
 * three lines a whole JSON object → JSONL; with a line that does not start with `{` (a
 * pretty-printed object) → a JSON stream; lines that all start with `{` and all fail → JSONL, so
 * that each is reported as a bad row.
 */
export function sniffFormat(
  text: string,
  final: boolean,
  fileName?: string,
): FileFormat | undefined {
  if (fileName && /\.(?:csv|tsv)$/iu.test(fileName)) return 'csv';
  const first = /\S/u.exec(text);
  if (!first) {
    if (!final) return undefined;
    return fileName && /\.json$/iu.test(fileName) ? 'json' : 'jsonl';
  }
  if (first[0] === '[') return 'json';
  if (first[0] !== '{') return 'csv';
  const lines = text.slice(first.index).split('\n');
  const complete = (final ? lines : lines.slice(0, -1))
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(0, 3);
  for (const t of complete) {
    if (!t.startsWith('{') || !t.endsWith('}')) continue;
    try {
      const v: unknown = JSON.parse(t);
      if (v && typeof v === 'object' && !Array.isArray(v)) return 'jsonl';
    } catch {
      // A broken JSONL line, or part of a pretty-printed object: look further.
    }
  }
  if (complete.length >= 3 || final || text.length >= SNIFF_LIMIT) {
    return complete.every((t) => t.startsWith('{') && t !== '{') ? 'jsonl' : 'json';
  }
  return undefined;
}
