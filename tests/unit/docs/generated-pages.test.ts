/**
 * The generated docs match their sources: one page per metric record (with its validity rows) and
 * the benchmark tables from bench/results/. A record, a validity report or a bench output changed
 * without `npm run docs:metrics` / `npm run docs:benchmarks` fails here.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchmarkPages, unrenderedResults } from '../../../scripts/docs-benchmarks.ts';
import { metricPages } from '../../../scripts/docs-metrics.ts';
import { stalePages, withGeneratedBlock } from '../../../scripts/docs-pages.ts';
import { METRIC_IDS, metricInfo } from '../../../src/lib/metrics/registry.ts';
import { repoRoot } from '../../helpers/shared.ts';

describe('docs/metrics/', () => {
  it('is what npm run docs:metrics writes', async () => {
    expect(stalePages(await metricPages())).toEqual([]);
  });

  it('has a page per metric id with its label and meaning, linked from the index', async () => {
    const pages = new Map((await metricPages()).map((p) => [p.path, p.text]));
    const index = pages.get('docs/metrics/README.md') ?? '';
    for (const id of METRIC_IDS) {
      const page = pages.get(`docs/metrics/${id}.md`) ?? '';
      expect(page.startsWith(`# ${metricInfo(id).label} (\`${id}\`)`)).toBe(true);
      // Prettier may rewrap the meaning; its first words stay on the page.
      expect(page).toContain(metricInfo(id).meaning.split(' ').slice(0, 4).join(' '));
      expect(index).toContain(`(${id}.md)`);
    }
  });

  it('shows the SummEval row of a measured metric and none for an unmeasured one', async () => {
    const pages = new Map((await metricPages()).map((p) => [p.path, p.text]));
    expect(pages.get('docs/metrics/fact-check.md')).toMatch(
      /\| Fact check \(offline\) +\| `fact-check/,
    );
    expect(pages.get('docs/metrics/vagueness.md')).toContain('No SummEval row');
  });
});

describe('docs/benchmarks.md', () => {
  it('is what npm run docs:benchmarks writes', async () => {
    expect(stalePages(await benchmarkPages())).toEqual([]);
  });

  it('renders every bench output in bench/results/', () => {
    expect(unrenderedResults()).toEqual([]);
  });

  it('carries the figures of the result files', () => {
    const page = readFileSync(resolve(repoRoot, 'docs/benchmarks.md'), 'utf8');
    const cli = JSON.parse(
      readFileSync(resolve(repoRoot, 'bench/results/cli-offline.json'), 'utf8'),
    ) as { sides: Array<{ rowsPerSecond: number }> };
    for (const side of cli.sides) expect(page).toContain(`| ${side.rowsPerSecond.toFixed(1)} `);
  });
});

describe('stalePages and withGeneratedBlock', () => {
  it('report a page whose text differs from the file', () => {
    const text = readFileSync(resolve(repoRoot, 'docs/benchmarks.md'), 'utf8');
    expect(stalePages([{ path: 'docs/benchmarks.md', text }])).toEqual([]);
    expect(stalePages([{ path: 'docs/benchmarks.md', text: `${text}\nedited\n` }])).toEqual([
      'docs/benchmarks.md',
    ]);
  });

  it('replace only the marked block, and refuse a page without its markers', () => {
    expect(withGeneratedBlock('a\n<!-- x -->\nold\n<!-- /x -->\nb', 'x', 'new')).toBe(
      'a\n<!-- x -->\n\nnew\n\n<!-- /x -->\nb',
    );
    expect(() => withGeneratedBlock('no markers', 'x', 'new')).toThrow(/<!-- x -->/);
  });
});
