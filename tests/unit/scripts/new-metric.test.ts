/**
 * `npm run new:metric` in a temporary copy of the repository (tracked and unignored files, with a
 * link to node_modules): the files it writes, its registry lines, and that the copy then passes
 * the type check and the new metric's own unit test. Slow (a full tsc run), so one metric per kind.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/shared.ts';

/** Each kind of template, with the files its scaffold must write (besides the registry). */
const KINDS = [
  {
    kind: 'offline',
    id: 'word-count',
    camel: 'wordCount',
    files: [
      'src/lib/metrics/lexical/word-count/word-count.ts',
      'tests/unit/metrics/word-count.test.ts',
      'docs/metrics/word-count.md',
    ],
    unitTest: 'tests/unit/metrics/word-count.test.ts',
  },
  {
    kind: 'judge',
    id: 'hedging',
    camel: 'hedging',
    files: [
      'src/lib/metrics/judge/hedging/hedging.ts',
      'src/lib/metrics/judge/hedging/prompts.ts',
      'tests/unit/judge/hedging.test.ts',
      'docs/metrics/hedging.md',
    ],
    unitTest: 'tests/unit/judge/hedging.test.ts',
  },
];

let copy: string;

function run(command: string, args: string[], timeoutMs = 600_000) {
  const result = spawnSync(command, args, {
    cwd: copy,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'sumlens-new-metric-'));
  const listed = spawnSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: repoRoot,
      encoding: 'utf8',
    },
  );
  for (const path of listed.stdout.split('\0').filter(Boolean)) {
    const from = join(repoRoot, path);
    if (!existsSync(from)) continue; // deleted in the working tree, not yet committed
    mkdirSync(dirname(join(copy, path)), { recursive: true });
    cpSync(from, join(copy, path));
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(copy, 'node_modules'), 'dir');
});

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe.each(KINDS)('npm run new:metric -- --kind $kind', (row) => {
  it(`writes ${row.id}'s files and registry lines, and the copy then type-checks and passes its test`, () => {
    const scaffold = run('npm', ['run', 'new:metric', '--', '--kind', row.kind, row.id]);
    expect(scaffold.status, scaffold.output).toBe(0);
    for (const file of row.files) {
      expect(existsSync(join(copy, file)), file).toBe(true);
      expect(scaffold.output, file).toContain(file);
    }
    const registry = readFileSync(join(copy, 'src/lib/metrics/registry.ts'), 'utf8');
    expect(registry).toMatch(
      new RegExp(
        `^import \\{ ${row.camel}Metric \\} from '\\./[a-z]+/${row.id}/${row.id}\\.ts';$`,
        'mu',
      ),
    );
    // Prettier quotes the key only when it needs quotes (`'word-count'`, but `hedging`).
    expect(registry).toMatch(new RegExp(`^  ('${row.id}'|${row.id}): ${row.camel}Metric,$`, 'mu'));
    const english = JSON.parse(
      readFileSync(join(copy, 'src/messages/en/metrics.json'), 'utf8'),
    ) as Record<string, string>;
    expect(english[`card.metric.${row.id}.label`]).toBeTruthy();

    const types = run('npx', ['tsc', '--noEmit', '-p', '.']);
    expect(types.status, types.output).toBe(0);
    const unit = run('npx', ['vitest', 'run', '--config', 'vitest.config.ts', row.unitTest]);
    expect(unit.status, unit.output).toBe(0);
    expect(unit.output).toMatch(/Tests\s+\d+ passed/u);
  }, 900_000);

  it('refuses an id that exists, with the reason', () => {
    const taken = run('npm', ['run', 'new:metric', '--', '--kind', row.kind, 'bleu']);
    expect(taken.status).not.toBe(0);
    expect(taken.output).toContain('new:metric: a metric "bleu" exists already');
  }, 120_000);

  it('refuses a name that is not kebab-case, with the reason', () => {
    const bad = run('npm', ['run', 'new:metric', '--', '--kind', row.kind, 'Word_Count']);
    expect(bad.status).not.toBe(0);
    expect(bad.output).toContain('new:metric: "Word_Count" is not a kebab-case metric id');
    expect(existsSync(join(copy, 'src/lib/metrics/lexical/Word_Count'))).toBe(false);
  }, 120_000);
});
