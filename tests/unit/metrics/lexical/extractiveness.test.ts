import { describe, expect, it } from 'vitest';
import {
  EXTRACTIVENESS_BACKEND,
  extractivenessSpans,
  fragmentStats,
  greedyFragments,
  novelNgramRate,
  scoreExtractiveness,
  VERBATIM_LABEL,
  verbatimSentences,
  lexicalTokens,
} from '../../../../src/lib/metrics/lexical/extractiveness/extractiveness.ts';
import { splitSentences } from '../../../../src/lib/metrics/text/tokenize.ts';
import { scored } from '../scored.ts';

const keys = (text: string) => lexicalTokens(text).map((t) => t.key);
const FOX = keys('The quick brown fox jumps over the lazy dog');

describe('greedyFragments (Grusky et al. 2018, Algorithm 1)', () => {
  it('takes at each summary word the longest copied run, then jumps past it', () => {
    // "the lazy" matches source words 6–7 (longer than "the" at 0); "fox jumps over the" 3–6;
    // "dog" 8.
    expect(greedyFragments(keys('the lazy fox jumps over the dog'), FOX)).toEqual([
      { at: 0, length: 2, sourceAt: 6 },
      { at: 2, length: 4, sourceAt: 3 },
      { at: 6, length: 1, sourceAt: 8 },
    ]);
  });

  it('resumes the source scan after a match, as the paper does', () => {
    // At summary word 0 the match at source 0 ("a a") ends at 2, so the start at 1 ("a a b")
    // is never tried: fragments of 2 and 1 words, not one of 3.
    expect(greedyFragments(['a', 'a', 'b'], ['a', 'a', 'a', 'b'])).toEqual([
      { at: 0, length: 2, sourceAt: 0 },
      { at: 2, length: 1, sourceAt: 3 },
    ]);
  });

  it('leaves novel words outside every fragment', () => {
    expect(greedyFragments(keys('a fox jumps high'), FOX)).toEqual([
      { at: 1, length: 2, sourceAt: 3 },
    ]);
  });
});

describe('fragment statistics', () => {
  it('coverage, density, compression and the longest fragment, by hand', () => {
    const summary = keys('the lazy fox jumps over the dog');
    // Fragments of 2, 4 and 1 words over 7 summary words and 9 source words.
    expect(fragmentStats(greedyFragments(summary, FOX), summary.length, FOX.length)).toEqual({
      coverage: 1,
      density: (4 + 16 + 1) / 7,
      compression: 9 / 7,
      longest: 4,
    });
    const novel = keys('a fox jumps high');
    expect(fragmentStats(greedyFragments(novel, FOX), 4, 9)).toEqual({
      coverage: 2 / 4,
      density: 4 / 4,
      compression: 9 / 4,
      longest: 2,
    });
  });

  it('novel n-gram rates count summary n-grams the source never has', () => {
    // Bigrams "the lazy" (in the source), "lazy fox" (not), "fox jumps" (in): 1 of 3.
    expect(novelNgramRate(keys('the lazy fox jumps'), FOX, 2)).toEqual({
      n: 2,
      novel: 1,
      total: 3,
      rate: 1 / 3,
    });
    expect(novelNgramRate(keys('the dog'), FOX, 4)).toEqual({
      n: 4,
      novel: 0,
      total: 0,
      rate: null,
    });
  });
});

describe('verbatim sentences', () => {
  const source = 'The cat sat on the mat. It was happy all day.';

  it('finds summary sentences whose words the source has whole and in order', () => {
    const summary = 'Rain fell on the town today. The cat sat on the mat.';
    const tokens = lexicalTokens(summary);
    const found = verbatimSentences(splitSentences(summary), tokens, keys(source));
    expect(found).toEqual([
      { index: 1, start: 29, end: 52, text: 'The cat sat on the mat.', sourceAt: 0 },
    ]);
  });

  it('ignores sentences under four words and ones copied only in part', () => {
    const summary = 'It was happy. The cat sat on a mat.';
    expect(
      verbatimSentences(splitSentences(summary), lexicalTokens(summary), keys(source)),
    ).toEqual([]);
  });
});

describe('scoreExtractiveness', () => {
  it('scores fragment coverage and says it measures copying', () => {
    const source = 'The cat sat on the mat. It was happy all day.';
    const summary = 'The cat sat on the mat. A dog barked.';
    const result = scored(scoreExtractiveness(source, summary));
    // 6 of 9 words copied ("the cat sat on the mat"); "a", "dog" and "barked" are not in the source.
    expect(result.score).toBeCloseTo(6 / 9, 12);
    expect(result.backend).toBe(EXTRACTIVENESS_BACKEND);
    expect(result.details.stats.density).toBeCloseTo(36 / 9, 12);
    expect(result.details.verbatim.map((v) => v.index)).toEqual([0]);
    expect(result.details.longestFragment).toEqual({
      start: 0,
      end: 22,
      text: 'The cat sat on the mat',
      words: 6,
    });
    expect(result.explanation).toMatch(/measures copying, not quality/u);
  });

  it('marks a verbatim sentence as one span and shades the other fragments by length', () => {
    const source = 'The cat sat on the mat. It was happy all day long.';
    const summary = 'The cat sat on the mat. Later it was happy all day.';
    const details = scored(scoreExtractiveness(source, summary)).details;
    expect(extractivenessSpans(details)).toEqual([
      { start: 0, end: 23, text: 'The cat sat on the mat.', label: VERBATIM_LABEL },
      { start: 30, end: 50, text: 'it was happy all day', label: 'copied, 5 words' },
    ]);
  });

  it('is not applicable without a source or without summary words', () => {
    expect(scoreExtractiveness('', 'A summary.')).toMatchObject({
      status: 'n/a',
      reason: 'needs the source text',
    });
    expect(scoreExtractiveness('A source.', ' … ')).toMatchObject({
      status: 'n/a',
      reason: 'the summary has no words',
    });
  });
});
