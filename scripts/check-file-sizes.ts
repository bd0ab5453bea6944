/**
 * Fails listing every source file over 400 lines: past that a file has usually taken on a second
 * responsibility, and a reader can no longer hold it at once (issue 31).
 *
 * `npx tsx scripts/check-file-sizes.ts` (npm run check:size). Source: .ts, .svelte, .js and .py
 * under src/, workers/ and scripts/; generated data (JSON, ONNX) is not source.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

export const MAX_LINES = 400;
export const SOURCE_FOLDERS = ['src', 'workers', 'scripts'] as const;
const SOURCE_FILE = /\.(ts|svelte|js|py)$/u;

export interface OversizedFile {
  path: string;
  lines: number;
}

function lineCount(text: string): number {
  if (text === '') return 0;
  // A final newline ends the last line; it does not start another.
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function sourceFiles(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && SOURCE_FILE.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Source files under `root` longer than `maxLines`, longest first. */
export function oversizedFiles(root: string, maxLines = MAX_LINES): OversizedFile[] {
  return SOURCE_FOLDERS.flatMap((folder) => sourceFiles(join(root, folder)))
    .map((file) => ({
      path: relative(root, file),
      lines: lineCount(readFileSync(file, 'utf8')),
    }))
    .filter((file) => file.lines > maxLines)
    .sort((a, b) => b.lines - a.lines || a.path.localeCompare(b.path));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const oversized = oversizedFiles(process.cwd());
  if (oversized.length === 0) {
    console.log(`No source file over ${MAX_LINES} lines.`);
  } else {
    console.error(`${oversized.length} source file(s) over ${MAX_LINES} lines:`);
    for (const file of oversized) console.error(`  ${file.path}: ${file.lines}`);
    console.error('Split each by responsibility.');
    process.exitCode = 1;
  }
}
