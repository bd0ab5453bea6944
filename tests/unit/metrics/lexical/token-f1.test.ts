import { describe, expect, it } from 'vitest';
import {
  cjkF1Tokens,
  englishF1Tokens,
  f1FromTokens,
  normalizeAnswer,
  normalizeZhAnswer,
  qaF1Score,
  qaF1ZhScore,
  tokenF1,
} from '../../../../src/lib/metrics/lexical/reference/token-f1.ts';
import { maxOverAnswers, parseAnswers } from '../../../../src/lib/metrics/lexical/answers.ts';
import {
  chineseWords,
  cjkWords,
  type WordSegmenter,
} from '../../../../src/lib/metrics/lexical/cjk-words.ts';

describe('SQuAD / LongBench normalisation', () => {
  it('lower-cases, drops ASCII punctuation and articles, collapses whitespace', () => {
    expect(normalizeAnswer('The  Eiffel-Tower, in Paris!')).toBe('eiffeltower in paris');
    expect(normalizeAnswer('An apple a day')).toBe('apple day');
    expect(englishF1Tokens('  A  theory of the Anthem ')).toEqual(['theory', 'of', 'anthem']);
  });

  it('uses Python’s Unicode word boundary for articles', () => {
    // JS `\b` would treat 'é' as a boundary and delete the 'a'.
    expect(normalizeAnswer('éa b')).toBe('éa b');
    expect(normalizeAnswer('café a')).toBe('café');
  });

  it('normalises Chinese tokens like normalize_zh_answer', () => {
    expect(normalizeZhAnswer('“厦门大学”。')).toBe('厦门大学');
    expect(normalizeZhAnswer('25.89%')).toBe('2589');
    expect(normalizeZhAnswer('A B')).toBe('ab');
  });
});

describe('token F1', () => {
  it('computes the fractions by hand', () => {
    const s = f1FromTokens(['a', 'b', 'c', 'd'], ['b', 'c', 'e']);
    expect(s.precision).toBeCloseTo(2 / 4, 12);
    expect(s.recall).toBeCloseTo(2 / 3, 12);
    expect(s.f1).toBeCloseTo((2 * 0.5 * (2 / 3)) / (0.5 + 2 / 3), 12);
    expect(s.common).toEqual(['b', 'c']);
    // Multiset clipping.
    expect(f1FromTokens(['x', 'x', 'x'], ['x']).common).toEqual(['x']);
  });

  it('gives 0 on empty input (LongBench, not the SQuAD script’s 1 for two empties)', () => {
    expect(f1FromTokens([], []).f1).toBe(0);
    expect(qaF1Score('', 'answer')).toBe(0);
    expect(qaF1Score('the', 'a')).toBe(0);
    expect(tokenF1('', '').f1).toBe(0);
  });

  it('picks the Chinese variant automatically and can be forced', () => {
    const zh = tokenF1('浙江大学', '浙江大学。');
    expect(zh.language).toBe('zh');
    expect(zh.segmentation).toBe('intl-segmenter');
    expect(zh.f1).toBe(1);
    const en = tokenF1('The cat', 'a cat');
    expect(en.language).toBe('en');
    expect(en.f1).toBe(1);
    expect(tokenF1('猫', '猫', { language: 'en' }).segmentation).toBe('whitespace');
    const ja = tokenF1('東京タワーに行った', '東京タワーへ行った');
    expect(ja.language).toBe('ja');
    expect(ja.f1).toBeGreaterThan(0);
  });

  it('joins runs of single Han characters that ICU leaves apart (jieba stand-in)', () => {
    // ICU: 织|田|信|长 (not in its dictionary); jieba: 织田信长.
    expect(chineseWords('织田信长和丰臣秀吉')).toContain('织田信长');
    // Function characters stay words of their own.
    expect(cjkF1Tokens('邻家的女孩')).toContain('的');
  });

  it('applies general rules where ICU and jieba disagree', () => {
    // Resultative 到 after a two-character verb is its own word; potential forms stay whole.
    expect(chineseWords('注意到')).toEqual(['注意', '到']);
    expect(chineseWords('想不到')).toEqual(['想不到']);
    // Ordinal + measure word is one word (ICU: 第二|组, 第|八届).
    expect(chineseWords('第二组数据')).toEqual(['第二组', '数据']);
    expect(chineseWords('第八届会议')).toEqual(['第八届', '会议']);
    // 万/亿 after digits joins the unit.
    expect(chineseWords('面积50万平方米')).toEqual(['面积', '50', '万平方米']);
    // Bound suffixes join the word before them.
    expect(chineseWords('犯盗窃罪')).toEqual(['犯', '盗窃罪']);
    expect(chineseWords('失业率上升')).toEqual(['失业率', '上升']);
    // 该 and 无 bind to a following character.
    expect(chineseWords('该书作者')).toEqual(['该书', '作者']);
    // An administrative suffix ends an unknown place name (ICU: 闽|侯|县|荆|溪).
    expect(chineseWords('闽侯县荆溪')).toEqual(['闽侯县', '荆溪']);
  });

  it('uses the segmenter it is given for Chinese, and ICU for Japanese and Korean', () => {
    const calls: string[] = [];
    const fake: WordSegmenter = {
      name: 'jieba',
      cut: (t) => {
        calls.push(t);
        return Array.from(t);
      },
    };
    expect(tokenF1('浙江大学', '浙江大学', { segmenter: fake }).segmentation).toBe('jieba');
    expect(tokenF1('浙江大学', '浙江', { segmenter: fake }).common).toEqual(['浙', '江']);
    expect(qaF1ZhScore('浙江大学', '浙江', fake)).toBeCloseTo(2 / 3, 12);
    const n = calls.length;
    expect(
      tokenF1('東京タワーに行った', '東京タワーへ行った', { segmenter: fake }).segmentation,
    ).toBe('intl-segmenter');
    expect(tokenF1('서울에 갔다', '서울에 갔어요', { segmenter: fake }).f1).toBeGreaterThan(0);
    expect(cjkWords('東京タワー', 'ja', fake)).not.toEqual(Array.from('東京タワー'));
    expect(calls.length).toBe(n);
  });
});

describe('answers', () => {
  it('takes the max over answers', () => {
    const r = maxOverAnswers('Paris, France', ['London', 'paris'], qaF1Score);
    expect(r.perAnswer[0]).toBe(0);
    expect(r.score).toBeCloseTo(2 / 3, 12);
    expect(maxOverAnswers('x', [], qaF1Score).score).toBe(0);
  });

  it('parses answers stored as a stringified list', () => {
    expect(parseAnswers(['a', 'b'])).toEqual(['a', 'b']);
    expect(parseAnswers("['Paris', \"Saint-Denis's\"]")).toEqual(['Paris', "Saint-Denis's"]);
    expect(parseAnswers(["['it\\'s', 'x\\ny']"])).toEqual(["it's", 'x\ny']);
    expect(parseAnswers('["json", "list"]')).toEqual(['json', 'list']);
    expect(parseAnswers('[]')).toEqual([]);
    expect(parseAnswers('plain answer')).toEqual(['plain answer']);
    expect(parseAnswers('[1, 2] is not a list of strings')).toEqual([
      '[1, 2] is not a list of strings',
    ]);
    expect(parseAnswers('[1, 2]')).toEqual(['[1, 2]']);
    expect(parseAnswers(null)).toEqual([]);
  });
});
