/**
 * The CLI's result files and exit status: a result path it cannot write stops it before any row
 * is scored, naming the path and the reason (exit 2); a write that still fails at the end names
 * the file and keeps the rows (exit 1); a file from which no row could be read, or with a row that
 * could not be scored, exits 1; --out is only replaced by a run that went through every row.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from '../../helpers/shared.ts';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.ts';
import { oracleHandler } from '../../helpers/judge-oracle.ts';
import { CLI, casesFile, jsonLines, providerEnv, runCli, tempDir } from './_cli.ts';

/** Whether any user may reach `file`: every folder above it searchable, the file readable. */
function everyoneReaches(file: string): boolean {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (!(statSync(dir).mode & 0o001)) return false;
  }
  return (statSync(file).mode & 0o004) !== 0;
}

const root = process.getuid?.() === 0;
/**
 * Root writes through file modes: there the read-only case runs as nobody, as a user would meet
 * it, which needs a checkout that nobody can read (not one under a private home folder).
 */
const asUser = root ? { uid: 65534 } : {};
const canRunAsUser =
  !root ||
  [CLI, join(repoRoot, 'node_modules/tsx/dist/loader.mjs'), process.execPath].every(
    everyoneReaches,
  );
const OLD_OUT = '{"row":1,"from":"the run before"}\n';

let fake: FakeLlm | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A folder anyone may read and write (the read-only case runs as another user). */
function sharedDir(prefix: string): string {
  const dir = tempDir(prefix);
  chmodSync(dir, 0o777);
  return dir;
}

describe('npm run score: result files', () => {
  it.runIf(canRunAsUser)(
    'a read-only --summary-json stops the run before any row, naming the path and why',
    async () => {
      const dir = sharedDir('readonly');
      const file = casesFile(dir, 3);
      chmodSync(file, 0o644);
      const summary = join(dir, 'summary.json');
      writeFileSync(summary, '{"kept": true}\n');
      chmodSync(summary, 0o444);
      const out = join(dir, 'out.jsonl');
      writeFileSync(out, OLD_OUT);
      chmodSync(out, 0o666);
      const r = await runCli(
        [file, '--metrics', 'rouge-1', '--out', out, '--summary-json', summary],
        {
          cwd: dir,
          ...asUser,
        },
      );
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `--summary-json ${summary}: cannot write there (permission denied)`,
      );
      expect(r.stderr).not.toMatch(/EACCES|row\(s\) scored/u);
      expect(r.stdout).toBe('');
      expect(readFileSync(out, 'utf8')).toBe(OLD_OUT);
      expect(existsSync(`${out}.partial`)).toBe(false);
      expect(readFileSync(summary, 'utf8')).toBe('{"kept": true}\n');
    },
    60_000,
  );

  it.each([
    [
      '--out',
      'a folder that does not exist',
      (dir: string) => join(dir, 'missing', 'out.jsonl'),
      /its folder does not exist/u,
    ],
    ['--summary-json', 'a folder', (dir: string) => dir, /it is a folder/u],
    [
      '--out',
      'a path through a file',
      (dir: string) => join(dir, 'cases.jsonl', 'out.jsonl'),
      /a part of its folder is a file/u,
    ],
  ] as const)(
    '%s into %s: exit 2 before scoring',
    async (option, _what, pathIn, reason) => {
      const dir = tempDir('unwritable');
      const file = casesFile(dir, 2);
      const path = pathIn(dir);
      const r = await runCli([file, '--metrics', 'rouge-1', option, path], { cwd: dir });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${option} ${path}: cannot write there`);
      expect(r.stderr).toMatch(reason);
      expect(r.stdout).toBe('');
    },
    60_000,
  );

  it('a summary that cannot be written at the end is named, and the rows stay in --out', async () => {
    const dir = tempDir('late');
    const file = casesFile(dir, 2);
    const folder = join(dir, 'reports');
    mkdirSync(folder);
    const summary = join(folder, 'summary.json');
    const out = join(dir, 'out.jsonl');
    // The folder goes away while the run works: the check at the start could not see it coming.
    const answer = oracleHandler(4);
    fake = await startFakeLlm();
    fake.setHandler((req) => {
      rmSync(folder, { recursive: true, force: true });
      return answer(req);
    });
    const r = await runCli(
      [file, '--metrics', 'alignment', '--out', out, '--summary-json', summary],
      { cwd: dir, env: providerEnv('openai', fake.url, 'sk-late-test-0123456789abcdef') },
    );
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `Cannot write the summary to ${summary} (its folder does not exist); the rows are in ${out}.`,
    );
    expect(jsonLines(readFileSync(out, 'utf8')).map((l) => l.row)).toEqual([1, 2]);
  }, 60_000);
});

describe('npm run score: exit status', () => {
  it.each([
    [
      'every row broken',
      '{"source": "cut off\n{"also": "cut\n',
      [],
      /No row could be read from .*\(2 bad row\(s\)/u,
    ],
    ['an empty file', '', [], /No row could be read from/u],
    [
      'a mapping that leaves every row without a summary',
      '{"body": "The council approved a park.", "gist": ""}\n{"body": "Cracks closed the bridge.", "gist": ""}\n',
      ['--kind', 'case', '--map', 'body=source', '--map', 'gist=summary'],
      /No row could be read from .*\(2 bad row\(s\)/u,
    ],
  ] as const)(
    '%s: exit 1 with a line that says so',
    async (_what, text, extra, line) => {
      const dir = tempDir('unreadable');
      const file = join(dir, 'rows.jsonl');
      writeFileSync(file, text);
      const out = join(dir, 'out.jsonl');
      const r = await runCli([file, '--metrics', 'rouge-1', '--out', out, ...extra], { cwd: dir });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(line);
    },
    60_000,
  );

  it('a bad row among good ones: every row written, exit 1; all good: exit 0', async () => {
    const dir = tempDir('status');
    const good = casesFile(dir, 2);
    const mixed = join(dir, 'mixed.jsonl');
    writeFileSync(mixed, readFileSync(good, 'utf8') + '{"source": "cut off\n');
    const bad = await runCli([mixed, '--metrics', 'rouge-1'], { cwd: dir });
    expect(bad.status, bad.stderr).toBe(1);
    expect(jsonLines(bad.stdout).map((l) => l.row)).toEqual([1, 2, 3]);
    const ok = await runCli([good, '--metrics', 'rouge-1'], { cwd: dir });
    expect(ok.status, ok.stderr).toBe(0);
  }, 60_000);
});
