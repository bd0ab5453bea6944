/**
 * The verdict reads what real metric modules decided (fact check, repetition) and draws it over
 * the summary: a changed number is a problem at its own offsets, a repeat is a check, and a
 * `not-flag` assertion fails on the finding's id.
 */
import { describe, expect, it } from 'vitest';
import { scoreFactCheck } from '../../../src/lib/metrics/lexical/fact-check/fact-check.ts';
import { scoreRepetition } from '../../../src/lib/metrics/lexical/repetition-offline/repetition.ts';
import { caseTokenizer } from '../../../src/lib/metrics/text/case-tokenizer.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';
import { findingsIn, countFindings } from '../../../src/lib/metrics/findings.ts';
import { segmentsOf, verdictOf } from '../../../src/lib/verdict/verdict.ts';
import { configYaml } from '../../../src/lib/assertions/config-text.ts';
import { findingCountText } from '../../../src/lib/verdict/words.ts';
import type { Assertion } from '../../../src/lib/assertions/assertion.ts';

const SOURCE =
  'Rescuers pulled 8,480 migrants from the Mediterranean over the weekend, the agency said on Tuesday. ' +
  'At least 400 of them were children travelling alone.';
const INVENTED =
  'Rescuers pulled 18,480 migrants from the sea over the weekend. ' +
  'At least 400 were children travelling alone, children travelling alone.';

async function results(summary: string): Promise<MetricResult[]> {
  const tokenizer = caseTokenizer('en');
  return [
    scoreFactCheck(SOURCE, summary, { tokenizer }),
    await scoreRepetition(summary, undefined, undefined, tokenizer),
  ];
}

describe('findings', () => {
  it('marks a changed number as a problem at its offsets and a repeat as a check', async () => {
    const found = findingsIn(await results(INVENTED));
    const fact = found.find((f) => f.id === 'fact-not-in-source');
    expect(fact).toMatchObject({ metric: 'fact-check', severity: 'problem', text: '18,480' });
    expect(INVENTED.slice(fact!.start, fact!.end)).toBe('18,480');
    expect(fact!.message.values).toMatchObject({ fact: '18,480', closest: '8,480' });
    const repeat = found.find((f) => f.id === 'repeated-phrase');
    expect(repeat).toMatchObject({ metric: 'repetition-offline', severity: 'check' });
    expect(INVENTED.slice(repeat!.start, repeat!.end)).toBe(repeat!.text);
    // Problems are counted first.
    expect(countFindings(found)[0]).toMatchObject({ id: 'fact-not-in-source', count: 1 });
  });

  it('finds nothing in a faithful summary, and reads a result without a score as none', async () => {
    const faithful = 'Rescuers pulled 8,480 migrants over the weekend; at least 400 were children.';
    expect(findingsIn(await results(faithful))).toEqual([]);
    const unscored = {
      id: 'fact-check',
      status: 'n/a',
      score: null,
      explanation: '',
      backend: 'x',
      details: { items: [{ found: false, start: 0, end: 3, text: 'abc' }] },
    } as MetricResult;
    expect(findingsIn([unscored])).toEqual([]);
  });
});

describe('verdict', () => {
  it('says problem, fails a not-flag check, and passes a score check it meets', async () => {
    const scored = await results(INVENTED);
    const checks: Assertion[] = [
      { kind: 'no-flag', flag: 'fact-not-in-source' },
      { kind: 'score', metric: 'repetition-offline', op: '>=', threshold: 0.1 },
      { kind: 'score', metric: 'bleu', op: '>=', threshold: 10 },
    ];
    const v = verdictOf(scored, checks, { pending: 0, total: 2 });
    expect(v.tone).toBe('problem');
    expect(v.outcomes.map((o) => o.outcome)).toEqual(['fail', 'pass', 'skip']);
    expect(v.checks).toBe('fail');
    expect(findingCountText(v.counts[0]!)).toBe('1 fact not in the source');
  });

  it('is running while a metric runs, clean when nothing is found', async () => {
    const clean = await results('Rescuers pulled 8,480 migrants over the weekend.');
    expect(verdictOf(clean, [], { pending: 1, total: 3 }).tone).toBe('running');
    const v = verdictOf(clean, [], { pending: 0, total: 2 });
    expect(v.tone).toBe('clean');
    expect(v.checks).toBeUndefined();
  });

  it('cuts the summary at each finding and numbers the marks in text order', async () => {
    const v = verdictOf(await results(INVENTED), [], { pending: 0, total: 2 });
    const segments = segmentsOf(INVENTED, v.located);
    expect(segments.map((s) => s.text).join('')).toBe(INVENTED);
    const marked = segments.filter((s) => s.notes.length > 0);
    expect(marked[0]).toMatchObject({ text: '18,480', severity: 'problem', item: true });
    expect(marked[0]!.endingNotes).toEqual([1]);
    // Every located finding ends exactly once.
    const ends = segments.flatMap((s) => s.endingNotes).sort((a, b) => a - b);
    expect(ends).toEqual(v.located.map((_, i) => i + 1));
  });

  it('drops a finding whose text is not where it says (a result of another summary)', () => {
    const stale = findingsIn([
      {
        id: 'fact-check',
        status: 'ok',
        score: 0,
        explanation: '',
        backend: 'x',
        details: { items: [{ found: false, start: 0, end: 5, text: 'other' }] },
      } as MetricResult,
    ]);
    expect(segmentsOf('A summary.', stale).every((s) => s.notes.length === 0)).toBe(true);
  });
});

describe('checks as config text', () => {
  it('writes the assert block the CLI reads', () => {
    expect(
      configYaml([
        { kind: 'score', metric: 'fact-check', op: '>=', threshold: 0.9 },
        { kind: 'score', metric: 'repetition-offline', op: '<=', threshold: 0.2 },
        { kind: 'no-flag', flag: 'lead-copy' },
      ]),
    ).toBe(
      [
        'assert:',
        '  - type: fact-check',
        '    threshold: 0.9',
        '  - type: not-repetition-offline',
        '    threshold: 0.2',
        '  - type: not-flag',
        '    value: lead-copy',
        '',
      ].join('\n'),
    );
  });
});
