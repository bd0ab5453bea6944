/**
 * What the docs generators share: blocks between `<!-- name -->` … `<!-- /name -->` markers in a
 * hand-written page, Prettier's Markdown formatting (so a generated page passes
 * `prettier --check` as written, and the staleness tests compare like with like), and the
 * write-or-check step of `npm run docs:*` (`-- --check` exits 1 on a stale page instead of writing).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { repoRoot } from '../src/lib/node/external-data.ts';

/** `text` with the block between the `name` markers replaced by `body`; throws when one is missing. */
export function withGeneratedBlock(text: string, name: string, body: string): string {
  const open = `<!-- ${name} -->`;
  const close = `<!-- /${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`no ${open} … ${close} block`);
  return `${text.slice(0, start + open.length)}\n\n${body.trim()}\n\n${text.slice(end)}`;
}

/** One table cell: a pipe would end the cell ("|Δ| ≤ 0.01") and a line break the row. */
export function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** Formats Markdown with the repository's Prettier settings for that repository path. */
export async function formatMarkdown(text: string, path: string): Promise<string> {
  const file = resolve(repoRoot, path);
  const options = (await resolveConfig(file)) ?? {};
  return format(text, { ...options, filepath: file, parser: 'markdown' });
}

/** One generated file: its repository path and the whole text it should hold. */
export interface GeneratedPage {
  path: string;
  text: string;
}

/** The pages whose file on disk differs from what the generator gives now. */
export function stalePages(pages: readonly GeneratedPage[]): string[] {
  return pages
    .filter(({ path, text }) => {
      const file = resolve(repoRoot, path);
      return !existsSync(file) || readFileSync(file, 'utf8') !== text;
    })
    .map(({ path }) => path);
}

/**
 * The command line of a generator: writes the pages, or with `--check` lists the stale ones and
 * sets exit status 1, so CI can refuse docs that no longer match their sources.
 */
export async function writeOrCheck(
  command: string,
  generate: () => Promise<GeneratedPage[]>,
): Promise<void> {
  const pages = await generate();
  const stale = stalePages(pages);
  if (process.argv.includes('--check')) {
    for (const path of stale) console.error(`${path} is stale: run npm run ${command}`);
    process.exitCode = stale.length > 0 ? 1 : 0;
    return;
  }
  for (const { path, text } of pages) {
    const file = resolve(repoRoot, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  console.log(
    `wrote ${pages.length} page(s), ${stale.length} changed: ${stale.map((p) => relative('.', resolve(repoRoot, p))).join(', ') || 'none'}`,
  );
}

/** True when this module file is the script Node was started with (not an import from a test). */
export function isMain(moduleUrl: string): boolean {
  return Boolean(process.argv[1]) && resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}
