import { describe, expect, it } from 'vitest';
import {
  classificationScore,
  extractFirstLine,
} from '../../../../src/lib/metrics/lexical/classification.ts';

describe('classificationScore (LongBench)', () => {
  const classes = ['Location', 'Other location', 'City', 'Date'];

  it('scores 1 for the only matching label and 0 for a wrong one', () => {
    expect(classificationScore('City', 'City', classes)).toBe(1);
    expect(classificationScore('Date', 'City', classes)).toBe(0);
    expect(classificationScore('nothing', 'City', classes)).toBe(0);
  });

  it('drops labels contained in the ground truth, and splits credit between other matches', () => {
    // 'Location' is not a substring of 'Other location' (case), so both remain.
    expect(classificationScore('Other location', 'Other location', classes)).toBe(1);
    expect(classificationScore('City or Date', 'City', classes)).toBe(0.5);
  });

  it('reproduces Python’s skip-after-remove while iterating', () => {
    // matches [A, AB, B, ABC]; Python removes A, skips AB, removes B → [AB, ABC] → 1/2.
    expect(classificationScore('ABC', 'ABC', ['A', 'AB', 'B', 'ABC'])).toBe(0.5);
  });
});

describe('extractFirstLine', () => {
  it('is pred.lstrip("\\n").split("\\n")[0]', () => {
    expect(extractFirstLine('\n\nLocation\nmore')).toBe('Location');
    expect(extractFirstLine(' Location')).toBe(' Location');
    expect(extractFirstLine(' \nX')).toBe(' ');
    expect(extractFirstLine('')).toBe('');
  });
});
