/**
 * Word segmentation for the Chinese/Japanese variants of the LongBench metrics, where LongBench
 * runs jieba (`jieba.cut(text, cut_all=False)`). Chinese words come from a pluggable
 * `WordSegmenter`: jieba itself (jieba.ts: exact parity, a 4 MB wasm loaded on demand) or, as the
 * always-available fallback, Intl.Segmenter (ICU's CJ dictionary) with general corrections
 * towards jieba's conventions:
 *
 * - ICU falls back to single characters for words missing from its dictionary (personal and
 *   place names, rare compounds: 织|田|信|长, 郗|鉴, 贫|瘠), where jieba's HMM joins unknown
 *   characters into words. We join each run of consecutive single-Han segments into one word,
 *   except for function characters (的, 了, 在, 和, ...), which are words on their own; an
 *   administrative suffix (省, 市, 县, ...) ends such a run (闽侯县|荆溪).
 * - Resultative 到 after a two-character verb is a word of its own (注意|到).
 * - Ordinals with their measure word (第二组), 万/亿 after digits with a unit (50|万平方米) and
 *   bound suffixes with their host word (盗窃罪, 失业率, 现代化) are one word, as in jieba.
 *
 * The rules are general (closed classes and morphology, never words picked from test data); they
 * were chosen on half of the parity vectors and checked against jieba on made-up phrases (see
 * tests/unit/metrics/lexical/tinyeval-vectors.test.ts for the numbers: mean |Δ| per answer 0.018
 * against jieba, 42 of 62 exact; TinyEval's multifieldqa_zh 35.34 for internlm vs 34.97 with
 * jieba). ICU still splits compounds only jieba's dictionary knows (浙江|大学 vs 浙江大学).
 *
 * Japanese and Korean text keep ICU's segmentation as is (kana and spaces carry the word
 * boundaries there), whichever segmenter is passed.
 */
import { guessLocale } from '../text/tokenize.ts';

/**
 * Splits Chinese text into words, jieba-style: every character of the text lands in exactly one
 * segment, in order (spaces and punctuation included). The metric functions take an
 * already-loaded segmenter, so they stay synchronous.
 */
export interface WordSegmenter {
  readonly name: 'jieba' | 'intl-segmenter';
  cut(text: string): string[];
  /** Set when this segmenter stands in for one that failed to load; shown in backend strings. */
  readonly fallbackReason?: string;
}

const segmenters = new Map<string, Intl.Segmenter>();

function wordSegmenter(locale: string): Intl.Segmenter {
  let seg = segmenters.get(locale);
  if (!seg) {
    seg = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(locale, seg);
  }
  return seg;
}

/** Every word-granularity segment of `text` (words, punctuation, spaces), in order. */
export function segmentWords(text: string, locale: string): string[] {
  return Array.from(wordSegmenter(locale).segment(text), (part) => part.segment);
}

/**
 * Single Han characters that are words on their own and never join a neighbour: particles,
 * conjunctions, prepositions, auxiliaries, the copula, negation, demonstratives. (该 'the said'
 * and 无 'without' are not among them: they bind to a following character, 该案, 无水.)
 */
const HAN_FUNCTION_CHARS = new Set(
  '的了在是和与及或等并被把将为对从由于以之而也都就还又很最不没未有其此这那个着过吗呢吧啊每各向到给让使',
);

/** Administrative-division suffixes: one ends an unknown place name (漳平市|菁). */
const PLACE_SUFFIXES = new Set('省市县区镇乡村');

/** Chinese numerals, for ordinals (第二组). */
const CN_NUMERALS = new Set('〇零一二三四五六七八九十百千万两');

/** Measure words that follow an ordinal as part of one word (第二组, 第一年, 第八届). */
const CLASSIFIERS = new Set(
  '个次名位条款项章节组年天届期批轮代号层版部集页段篇句类种步场回本件家排行列课周月日季局级把张',
);

/**
 * Units and measure words that 万/亿 after Arabic digits form one word with (132|万平方公里,
 * 20|亿美元, 8|万吨).
 */
const NUMERAL_UNITS = new Set([
  ...'元吨米亩人户辆台件个克斤册份套家所座株头次字张篇块名位年天',
  ...['美元', '英镑', '日元', '港元', '千米', '公里', '平方米', '平方公里', '公顷', '公斤'],
  ...['千克', '立方米', '千瓦', '人次'],
]);

/**
 * Bound suffixes, which do not stand alone in modern Chinese and form one word with the word
 * before them: currency 币, crime 罪, rate 率, -ness 性, agent 者/员, fee 费, -ize 化, type
 * 型/式, circles 界, amount 量 (人民币, 盗窃罪, 失业率, 消费者, 现代化, 工作量).
 */
const BOUND_SUFFIXES = new Set('币罪率性者员费化型式界量');

