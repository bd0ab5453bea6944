/**
 * Node-only: where the external data that tests, benches and scripts read lives: the copies
 * vendored in tests/fixtures/external/ (laid out like the project's shared/ folder, with SOURCES.md
 * naming each file's origin and licence), or SUMLENS_SHARED when set, to read another copy of
 * shared/. In src/lib/node rather than scripts/ because tests and benches import it too.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

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
