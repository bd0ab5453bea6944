/**
 * Workers are bundled without the Svelte compiler, so a rune there is a ReferenceError at start
 * ("$state is not defined"): no worker may reach a .svelte or .svelte.ts module through its
 * imports (the page's language state, for one, lives in i18n.svelte.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const workers = join(root, 'workers');

/** The chain of files from `entry` to the first rune module it reaches, if any. */
function runeChain(entry: string): string[] | undefined {
  const seen = new Set<string>();
  const walk = (file: string, chain: string[]): string[] | undefined => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    if (/\.svelte(\.ts)?$/u.test(file)) return [...chain, file];
    const source = readFileSync(file, 'utf8');
    // Type-only imports vanish from the bundle.
    const specifier =
      /(?:^|\n)\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/gu;
    for (const m of source.matchAll(specifier)) {
      const target = resolve(dirname(file), (m[1] ?? m[2])!);
      if (!/\.(ts|svelte)$/u.test(target)) continue;
      const hit = walk(target, [...chain, file]);
      if (hit) return hit;
    }
    return undefined;
  };
  return walk(entry, []);
}

describe('worker imports', () => {
  const entries = readdirSync(workers).filter((f) => f.endsWith('.worker.ts'));

  it('finds the workers', () => {
    expect(entries.length).toBeGreaterThan(4);
  });

  for (const entry of entries) {
    it(`${entry} reaches no Svelte rune module`, () => {
      const chain = runeChain(join(workers, entry));
      expect(chain?.map((f) => relative(root, f))).toBeUndefined();
    });
  }
});
