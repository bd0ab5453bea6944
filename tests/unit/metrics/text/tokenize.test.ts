import { describe, expect, it } from 'vitest';
import {
  countTokens,
  guessLocale,
  hasCjk,
  normalizeText,
  splitSentences,
  splitTokens,
  splitWords,
  WORD_CHUNK,
} from '../../../../src/lib/metrics/text/tokenize.ts';

const texts = (segments: readonly { text: string }[]) => segments.map((s) => s.text);

describe('sentences', () => {
  it('splits English prose and keeps titles and initials inside their sentence', () => {
    const text = 'Mr. Smith went to Washington. He met the U.S. president. J. R. Tolkien wrote it.';
    expect(texts(splitSentences(text))).toEqual([
      'Mr. Smith went to Washington.',
      'He met the U.S. president.',
      'J. R. Tolkien wrote it.',
    ]);
  });

  it('treats line breaks as boundaries (bullet lists, headlines)', () => {
    expect(texts(splitSentences('Headline without stop\n- first point\n- second point'))).toEqual([
      'Headline without stop',
      '- first point',
      '- second point',
    ]);
  });

  it('splits Chinese, Japanese, Russian and Indonesian', () => {
    expect(texts(splitSentences('他来到了北京。我很高兴！你呢？'))).toEqual([
      '他来到了北京。',
      '我很高兴！',
      '你呢？',
    ]);
    expect(texts(splitSentences('今日は晴れです。明日は雨でしょう。'))).toHaveLength(2);
    expect(texts(splitSentences('Москва — столица России. Там живёт много людей.'))).toHaveLength(
      2,
    );
    expect(texts(splitSentences('Saya makan nasi. Dia minum teh.'))).toHaveLength(2);
  });

  it('returns offsets into the original string', () => {
    const text = '  First one.   Second one.\n\nThird.';
    for (const s of splitSentences(text)) expect(text.slice(s.start, s.end)).toBe(s.text);
  });

  it('returns nothing for empty or blank text', () => {
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences(' \n\t ')).toEqual([]);
  });
});

describe('words and tokens', () => {
  it("keeps the last texts' words: a source split again costs nothing, and answers the same", () => {
    const source = 'The council met on Monday. It approved the budget, which rises 3.5% in 2027.';
    const first = splitWords(source);
    expect(splitWords(source)).toBe(first);
    // An equal text built anew (another row with the same source) finds the same words.
    expect(splitWords([...source].join(''))).toBe(first);
    // The locale is part of the key: the same characters under another locale are split anew.
    expect(splitWords(source, 'ja')).not.toBe(first);
    expect(texts(splitWords(source, 'ja'))).toEqual(texts(first));
    expect(texts(first)).toEqual([
      'The',
      'council',
      'met',
      'on',
      'Monday',
      'It',
      'approved',
      'the',
      'budget',
      'which',
      'rises',
      '3.5',
      'in',
      '2027',
    ]);
  });

  it('does not keep a text longer than the whole cache', () => {
    const huge = 'x'.repeat(700_000);
    const first = splitWords(huge);
    expect(texts(first).join('')).toBe(huge);
    expect(splitWords(huge)).not.toBe(first);
  });

  it('segments CJK into words, not one token per text', () => {
    expect(texts(splitWords('我来到北京清华大学'))).toEqual(['我', '来到', '北京', '清华大学']);
    expect(splitWords('私は東京に住んでいます').length).toBeGreaterThan(3);
  });

  it('segments Cyrillic and Indonesian words', () => {
    expect(texts(splitWords('Привет, мир! Saya makan nasi.'))).toEqual([
      'Привет',
      'мир',
      'Saya',
      'makan',
      'nasi',
    ]);
  });

  it('counts words and punctuation as tokens, one token per mark', () => {
    expect(texts(splitTokens('He said: "No." 20%.'))).toEqual([
      'He',
      'said',
      ':',
      '"',
      'No',
      '.',
      '"',
      '20',
      '%',
      '.',
    ]);
    expect(countTokens('')).toBe(0);
  });
});

describe('script detection and normalisation', () => {
  it('detects CJK and picks a segmenter locale', () => {
    expect(hasCjk('plain English')).toBe(false);
    expect(hasCjk('混合 text')).toBe(true);
    expect(guessLocale('ひらがなと漢字')).toBe('ja');
    expect(guessLocale('汉字')).toBe('zh');
    expect(guessLocale('한국어')).toBe('ko');
    expect(guessLocale('English')).toBeUndefined();
  });

  it('normalises width and whitespace', () => {
    expect(normalizeText('  Ｆｕｌｌ\u00a0width\n\ntext ')).toBe('Full width text');
  });
});

describe('long texts are segmented piece by piece', () => {
  /** What one Intl.Segmenter pass over the whole string gives (slow on Node 20's V8). */
  function wholeWords(text: string, locale?: string) {
    return [...new Intl.Segmenter(locale, { granularity: 'word' }).segment(text)]
      .filter((p) => p.isWordLike)
      .map((p) => ({ text: p.segment, start: p.index, end: p.index + p.segment.length }));
  }

  const long = (sentence: string) =>
    sentence.repeat(Math.ceil((WORD_CHUNK * 2.5) / sentence.length));

  it.each([
    ['English', long('The council approved the budget on Monday, after a debate.  '), undefined],
    ['Chinese', long('市议会周一批准了预算，辩论持续了很久。'), 'zh'],
    ['Japanese', long('市議会は月曜日に予算を承認しました。議論は長く続きました！'), 'ja'],
    ['Thai', long('สภาเมืองอนุมัติงบประมาณในวันจันทร์ '), undefined],
    ['mixed with emoji', long('Rain 🌧️ fell; 雨が降った。 Ríos crecieron.\n'), undefined],
  ])('%s: the same words and offsets as one pass', (_name, text, locale) => {
    expect(text.length).toBeGreaterThan(WORD_CHUNK * 2);
    expect(splitWords(text, locale)).toEqual(wholeWords(text, locale));
  });

  it('a token longer than a piece is cut, never inside a surrogate pair, and offsets hold', () => {
    const blob = '𝔸'.repeat(WORD_CHUNK) + ' tail';
    const words = splitWords(blob);
    for (const w of words) expect(blob.slice(w.start, w.end)).toBe(w.text);
    expect(words.map((w) => w.text).join('')).toBe(blob.replace(' ', ''));
    expect(words.at(-1)!.text).toBe('tail');
  });
});
