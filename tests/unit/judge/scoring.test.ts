import { describe, expect, it } from 'vitest';
import {
  alignmentScore,
  allowedScores,
  countVerdicts,
  coverageScore,
  fBeta,
  fromSamples,
  greedyScore,
  normaliseScoreToken,
  parseScoreFromText,
  toUnit,
  weightFromLogprobs,
} from '../../../src/lib/metrics/judge/scoring.ts';
import type { TokenLogprob } from '../../../src/lib/llm/types.ts';

const ln = Math.log;

describe('F-beta of alignment and coverage', () => {
  // p = 0.8, r = 0.5.
  it('beta 1 is F1: 2·0.4 / 1.3', () => {
    expect(fBeta(0.8, 0.5, 1)).toBeCloseTo(0.8 / 1.3, 12);
  });
  it('beta 0.5 weights precision: 1.25·0.4 / (0.25·0.8 + 0.5) = 0.5 / 0.7', () => {
    expect(fBeta(0.8, 0.5, 0.5)).toBeCloseTo(0.5 / 0.7, 12);
  });
  it('beta 2 weights recall: 5·0.4 / (4·0.8 + 0.5) = 2 / 3.7', () => {
    expect(fBeta(0.8, 0.5, 2)).toBeCloseTo(2 / 3.7, 12);
  });
  it('is 0 when both are 0, and equals p when p = r', () => {
    expect(fBeta(0, 0)).toBe(0);
    expect(fBeta(0.7, 0.7, 3)).toBeCloseTo(0.7, 12);
    expect(() => fBeta(0.5, 0.5, 0)).toThrow(/beta/u);
  });
});

describe('alignment with the unsupported switch', () => {
  const counts = countVerdicts([
    ...Array<'supported'>(6).fill('supported'),
    'contradicted',
    ...Array<'unsupported'>(3).fill('unsupported'),
  ]);
  it('counts verdicts', () => {
    expect(counts).toEqual({ supported: 6, contradicted: 1, unsupported: 3 });
  });
  it('unsupported counts against: 6 / 10', () => {
    expect(alignmentScore(counts, true)).toBeCloseTo(0.6, 12);
  });
  it('unsupported neutral: 6 / 7', () => {
    expect(alignmentScore(counts, false)).toBeCloseTo(6 / 7, 12);
  });
  it('nothing counted → null', () => {
    expect(alignmentScore({ supported: 0, contradicted: 0, unsupported: 2 }, false)).toBeNull();
    expect(alignmentScore({ supported: 0, contradicted: 0, unsupported: 0 }, true)).toBeNull();
  });
});

describe('importance-weighted coverage', () => {
  it('Σ importance·grade/5 / Σ importance = (5 + 0 + 1.2) / 8', () => {
    const items = [
      { importance: 5, grade: 5 },
      { importance: 1, grade: 0 },
      { importance: 2, grade: 3 },
    ];
    expect(coverageScore(items)).toBeCloseTo(6.2 / 8, 12);
    // The unweighted mean would be (1 + 0 + 0.6) / 3: the importances matter.
    expect(coverageScore(items)).not.toBeCloseTo(1.6 / 3, 3);
  });
  it('null without questions', () => {
    expect(coverageScore([])).toBeNull();
  });
});

function tok(token: string, p: number, top: Array<[string, number]> = []): TokenLogprob {
  return { token, logprob: ln(p), top: top.map(([t, lp]) => ({ token: t, logprob: lp })) };
}

