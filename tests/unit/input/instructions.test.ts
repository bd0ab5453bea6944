import { describe, expect, it } from 'vitest';
import { parseInstructions } from '../../../src/lib/input/instructions.ts';

describe('parseInstructions', () => {
  it('reads free and categorical sections, skipping blanks and comments', () => {
    const { sections, problems } = parseInstructions(
      '# call summary\nOutcome: Was the issue resolved? [resolved | unresolved | escalated]\n\nNext steps: What the agent promised.',
    );
    expect(problems).toEqual([]);
    expect(sections).toEqual([
      {
        name: 'Outcome',
        instruction: 'Was the issue resolved?',
        categories: ['resolved', 'unresolved', 'escalated'],
      },
      { name: 'Next steps', instruction: 'What the agent promised.' },
    ]);
  });

  it('names the line of each problem and keeps the good lines', () => {
    const { sections, problems } = parseInstructions('no colon here\nTone: [formal]\nA: fine');
    expect(sections).toEqual([{ name: 'A', instruction: 'fine' }]);
    expect(problems[0]).toMatch(/line 1/u);
    expect(problems[1]).toMatch(/line 2: a categorical section needs at least two values/u);
  });

  it('accepts a JSON array of sections and reports a bad one', () => {
    expect(
      parseInstructions('[{"name":"Outcome","instruction":"x","categories":["a","b"]}]').sections,
    ).toHaveLength(1);
    expect(parseInstructions('[{"name":""}]').problems[0]).toMatch(/Instructions JSON/u);
    expect(parseInstructions('[oops').problems[0]).toMatch(/do not parse/u);
  });
});
