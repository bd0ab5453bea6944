/**
 * The external data tests read: the vendored copies in tests/fixtures/external/ (see its
 * SOURCES.md), or SUMLENS_SHARED when set.
 */
import { readFileSync } from 'node:fs';
import { externalPath, repoRoot } from '../../src/lib/node/external-data.ts';

export { repoRoot };

export const sharedPath = externalPath;

export function readJsonl<T = Record<string, unknown>>(...parts: string[]): T[] {
  return readFileSync(sharedPath(...parts), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}

export function readJson<T = unknown>(...parts: string[]): T {
  return JSON.parse(readFileSync(sharedPath(...parts), 'utf8')) as T;
}
