/**
 * scripts/check-cycles.ts on small projects written to a temp folder: which imports are runtime
 * edges under `verbatimModuleSyntax`, and that the command fails naming the cycle.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultRoots, findCycles } from '../../../scripts/check-cycles.ts';
import { repoRoot } from '../../helpers/shared.ts';

let dir: string;

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const cyclesFrom = (...roots: string[]) =>
  findCycles(
    roots.map((root) => join(dir, root)),
    dir,
  );

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sumlens-cycles-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('runtime edges', () => {
  it('counts `import { type X }`: it survives as an empty import and loads the module', () => {
    write({
      'types.ts': "import { type Id } from './registry.ts';\nexport type Metric = { id: Id };\n",
      'registry.ts': "import { type Metric } from './types.ts';\nexport type Id = 'a';\n",
    });
    expect(cyclesFrom('types.ts')).toEqual([['registry.ts', 'types.ts', 'registry.ts']]);
  });

  it('does not count `import type` or `export type … from`', () => {
    write({
      'a.ts': "import type { B } from './b.ts';\nexport type A = B;\n",
      'b.ts': "export type { A } from './a.ts';\nexport type B = 1;\n",
    });
    expect(cyclesFrom('a.ts')).toEqual([]);
  });

  it('counts `export … from` and side-effect imports', () => {
    write({
      'a.ts': "export { b } from './b.ts';\n",
      'b.ts': "import './c.ts';\nexport const b = 1;\n",
      'c.ts': "export * from './a.ts';\n",
    });
    expect(cyclesFrom('a.ts')).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it("reads a component's <script> blocks, and resolves files named without extension", () => {
    write({
      'View.svelte':
        '<script module>\nexport const shared = 1;\n</script>\n<script lang="ts">\nimport { helper } from \'./helper\';\n</script>\n<p>{helper}</p>\n',
      'helper.ts': "import { shared } from './View.svelte';\nexport const helper = shared;\n",
    });
    expect(cyclesFrom('View.svelte')).toEqual([['View.svelte', 'helper.ts', 'View.svelte']]);
  });

  it('does not count dynamic import() or a worker started from a URL or ?worker', () => {
    write({
      'main.ts':
        "import Parse from './parse.worker.ts?worker';\nexport const w = new Worker(new URL('./other.worker.ts', import.meta.url));\nexport const later = () => import('./lazy.ts');\nexport { Parse };\n",
      'parse.worker.ts': "import './main.ts';\n",
      'other.worker.ts': "import './main.ts';\n",
      'lazy.ts': "import './main.ts';\n",
    });
    expect(cyclesFrom('main.ts')).toEqual([]);
  });

  it('reports a file that imports itself', () => {
    write({ 'self.ts': "import './self.ts';\n" });
    expect(cyclesFrom('self.ts')).toEqual([['self.ts', 'self.ts']]);
  });
});

describe('npm run check:cycles', () => {
  it('fails and names the cycle reached from a worker root; passes once it is broken', () => {
    write({
      'src/main.ts': "import { label } from './lib/labels.ts';\nconsole.log(label);\n",
      'src/lib/labels.ts': "export const label = 'ok';\n",
      'workers/score.worker.ts': "import { run } from '../src/lib/run.ts';\nrun();\n",
      'src/lib/run.ts':
        "import { type Step } from './steps.ts';\nexport const run = (): Step[] => [];\n",
      'src/lib/steps.ts': "import { run } from './run.ts';\nexport type Step = typeof run;\n",
    });
    expect(defaultRoots(dir).map((root) => root.slice(dir.length + 1))).toEqual([
      'src/main.ts',
      'workers/score.worker.ts',
    ]);
    const script = join(repoRoot, 'scripts/check-cycles.ts');
    const tsx = join(repoRoot, 'node_modules/.bin/tsx');

    const failing = spawnSync(tsx, [script], { cwd: dir, encoding: 'utf8' });
    expect(failing.status).toBe(1);
    expect(failing.stderr).toContain('src/lib/run.ts → src/lib/steps.ts → src/lib/run.ts');

    write({
      'src/lib/steps.ts': "import type { run } from './run.ts';\nexport type Step = typeof run;\n",
    });
    const passing = spawnSync(tsx, [script], { cwd: dir, encoding: 'utf8' });
    expect(passing.stderr).toBe('');
    expect(passing.status).toBe(0);
  });
});
