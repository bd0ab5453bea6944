/**
 * The one-scan shortcuts of the script checks never change an answer: every character they let
 * through without a look is one the full check would not have counted.
 */
import { describe, expect, it } from 'vitest';
import { BEYOND_LATIN, languageFromScript } from '../../../../src/lib/metrics/text/language.ts';
import { nonLatinShare } from '../../../../src/lib/metrics/lexical/reference/rouge-tokenize.ts';

const OTHER_SCRIPT =
  /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Han}\p{Script=Cyrillic}\p{Script=Thai}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Greek}\p{Script=Devanagari}]/u;

/** nonLatinShare as it was, character by character. */
function slowNonLatinShare(text: string): number {
  let kept = 0;
  let lost = 0;
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (code < 0x80) {
      if ((code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a))
        kept++;
    } else if (/[\p{L}\p{N}]/u.test(ch) && !/\p{Script=Latin}/u.test(ch)) {
      lost++;
    }
  }
  return lost === 0 ? 0 : lost / (kept + lost);
}

/** Every code point of the Basic Multilingual Plane, and a stretch of each plane above it. */
function* codePoints(): Generator<string> {
  for (let c = 0; c <= 0xffff; c++) if (c < 0xd800 || c > 0xdfff) yield String.fromCodePoint(c);
  for (let plane = 1; plane <= 16; plane++) {
    for (let c = plane * 0x10000; c < plane * 0x10000 + 0x400; c++) yield String.fromCodePoint(c);
  }
}

describe('the scripts one scan lets through', () => {
  it('nonLatinShare gives what the full count gives, for every character next to Latin text', () => {
    const wrong: string[] = [];
    for (const ch of codePoints()) {
      const text = `word ${ch} 12`;
      if (nonLatinShare(text) !== slowNonLatinShare(text))
        wrong.push(ch.codePointAt(0)!.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  it('no letter of a script languageFromScript counts is outside BEYOND_LATIN', () => {
    const missed: string[] = [];
    for (const ch of codePoints()) {
      if (!BEYOND_LATIN.test(ch) && OTHER_SCRIPT.test(ch))
        missed.push(ch.codePointAt(0)!.toString(16));
    }
    expect(missed).toEqual([]);
  });

  it('still finds the script of a text with a few Latin-range symbols', () => {
    expect(languageFromScript('Привет, мир — “цитата” £5 µ')).toBe('ru');
    expect(languageFromScript('Plain “English” text — with £5 and µ.')).toBeUndefined();
    expect(nonLatinShare('résumé ² ½ µ')).toBeGreaterThan(0);
  });
});