describe('G-Eval probability weighting from logprobs (PROVIDERS.md §12.1–12.2)', () => {
  // Score token " 4" with alternatives: " 4" 0.6, "▁3" 0.2, "5" 0.1, "**" 0.05 (not a digit),
  // "2" at −9999 (outside the top 20), "1" 0.005 (under 1%).
  // Kept: 4: 0.6, 3: 0.2, 5: 0.1 → mass 0.9 → p = 2/3, 2/9, 1/9.
  // mean = 8/3 + 6/9 + 5/9 = 35/9; variance = (2/3)(1/9)² + (2/9)(8/9)² + (1/9)(10/9)² = 234/729.
  const top: Array<[string, number]> = [
    [' 4', ln(0.6)],
    ['▁3', ln(0.2)],
    ['5', ln(0.1)],
    ['**', ln(0.05)],
    ['2', -9999],
    ['1', ln(0.005)],
  ];
  const tokens = [
    tok('I', 0.9),
    tok(' gave', 0.9),
    // An earlier " 4" in the reasoning with a different top list: must be ignored.
    tok(' 4', 0.5, [
      [' 4', ln(0.5)],
      [' 2', ln(0.5)],
    ]),
    tok(' points', 0.9),
    tok('.', 0.9),
    tok('Final', 0.9),
    tok(' score', 0.9),
    tok(':', 0.9),
    tok(' 4', 0.6, top),
  ];

  it('weights the LAST score token, drops <1%, −9999 and non-digits, renormalises', () => {
    const d = weightFromLogprobs(tokens, 4, [1, 5]);
    expect(d).not.toBeNull();
    expect(d!.method).toBe('logprobs');
    expect(d!.scoreTokenIndex).toBe(8);
    expect(d!.mean).toBeCloseTo(35 / 9, 12);
    expect(d!.std).toBeCloseTo(Math.sqrt(234 / 729), 12);
    expect(d!.coveredMass).toBeCloseTo(0.9, 12);
    expect(d!.lowCoverage).toBe(false);
    const p = Object.fromEntries(d!.distribution.map((b) => [b.score, b.p]));
    expect(p).toEqual({
      1: 0,
      2: 0,
      3: expect.closeTo(2 / 9, 12),
      4: expect.closeTo(2 / 3, 12),
      5: expect.closeTo(1 / 9, 12),
    });
  });

  it('merges the same score under different spellings (" 4", "4", "Ġ4")', () => {
    const t = [
      tok('4', 0.5, [
        ['4', ln(0.3)],
        [' 4', ln(0.2)],
        ['Ġ4', ln(0.1)],
        ['5', ln(0.4)],
      ]),
    ];
    const d = weightFromLogprobs(t, 4, [1, 5])!;
    expect(d.coveredMass).toBeCloseTo(1, 12);
    expect(d.mean).toBeCloseTo(0.6 * 4 + 0.4 * 5, 12);
  });

  it('flags covered mass under 0.5', () => {
    const t = [
      tok('4', 0.3, [
        ['**', ln(0.6)],
        ['4', ln(0.3)],
        ['3', ln(0.1)],
      ]),
    ];
    const d = weightFromLogprobs(t, 4, [1, 5])!;
    expect(d.coveredMass).toBeCloseTo(0.4, 12);
    expect(d.lowCoverage).toBe(true);
    expect(d.mean).toBeCloseTo(3.75, 12);
  });

  it('ignores digits outside the scale (fluency 1–3)', () => {
    const t = [
      tok('3', 0.5, [
        ['3', ln(0.5)],
        ['4', ln(0.3)],
        ['2', ln(0.2)],
      ]),
    ];
    const d = weightFromLogprobs(t, 3, [1, 3])!;
    expect(d.mean).toBeCloseTo((0.5 * 3 + 0.2 * 2) / 0.7, 12);
    expect(d.distribution.map((b) => b.score)).toEqual([1, 2, 3]);
  });

  it('null (greedy fallback) when nothing usable: no raw score, half point, no matching token, all dropped', () => {
    expect(weightFromLogprobs(tokens, null, [1, 5])).toBeNull();
    expect(weightFromLogprobs(tokens, 3.5, [1, 5])).toBeNull();
    expect(weightFromLogprobs(tokens, 2, [1, 5])).toBeNull();
    expect(weightFromLogprobs([tok('4', 0.5, [['4', -9999]])], 4, [1, 5])).toBeNull();
  });

  it('uses the token itself when the provider sent no alternatives', () => {
    const d = weightFromLogprobs([tok(' 5', 0.8)], 5, [1, 5])!;
    expect(d.mean).toBe(5);
    expect(d.coveredMass).toBeCloseTo(0.8, 12);
  });

  it('normalises score tokens', () => {
    expect(normaliseScoreToken(' 4')).toBe('4');
    expect(normaliseScoreToken('▁3')).toBe('3');
    expect(normaliseScoreToken('Ġ5 ')).toBe('5');
  });
});

describe('G-Eval from samples and greedy', () => {
  it('samples [4, 4, 5, invalid, 3]: p = ½, ¼, ¼; mean 4; std √0.5', () => {
    const d = fromSamples([4, 4, 5, null, 3], [1, 5])!;
    expect(d.method).toBe('sampling');
    expect(d.mean).toBeCloseTo(4, 12);
    expect(d.std).toBeCloseTo(Math.sqrt(0.5), 12);
    expect(d.invalidSamples).toBe(1);
    expect(d.distribution.find((b) => b.score === 4)!.p).toBeCloseTo(0.5, 12);
    expect(fromSamples([null, null], [1, 5])).toBeNull();
  });

  it('keeps a half point as its own bar', () => {
    const d = fromSamples([3.5, 4], [1, 5])!;
    expect(d.mean).toBeCloseTo(3.75, 12);
    expect(d.distribution.map((b) => b.score)).toEqual([1, 2, 3, 3.5, 4, 5]);
  });

  it('greedy: all mass on the score, no spread', () => {
    const d = greedyScore(3, [1, 5]);
    expect(d).toMatchObject({ method: 'greedy', mean: 3, std: 0, coveredMass: null });
    expect(d.distribution.filter((b) => b.p > 0)).toEqual([{ score: 3, p: 1 }]);
  });

  it('maps scales to [0, 1]', () => {
    expect(toUnit(4, [1, 5])).toBeCloseTo(0.75, 12);
    expect(toUnit(0, [0, 9])).toBe(0);
    expect(allowedScores([0, 3])).toEqual([0, 1, 2, 3]);
  });
});

describe('parseScoreFromText', () => {
  const cases: Array<[string, number | null]> = [
    ['Flows well. Final score: 4.', 4],
    ['Final score: **5**', 5],
    ['It mentions 16 attempts and 15 penalties. Final score: 2', 2],
    ['so I would give it a score of 3.5.', 3.5],
    ['Score: 1.', 1],
    ['incorrectly states the score as 2-1 instead of 6-1, so I give it a score of 1.', 1],
    ['The summary scored 15 of 16. 2.', 2],
    ['mostly fluent. 3/5', 3],
    ['a small error in the last sentence, so I would give it a 4.5 for fluency.', 4.5],
    ['unnecessary details, making it a 4 out of 5 for relevance.', 4],
    ['Rating: 2', 2],
    ['4', 4],
    ['Final score: 7', null],
    ['No number here.', null],
  ];
  it.each(cases)('%s → %s', (text, expected) => {
    expect(parseScoreFromText(text, [1, 5])).toBe(expected);
  });
});
