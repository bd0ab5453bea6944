/**
 * `npm run build:cli` bundles the CLI with its plain-JavaScript packages and leaves the ones that
 * load WASM, native code or weights by path in node_modules. The bundle must score exactly as the
 * TypeScript source does: every offline metric (compromise, the sentence encoder, jieba for a
 * Chinese row), a broken row, and a TinyEval prediction file with its eval.py score.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildCli } from '../../../scripts/build-cli.ts';
import { repoRoot, sharedPath } from '../../helpers/shared.ts';

const run = promisify(execFile);
const tsx = resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const source = resolve(repoRoot, 'src/cli/score.ts');
// Inside the repository: the bundle finds its assets by walking up to package.json.
const dir = resolve(repoRoot, `.tmp/build-cli-test-${process.pid}`);
let bundled: string;

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  bundled = await buildCli(join(dir, 'dist-cli'));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** A run with its exit status: a file with a bad row exits 1 and still writes every line. */
async function ran(args: string[]): Promise<Ran> {
  const opts = { cwd: repoRoot, encoding: 'utf8' as const, maxBuffer: 64 * 1024 * 1024 };
  try {
    return { code: 0, ...(await run(process.execPath, args, opts)) };
  } catch (error) {
    const e = error as Ran;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function both(
  args: string[],
): Promise<{ built: string; fromSource: string; err: string; codes: number[] }> {
  const [built, fromSource] = await Promise.all([
    ran([bundled, ...args]),
    ran([tsx, source, ...args]),
  ]);
  return {
    built: built.stdout,
    fromSource: fromSource.stdout,
    err: built.stderr,
    codes: [built.code, fromSource.code],
  };
}

describe('the bundled CLI (npm run build:cli)', () => {
  it('keeps the runtimes that load by path external and bundles the rest', () => {
    const out = dirname(bundled);
    const code = readdirSync(out)
      .filter((name) => name.endsWith('.js'))
      .map((name) => readFileSync(join(out, name), 'utf8'))
      .join('\n');
    for (const bundledPackage of ['zod', 'intl-messageformat', 'papaparse', 'compromise']) {
      expect(code).not.toMatch(new RegExp(`from ["']${bundledPackage}["']`, 'u'));
    }
    expect(code).toMatch(
      /import\(["']@tensorflow\/tfjs-backend-wasm["']\)|from ["']@tensorflow\//u,
    );
  });

  it('scores cases with every offline metric exactly as the source does', async () => {
    const file = join(dir, 'cases.jsonl');
    const rows = readFileSync(sharedPath('data/summeval/dev.jsonl'), 'utf8')
      .split('\n')
      .slice(0, 3)
      .map((line) => {
        const r = JSON.parse(line) as { text: string; decoded: string; references: string[] };
        return JSON.stringify({ source: r.text, summary: r.decoded, reference: r.references[0] });
      });
    rows.push('{"source": "cut off');
    rows.push(
      JSON.stringify({
        source: '市议会周一批准了新的公园计划。公园将于明年开放。居民对此表示欢迎。',
        summary: '市议会批准了公园计划，明年开放。',
        reference: '新公园明年开放。',
      }),
    );
    writeFileSync(file, rows.join('\n') + '\n');
    const { built, fromSource, err, codes } = await both([file]);
    expect(codes).toEqual([1, 1]);
    expect(built).toBe(fromSource);
    const lines = built.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[3]).toContain('"error"');
    const chinese = JSON.parse(lines[4]!) as {
      metrics: Record<string, { status: string; score: number | null }>;
    };
    expect(chinese.metrics['rouge-1']!.status).toBe('ok');
    expect(chinese.metrics['rouge-1']!.score).toBeGreaterThan(0);
    expect(err).toContain('4 row(s) scored, 1 bad row(s)');
  }, 120_000);

  it('scores a TinyEval prediction file as the source does, with the eval.py score', async () => {
    const { built, fromSource, err, codes } = await both([
      sharedPath('data/tinyeval/pred/internlm/multifieldqa_zh.jsonl'),
    ]);
    expect(codes).toEqual([0, 0]);
    expect(built).toBe(fromSource);
    expect(built.trim().split('\n')).toHaveLength(501);
    expect(err).toContain('eval.py result: {"multifieldqa_zh": 34.97}');
  }, 120_000);
});
