/**
 * scripts/check-file-sizes.ts on a project written to a temp folder: which files count, where the
 * limit falls, and that the command fails listing them.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MAX_LINES, oversizedFiles } from '../../../scripts/check-file-sizes.ts';
import { repoRoot } from '../../helpers/shared.ts';

let dir: string;

function writeLines(path: string, lines: number): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), 'x\n'.repeat(lines));
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sumlens-sizes-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('lists source files over the limit in src/, workers/ and scripts/, longest first', () => {
  writeLines('src/lib/at-limit.ts', MAX_LINES);
  writeLines('src/lib/deep/over.svelte', MAX_LINES + 1);
  writeLines('workers/big.worker.ts', MAX_LINES + 30);
  writeLines('scripts/models/convert.py', MAX_LINES + 2);
  writeLines('scripts/legacy.js', MAX_LINES + 3);
  // Not source, or not in a checked folder.
  writeLines('src/messages/en/long.json', MAX_LINES * 2);
  writeLines('tests/unit/long.test.ts', MAX_LINES * 2);

  expect(oversizedFiles(dir)).toEqual([
    { path: 'workers/big.worker.ts', lines: MAX_LINES + 30 },
    { path: 'scripts/legacy.js', lines: MAX_LINES + 3 },
    { path: 'scripts/models/convert.py', lines: MAX_LINES + 2 },
    { path: 'src/lib/deep/over.svelte', lines: MAX_LINES + 1 },
  ]);
});

it('counts a last line without a newline as a line', () => {
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/no-final-newline.ts'), `${'x\n'.repeat(MAX_LINES)}x`);
  expect(oversizedFiles(dir)).toEqual([{ path: 'src/no-final-newline.ts', lines: MAX_LINES + 1 }]);
});

it('npm run check:size fails naming each file, and passes when none is over', () => {
  const script = join(repoRoot, 'scripts/check-file-sizes.ts');
  const tsx = join(repoRoot, 'node_modules/.bin/tsx');
  writeLines('src/cli/score.ts', MAX_LINES + 5);

  const failing = spawnSync(tsx, [script], { cwd: dir, encoding: 'utf8' });
  expect(failing.status).toBe(1);
  expect(failing.stderr).toContain(`src/cli/score.ts: ${MAX_LINES + 5}`);

  writeLines('src/cli/score.ts', MAX_LINES);
  const passing = spawnSync(tsx, [script], { cwd: dir, encoding: 'utf8' });
  expect(passing.status).toBe(0);
});
