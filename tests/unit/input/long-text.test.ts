/** What a box does with a text too long to hold (input/long-text.ts) and the language sample. */
import { describe, expect, it } from 'vitest';
import { longText } from '../../../bench/long-paste-text.ts';
import {
  LARGE_TEXT_CHARS,
  isLargeText,
  spliced,
  spreadSample,
  textPreview,
  textareaNewlines,
} from '../../../src/lib/input/long-text.ts';
import { countWords } from '../../../src/lib/metrics/text/tokenize.ts';
import { caseLanguageSample } from '../../../src/lib/state/case-language.svelte.ts';

describe('a text too long for a box', () => {
  it('is one over the threshold, not at it', () => {
    expect(isLargeText('a'.repeat(LARGE_TEXT_CHARS))).toBe(false);
    expect(isLargeText('a'.repeat(LARGE_TEXT_CHARS + 1))).toBe(true);
  });

  it('is previewed by its start and its end, cut between words, the rest counted', () => {
    const { text } = longText(5_000);
    const preview = textPreview(text, 2_000, 600);
    expect(text.startsWith(preview.head)).toBe(true);
    expect(text.endsWith(preview.tail)).toBe(true);
    expect(preview.head.length + preview.hidden + preview.tail.length).toBe(text.length);
    expect(preview.head.length).toBeLessThanOrEqual(2_000);
    // Cut at whitespace: the last character shown before the gap ends a word.
    expect(/\s/u.test(text[preview.head.length - 1]!)).toBe(true);
    expect(/\s/u.test(text[text.length - preview.tail.length - 1]!)).toBe(true);
  });

  it('shows a short text whole', () => {
    expect(textPreview('A short text.')).toEqual({ head: 'A short text.', tail: '', hidden: 0 });
  });

  it('never cuts a surrogate pair in two', () => {
    const text = '😀'.repeat(3_000);
    const { head, tail } = textPreview(text, 1_001, 301);
    expect(head.length % 2).toBe(0);
    expect(tail.length % 2).toBe(0);
  });

  it('pastes over the selection as a textarea would, with its line ends', () => {
    expect(spliced('one two three', 4, 7, 'TWO')).toBe('one TWO three');
    expect(spliced('ab', 2, 2, 'c')).toBe('abc');
    expect(textareaNewlines('a\r\nb\rc\nd')).toBe('a\nb\nc\nd');
  });
});

describe('the language sample of a long case', () => {
  it('is the text itself when short', () => {
    expect(spreadSample('short', 4_000, 3)).toBe('short');
    expect(caseLanguageSample({ source: 'Le chat dort.', summary: 'Un chat.' })).toBe(
      'Le chat dort.\nUn chat.',
    );
  });

  it('reads the start, the middle and the end of a long source, and the summary’s start', () => {
    const source = `${'alpha '.repeat(5_000)}${'beta '.repeat(5_000)}${'gamma '.repeat(5_000)}`;
    const sample = caseLanguageSample({ source, summary: 'delta '.repeat(5_000) });
    expect(sample.length).toBeLessThan(17_000);
    expect(sample.startsWith('alpha')).toBe(true);
    expect(sample).toContain('beta');
    expect(sample).toContain('gamma');
    expect(sample).toContain('delta');
    // Whole words only.
    for (const word of sample.split(/\s+/u).filter(Boolean)) {
      expect(['alpha', 'beta', 'gamma', 'delta']).toContain(word);
    }
  });
});

describe('the bench and e2e text', () => {
  it('has exactly the words asked for, as the app counts them', () => {
    for (const words of [1_000, 12_345]) {
      const made = longText(words);
      expect(made.words).toBe(words);
      expect(countWords(made.text)).toBe(words);
    }
  });
});
