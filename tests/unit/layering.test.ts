/**
 * The layers of src/lib (README, Layout) hold only while nobody adds an import that points back up:
 * this reads every relative import of src/lib and fails on a pair of folders that import each
 * other, and on the edges the layout rules out by name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const lib = resolve(import.meta.dirname, '../../src/lib');
/** Files directly in src/lib are leaf utilities (errors, version, lazy, zod config). */
const ROOT = '(src/lib)';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|svelte)$/u.test(entry.name) ? [path] : [];
  });
}

function folderOf(path: string): string {
  const first = relative(lib, path).split('/')[0]!;
  return /\.(ts|svelte)$/u.test(first) ? ROOT : first;
}

/** folder → the folders its files import, each with one file that does it. */
function folderImports(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  const specifier = /(?:from\s+|import\s*\(\s*)'(\.[^']+)'/gu;
  for (const file of sourceFiles(lib)) {
    const from = folderOf(file);
    for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
      const target = normalize(resolve(dirname(file), match[1]!));
      if (relative(lib, target).startsWith('..')) continue;
      const to = folderOf(target);
      if (to === from) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, relative(lib, file));
      edges.set(from, out);
    }
  }
  return edges;
}

describe('src/lib layering', () => {
  const edges = folderImports();
  const imports = (from: string, to: string) => edges.get(from)?.get(to);

  it('has no two folders that import each other', () => {
    const loops: string[] = [];
    for (const [from, out] of edges) {
      for (const [to, file] of out) {
        const back = imports(to, from);
        if (back && from < to) loops.push(`${from} ↔ ${to} (${file}; ${back})`);
      }
    }
    expect(loops).toEqual([]);
  });

  it('keeps the edges the layout rules out', () => {
    const forbidden: Array<[string, string]> = [
      ['llm', 'metrics'],
      ['storage', 'datasets'],
      ['storage', 'state'],
      ['datasets', 'workers'],
      ['metrics', 'state'],
      ['datasets', 'state'],
      ['llm', 'state'],
    ];
    const found = forbidden
      .map(([from, to]) => [from, to, imports(from, to)] as const)
      .filter(([, , file]) => file !== undefined)
      .map(([from, to, file]) => `${from} → ${to} (${file})`);
    expect(found).toEqual([]);
  });

  it('reads the imports it checks', () => {
    // A broken reader would pass the checks above with no edges at all.
    expect(imports('state', 'metrics')).toBeDefined();
    expect(imports('metrics', 'llm')).toBeDefined();
  });
});
