import { describe, expect, it } from 'vitest';
import {
  isContentWord,
  salientWordRecall,
  salientWords,
  scoreSourceCoverage,
  SOURCE_COVERAGE_BACKEND,
} from '../../../../src/lib/metrics/lexical/source-coverage/source-coverage.ts';
import { lexicalTokens } from '../../../../src/lib/metrics/lexical/extractiveness/extractiveness.ts';
import { scored } from '../scored.ts';

const SOURCE =
  'Police arrested the driver. The driver was charged. Police said the charges were serious.';

describe('salient words', () => {
  it('drops stopwords, words without letters and single letters', () => {
    expect(['the', 'was', 'said', '2015', 'x'].map(isContentWord)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(isContentWord('driver')).toBe(true);
  });

  it('ranks content stems by frequency, ties by first use; "charged" and "charges" are one', () => {
    expect(salientWords(lexicalTokens(SOURCE)).map((w) => [w.word, w.count])).toEqual([
      ['police', 2],
      ['driver', 2],
      ['charged', 2],
      ['arrested', 1],
      ['serious', 1],
    ]);
    expect(salientWords(lexicalTokens(SOURCE), 2).map((w) => w.word)).toEqual(['police', 'driver']);
  });
});

describe('scoreSourceCoverage', () => {
  it('recalls salient words and the lead sentences, by hand', () => {
    const result = scored(scoreSourceCoverage(SOURCE, 'The driver faces charges.'));
    // "driver" and "charges" (stem of "charged") of police, driver, charged, arrested, serious.
    expect(result.score).toBeCloseTo(2 / 5, 12);
    expect(result.backend).toBe(SOURCE_COVERAGE_BACKEND);
    expect(result.details.words.filter((w) => w.covered).map((w) => w.word)).toEqual([
      'driver',
      'charged',
    ]);
    // Sentence content stems used: 1 of {police, arrested, driver}; 2 of {driver, charged};
    // 1 of {police, charges, serious}. Covered from half: only the second.
    expect(result.details.sentences.map((s) => [s.used, s.stems, s.covered])).toEqual([
      [1, 3, false],
      [2, 2, true],
      [1, 3, false],
    ]);
    expect(result.details.sentenceRecall).toBeCloseTo(1 / 3, 12);
    expect(salientWordRecall(SOURCE, 'The driver faces charges.')).toBeCloseTo(2 / 5, 12);
  });

  it('is not applicable without a source, content words or summary words', () => {
    expect(scoreSourceCoverage('', 'text')).toMatchObject({ reason: 'needs the source text' });
    expect(scoreSourceCoverage('It was the one.', 'text')).toMatchObject({
      reason: 'the source has no content words',
    });
    expect(scoreSourceCoverage(SOURCE, '...')).toMatchObject({
      reason: 'the summary has no words',
    });
  });
});