const SINGLE_HAN = /^\p{Script=Han}$/u;
const HAN_WORD = /^\p{Script=Han}+$/u;
const ARABIC_NUMBER = /^[0-9]+(?:\.[0-9]+)?$/;

const chars = (s: string): string[] => Array.from(s);
const allIn = (s: string, set: ReadonlySet<string>): boolean => chars(s).every((c) => set.has(c));

/**
 * Resultative 到 after a two-character verb is a word of its own in jieba (接触|到, 注意|到);
 * ICU has some of these as one word. Potential forms (想不到, 做得到) stay whole.
 */
function splitResultative(seg: string): string[] {
  const c = chars(seg);
  if (c.length === 3 && c[2] === '到' && c[1] !== '不' && c[1] !== '得' && HAN_WORD.test(seg)) {
    return [c[0] + c[1], '到'];
  }
  return [seg];
}

/** Ordinals, numeral + unit and bound suffixes joined (see the constants above). */
function joinMorphemes(segs: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    const next = segs[i + 1];
    if (seg.startsWith('第')) {
      // 第 + numerals (ICU: 第二|组 or 第|八届), then one measure word.
      let word = seg;
      let k = i;
      const after = segs[k + 1];
      if (
        word === '第' &&
        after !== undefined &&
        CN_NUMERALS.has(chars(after)[0]) &&
        chars(after).every((c) => CN_NUMERALS.has(c) || CLASSIFIERS.has(c))
      ) {
        word += after;
        k++;
      }
      const unit = segs[k + 1];
      if (
        word.length > 1 &&
        allIn(word.slice(1), CN_NUMERALS) &&
        unit !== undefined &&
        unit.length === 1 &&
        CLASSIFIERS.has(unit)
      ) {
        word += unit;
        k++;
      }
      if (k > i) {
        out.push(word);
        i = k;
        continue;
      }
    }
    if (
      next !== undefined &&
      BOUND_SUFFIXES.has(next) &&
      chars(seg).length >= 2 &&
      HAN_WORD.test(seg)
    ) {
      out.push(seg + next);
      i++;
      continue;
    }
    if (
      (seg === '万' || seg === '亿') &&
      i > 0 &&
      ARABIC_NUMBER.test(segs[i - 1]) &&
      next !== undefined &&
      NUMERAL_UNITS.has(next)
    ) {
      out.push(seg + next);
      i++;
      continue;
    }
    out.push(seg);
  }
  return out;
}

/**
 * Our jieba stand-in for Chinese: Intl.Segmenter words with the corrections of the file header
 * (resultative 到 split off; ordinals, numeral + unit and bound suffixes joined; runs of single
 * Han characters joined, a place suffix ending a run).
 */
export function chineseWords(text: string, locale = 'zh'): string[] {
  const segs = joinMorphemes(segmentWords(text, locale).flatMap(splitResultative));
  const out: string[] = [];
  let run = '';
  for (const seg of segs) {
    if (SINGLE_HAN.test(seg) && !HAN_FUNCTION_CHARS.has(seg)) {
      run += seg;
      if (PLACE_SUFFIXES.has(seg) && chars(run).length >= 3) {
        out.push(run);
        run = '';
      }
      continue;
    }
    if (run) out.push(run);
    run = '';
    out.push(seg);
  }
  if (run) out.push(run);
  return out;
}

/** The Intl.Segmenter stand-in for jieba (`chineseWords`). */
export const intlWordSegmenter: WordSegmenter = Object.freeze({
  name: 'intl-segmenter',
  cut: (text: string) => chineseWords(text),
});

/** The Intl.Segmenter stand-in, labelled with why jieba is not running. */
export function intlSegmenterFallback(reason: string): WordSegmenter {
  return Object.freeze({ ...intlWordSegmenter, fallbackReason: reason });
}

/**
 * How backend strings name a segmenter: 'jieba', 'intl-segmenter', or for a fallback
 * 'intl-segmenter, jieba unavailable'.
 */
export function segmenterLabel(segmenter: WordSegmenter): string {
  return segmenter.fallbackReason ? `${segmenter.name}, jieba unavailable` : segmenter.name;
}

/**
 * Words of a CJK text: Chinese through `segmenter` (default Intl.Segmenter), Japanese and Korean
 * through plain ICU segments (kana and spaces carry their word boundaries; jieba knows neither).
 */
export function cjkWords(
  text: string,
  locale = guessLocale(text) ?? 'zh',
  segmenter: WordSegmenter = intlWordSegmenter,
): string[] {
  return usesWordSegmenter(locale) ? segmenter.cut(text) : segmentWords(text, locale);
}

/** True for the CJK locales whose words come from the WordSegmenter: Chinese, not ja/ko. */
export function usesWordSegmenter(locale: string | undefined): boolean {
  return locale !== undefined && locale !== 'ja' && locale !== 'ko';
}
