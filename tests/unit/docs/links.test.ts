/**
 * The docs' relative links hold: every file they name exists in the repository, and every #anchor
 * is a heading of its file as GitHub slugs it. No network: web links are not followed.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  anchorsOf,
  checkLinks,
  githubSlug,
  linksOf,
  markdownFiles,
} from '../../../scripts/docs-links.ts';

describe('README.md and docs/', () => {
  it('cover the README and every docs page', () => {
    const files = markdownFiles().map((f) => f.replaceAll('\\', '/'));
    expect(files.some((f) => f.endsWith('/README.md') && !f.includes('/docs/'))).toBe(true);
    expect(files.some((f) => f.endsWith('/docs/architecture.md'))).toBe(true);
    expect(files.some((f) => f.endsWith('/docs/metrics/README.md'))).toBe(true);
  });

  it('have no broken relative link or anchor', () => {
    const problems = checkLinks().map((p) => `${p.file}:${p.line}: ${p.target}: ${p.problem}`);
    expect(problems).toEqual([]);
  });
});

describe('githubSlug', () => {
  it('slugs headings as GitHub does', () => {
    expect(githubSlug('Across data sets (leave one out)')).toBe('across-data-sets-leave-one-out');
    expect(githubSlug('Self-hosting: headers and the Content-Security-Policy')).toBe(
      'self-hosting-headers-and-the-content-security-policy',
    );
    expect(githubSlug('Under provider faults (`npm run faults`)')).toBe(
      'under-provider-faults-npm-run-faults',
    );
    expect(githubSlug('Sentence encoder (USE-lite)')).toBe('sentence-encoder-use-lite');
    expect(githubSlug('The **bold** [link](x.md) and snake_case')).toBe(
      'the-bold-link-and-snake_case',
    );
  });

  it('numbers repeated headings -1, -2', () => {
    expect([...anchorsOf('# Notes\n\n## Notes\n\n### Notes\n')]).toEqual([
      'notes',
      'notes-1',
      'notes-2',
    ]);
  });

  it('ignores headings and links inside fenced code and code spans', () => {
    const markdown =
      '```sh\n# not a heading\n[x](gone.md)\n```\n\nSee `[y](gone.md)` and [z](here.md).\n';
    expect([...anchorsOf(markdown)]).toEqual([]);
    expect(linksOf(markdown).map((l) => l.target)).toEqual(['here.md']);
  });
});

describe('checkLinks on a made-up repository', () => {
  const root = mkdtempSync(join(tmpdir(), 'sumlens-links-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reports a missing file, a missing anchor and a link out of the repository', () => {
    mkdirSync(join(root, 'docs'));
    writeFileSync(
      join(root, 'README.md'),
      [
        '# Start',
        '',
        '[ok](docs/a.md#a-heading) [self](#start) [web](https://example.com/x.md)',
        '[gone](docs/missing.md) [bad anchor](docs/a.md#no-such) [out](../elsewhere.md)',
        '',
        '[ref]: docs/also-missing.md',
      ].join('\n'),
    );
    writeFileSync(join(root, 'docs', 'a.md'), '# A heading\n\n[back](../README.md#start)\n');
    const problems = checkLinks(root).map((p) => `${p.file}:${p.line} ${p.target}`);
    expect(problems).toEqual([
      'README.md:4 docs/missing.md',
      'README.md:4 docs/a.md#no-such',
      'README.md:4 ../elsewhere.md',
      'README.md:6 docs/also-missing.md',
    ]);
  });
});
