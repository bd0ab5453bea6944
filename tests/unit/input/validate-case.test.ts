import { describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARS, validateCase } from '../../../src/lib/input/validate-case.ts';

const ok = { source: 'A source text that is long enough.', summary: 'A summary.' };

describe('validateCase', () => {
  it('accepts an ordinary case', () => {
    expect(validateCase(ok)).toEqual([]);
  });

  it('asks for a missing source or summary, each by name', () => {
    const problems = validateCase({ source: '  ', summary: '' });
    expect(problems.map((p) => [p.field, p.blocking])).toEqual([
      ['source', true],
      ['summary', true],
    ]);
    expect(problems[0]?.message).toMatch(/source/u);
  });

  it('accepts a 1 MB text and refuses one over the limit with the sizes', () => {
    expect(validateCase({ ...ok, source: 'word '.repeat(200_000) })).toEqual([]);
    const [problem] = validateCase({ ...ok, source: 'x'.repeat(MAX_TEXT_CHARS + 1) });
    expect(problem).toMatchObject({ field: 'source', blocking: true });
    expect(problem?.message).toMatch(/2,000,001 characters/u);
  });

  it('refuses binary-looking text', () => {
    expect(validateCase({ ...ok, summary: 'abc\u0000def' })[0]?.message).toMatch(/binary/u);
    const garbled = 'text'.repeat(10) + '\ufffd\u0003'.repeat(10);
    expect(validateCase({ ...ok, reference: garbled })[0]).toMatchObject({
      field: 'reference',
      blocking: true,
    });
  });

  it('warns, without blocking, when the summary is longer than the source', () => {
    const [problem] = validateCase({ source: 'short', summary: 'a much longer summary text' });
    expect(problem).toMatchObject({ field: 'summary', blocking: false });
  });
});
