/**
 * `npm run score -- FILE > out.jsonl`, typed as a user types it: stdout carries the JSON lines
 * and nothing else. npm 11 prints its "> sumlens@0.1.0 score" banners on stdout unless the project
 * .npmrc says `json=true` (then on stderr), and a `prescore` hook added its own banners and the
 * asset build's lines. The .npmrc must not hide npm's own errors (as `loglevel=silent` would).
 */
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, sharedPath } from '../../helpers/shared.ts';

const run = promisify(execFile);

/** A user's shell: none of the npm_* variables an `npx vitest` parent passes down. */
const userEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_/iu.test(k) && !k.startsWith('SUMLENS_')),
);

async function npm(args: string[], cwd: string) {
  try {
    const { stdout, stderr } = await run('npm', args, {
      cwd,
      env: userEnv,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run score', () => {
  it('writes JSON lines only on stdout', async () => {
    const fixture = sharedPath('data/tinyeval/pred/internlm/trec.jsonl');
    const r = await npm(['run', 'score', '--', fixture], repoRoot);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l.trim());
    const notJson = lines.filter((l) => {
      try {
        JSON.parse(l);
        return false;
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(lines).toHaveLength(300);
    expect(r.stderr).toContain('eval.py result: {"trec": 52.0}');
  }, 120_000);

  it("the project's .npmrc leaves npm's own errors on screen", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-npmrc-'));
    copyFileSync(join(repoRoot, '.npmrc'), join(dir, '.npmrc'));
    // No lockfile: `npm ci` refuses at once, without the network.
    writeFileSync(join(dir, 'package.json'), '{"name": "npmrc-check", "version": "1.0.0"}\n');
    const r = await npm(['ci', '--offline'], dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/npm error .*package-lock\.json/u);
  }, 60_000);
});
