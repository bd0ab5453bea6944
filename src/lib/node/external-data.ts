/**
 * Node-only: where the external data that tests, benches and scripts read lives: the copies
 * vendored in tests/fixtures/external/ (laid out like the project's shared/ folder, with SOURCES.md
 * naming each file's origin and licence), or SUMLENS_SHARED when set, to read another copy of
 * shared/. In src/lib/node rather than scripts/ because tests and benches import it too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of SumLens's package.json, found by walking up from this module: the same from
 * src/lib/node/ under tsx as from a chunk of the bundled CLI in dist-cli/.
 */
function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = resolve(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'sumlens') {
          return dir;
        }
      } catch {
        // another package's unreadable manifest: keep walking
      }
    }
    if (dirname(dir) === dir) return resolve(from, '../../..');
  }
}

export const repoRoot = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

export const externalDataDir =
  process.env.SUMLENS_SHARED ?? resolve(repoRoot, 'tests/fixtures/external');

/** `parts` under the external data folder, e.g. externalPath('data/summeval/dev.jsonl'). */
export function externalPath(...parts: string[]): string {
  const p = resolve(externalDataDir, ...parts);
  if (!existsSync(p)) {
    throw new Error(
      `External data file missing: ${p} (tests/fixtures/external/ holds the vendored copies; SUMLENS_SHARED overrides the folder)`,
    );
  }
  return p;
}
