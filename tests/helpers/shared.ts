/**
 * Where the project's shared data lives: `../shared` beside the repository (as laid out for
 * developers and CI), or SUMLENS_SHARED when set.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const sharedDir = process.env.SUMLENS_SHARED ?? resolve(repoRoot, '../shared');

export function sharedPath(...parts: string[]): string {
  const p = resolve(sharedDir, ...parts);
  if (!existsSync(p)) throw new Error(`Shared data file missing: ${p} (set SUMLENS_SHARED)`);
  return p;
}

export function readJsonl<T = Record<string, unknown>>(...parts: string[]): T[] {
  return readFileSync(sharedPath(...parts), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}

export function readJson<T = unknown>(...parts: string[]): T {
  return JSON.parse(readFileSync(sharedPath(...parts), 'utf8')) as T;
}
