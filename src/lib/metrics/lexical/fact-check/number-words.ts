/**
 * Numbers as the fact check reads them: width-folded digits with their grouping, number words
 * (English and Russian scales, ordinals) and CJK numerals, each to one value.
 */

// ── width folding ────────────────────────────────────────────────────────────────────────────

/** Full-width ASCII (U+FF01–FF5E) and the ideographic space folded to ASCII, unit for unit. */
export function foldWidth(text: string): string {
  return text.replace(/[\uff01-\uff5e\u3000]/gu, (c) =>
    c === '\u3000' ? ' ' : String.fromCharCode(c.charCodeAt(0) - 0xfee0),
  );
}

// ── digit numbers ────────────────────────────────────────────────────────────────────────────

const GROUP_SPACE = '[ \\u00a0\\u202f\\u2009]';
/** Space-grouped thousands first ("8 480"), then digits with commas and dots ("8,480.5"). */
export const DIGITS = new RegExp(
  `(?<![\\p{Script=Latin}\\p{Script=Cyrillic}\\p{Script=Greek}\\d]|\\d[.,]|\\p{L}-)(?:\\d{1,3}(?:${GROUP_SPACE}\\d{3}(?!\\d))+(?:[.,]\\d+(?![.,]?\\d))?|\\d+(?:[.,]\\d+)*)`,
  'gu',
);

/** Readings of a digit string with separators; empty when it is no number ("1.2.3"). */
export function readDigits(raw: string): number[] {
  if (/[ \u00a0\u202f\u2009]/u.test(raw)) {
    const [whole, fraction] = raw.split(/[.,]/u);
    const v = Number(
      whole.replace(/[ \u00a0\u202f\u2009]/gu, '') + (fraction ? `.${fraction}` : ''),
    );
    return Number.isFinite(v) ? [v] : [];
  }
  const seps = raw.match(/[.,]/gu) ?? [];
  if (seps.length === 0) return [Number(raw)];
  const parts = raw.split(/[.,]/u);
  if (seps.length === 1) {
    const [a, b] = parts;
    const asDecimal = Number(`${a}.${b}`);
    if (b.length === 3 && a.length <= 3 && !/^0+$/u.test(a)) {
      const asThousands = Number(a + b);
      return seps[0] === ',' ? [asThousands, asDecimal] : [asDecimal, asThousands];
    }
    return [asDecimal];
  }
  const first = seps[0];
  const last = seps[seps.length - 1];
  const groupsOk = (from: number, to: number) =>
    parts.slice(from, to).every((p) => p.length === 3) && parts[0].length <= 3;
  if (seps.every((s) => s === first) && groupsOk(1, parts.length)) return [Number(parts.join(''))];
  if (
    last !== first &&
    seps.slice(0, -1).every((s) => s === first) &&
    groupsOk(1, parts.length - 1)
  ) {
    return [Number(`${parts.slice(0, -1).join('')}.${parts[parts.length - 1]}`)];
  }
  return [];
}

export const SCALE_WORDS: Record<string, number> = {
  hundred: 1e2,
  thousand: 1e3,
  million: 1e6,
  billion: 1e9,
  trillion: 1e12,
  k: 1e3,
  m: 1e6,
  mn: 1e6,
  mln: 1e6,
  b: 1e9,
  bn: 1e9,
  tn: 1e12,
  тыс: 1e3,
  тысяча: 1e3,
  тысячи: 1e3,
  тысяч: 1e3,
  тысячу: 1e3,
  млн: 1e6,
  миллион: 1e6,
  миллиона: 1e6,
  миллионов: 1e6,
  млрд: 1e9,
  миллиард: 1e9,
  миллиарда: 1e9,
  миллиардов: 1e9,
  трлн: 1e12,
  百: 1e2,
  千: 1e3,
  万: 1e4,
  萬: 1e4,
  亿: 1e8,
  億: 1e8,
  兆: 1e12,
};
/** A scale after the digits: spelled out (a space allowed), or letters attached ("5m", "5bn"). */
export const SCALE_AFTER =
  /^(?:\s?(hundred|thousand|million|billion|trillion|mln|bn|mn|tn|тыс(?:яч[аиу]?)?|млн|миллион(?:а|ов)?|млрд|миллиард(?:а|ов)?|трлн)(?![\p{L}])\.?|(k|m|b)(?![\p{L}\d]))/iu;
export const PERCENT_AFTER =
  /^\s?(?:%|percent(?![\p{L}])|per cent(?![\p{L}])|процент(?:а|ов)?(?![\p{L}])|パーセント|个百分点|個百分點|ポイント)/iu;
export const CURRENCY_BEFORE =
  /(?:US\$|A\$|C\$|HK\$|NZ\$|R\$|\$|£|€|¥|₽|₹|₩|₺|(?:USD|EUR|GBP|RUB|CNY|JPY)\s?)$/u;
export const CURRENCY_AFTER =
  /^\s?(?:dollars?|euros?|pounds?|yen|yuan|rupees?|рубл[а-яё]*|долл[а-яё]*\.?|евро|美元|元|人民币|円|ドル|ユーロ)(?![\p{Script=Latin}\p{Script=Cyrillic}])/iu;
export const ORDINAL_AFTER =
  /^(?:st|nd|rd|th)(?![\p{L}])|^-(?:й|го|я|е|му|м|х|ми|ого|ый|ий|ой|ая|ое|ье|ья|ых)(?![\p{L}])/iu;

// ── English number words ─────────────────────────────────────────────────────────────────────

const SMALL: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const BIG: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };
const ORDINAL_WORDS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
  thirteenth: 13,
  fourteenth: 14,
  fifteenth: 15,
  sixteenth: 16,
  seventeenth: 17,
  eighteenth: 18,
  nineteenth: 19,
  twentieth: 20,
  thirtieth: 30,
  fortieth: 40,
  fiftieth: 50,
  sixtieth: 60,
  seventieth: 70,
  eightieth: 80,
  ninetieth: 90,
  hundredth: 100,
  thousandth: 1000,
  millionth: 1e6,
};

function isNumberWord(w: string): boolean {
  return (
    w in SMALL || w in BIG || w === 'hundred' || w === 'dozen' || w === 'half' || w in ORDINAL_WORDS
  );
}

interface WordRun {
  start: number;
  end: number;
  value: number;
  ordinal: boolean;
  /** The run is one word that is a word more often than a number ("one", "first", "second"). */
  weak: boolean;
}

/** English number-word runs ("two million", "a dozen", "twenty-first"). */
export function numberWordRuns(text: string): WordRun[] {
  const words = [...text.matchAll(/[A-Za-z]+/gu)].map((m) => ({
    w: m[0].toLowerCase(),
    start: m.index,
    end: m.index + m[0].length,
  }));
  const runs: WordRun[] = [];
  for (let i = 0; i < words.length; i++) {
    const startsWithA = words[i].w === 'a' || words[i].w === 'an';
    if (!isNumberWord(words[i].w) && !startsWithA) continue;
    // Only spaces or hyphens (and "and") join the words of one number.
    let j = i;
    const run: string[] = [];
    while (j < words.length) {
      const w = words[j].w;
      const gap = j > i ? text.slice(words[j - 1].end, words[j].start) : '';
      if (j > i && !/^[ \u00a0-]$/u.test(gap)) break;
      if (
        w === 'and' &&
        j > i &&
        j + 1 < words.length &&
        isNumberWord(words[j + 1].w) &&
        run.length > 0
      ) {
        run.push(w);
        j++;
        continue;
      }
      if ((w === 'a' || w === 'an') && j === i) {
        run.push(w);
        j++;
        continue;
      }
      if (!isNumberWord(w)) break;
      run.push(w);
      j++;
      if (w in ORDINAL_WORDS) break;
    }
    while (run.length > 0 && (run[run.length - 1] === 'and' || run[run.length - 1] === 'a')) {
      run.pop();
      j--;
    }
    const parsed = parseWords(run);
    if (parsed) {
      const weak =
        run.length === 1 && (run[0] === 'one' || run[0] === 'first' || run[0] === 'second');
      runs.push({ start: words[i].start, end: words[j - 1].end, ...parsed, weak });
      i = j - 1;
    }
  }
  return runs;
}

function parseWords(run: readonly string[]): { value: number; ordinal: boolean } | undefined {
  if (run.length === 0 || (run.length === 1 && (run[0] === 'half' || run[0] === 'dozen'))) {
    return undefined;
  }
  let total = 0;
  let current = 0;
  let half = false;
  let numeric = false;
  let ordinal = false;
  for (const w of run) {
    if (w === 'and') continue;
    if (w === 'a' || w === 'an') {
      if (!half) current = 1;
      continue;
    }
    if (w === 'half') {
      half = true;
      continue;
    }
    numeric = true;
    if (w in SMALL) current += SMALL[w];
    else if (w === 'hundred') current = (current || 1) * 100;
    else if (w === 'dozen') current = (current || 1) * 12;
    else if (w in BIG) {
      total += (half ? 0.5 : current || 1) * BIG[w];
      current = 0;
      half = false;
    } else if (w in ORDINAL_WORDS) {
      const o = ORDINAL_WORDS[w];
      current = o >= 100 ? (current || 1) * o : current + o;
      ordinal = true;
    }
  }
  if (!numeric) return undefined;
  return { value: total + current, ordinal };
}

// ── CJK numerals ─────────────────────────────────────────────────────────────────────────────

const CJK_DIGIT: Record<string, number> = {
  零: 0,
  〇: 0,
  一: 1,
  二: 2,
  两: 2,
  兩: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
const CJK_SMALL_UNIT: Record<string, number> = { 十: 10, 百: 100, 千: 1000 };
const CJK_BIG_UNIT: Record<string, number> = { 万: 1e4, 萬: 1e4, 亿: 1e8, 億: 1e8, 兆: 1e12 };
export const CJK_NUMERAL_CLASS = '零〇一二两兩三四五六七八九十百千万萬亿億兆';
export const CJK_RUN = new RegExp(`(?:\\d+(?:[.,]\\d+)*|[${CJK_NUMERAL_CLASS}])+`, 'gu');
export const HAS_CJK_NUMERAL = new RegExp(`[${CJK_NUMERAL_CLASS}]`, 'u');
/** Counters after which a lone CJK numeral is a number ("三人", "五艘"). */
export const CJK_COUNTER =
  /^[人名个個位件台艘隻只头頭家次回天年岁歳元円条項项种種所座架辆輛批起例倍万千百亿億名]/u;

/** The value of a run of CJK numerals, Arabic digits allowed ("3万", "一万二千", "二〇一五"). */
export function parseCjkNumber(run: string): number | undefined {
  const parts = run.match(/\d+(?:[.,]\d+)*|./gu) ?? [];
  const hasUnit = parts.some((p) => p in CJK_SMALL_UNIT || p in CJK_BIG_UNIT);
  if (!hasUnit) {
    // Positional digits ("二〇一五") only where a 0 shows they are positional, or a year follows.
    if (parts.some((p) => !(p in CJK_DIGIT))) return undefined;
    return Number(parts.map((p) => CJK_DIGIT[p]).join(''));
  }
  let total = 0;
  let section = 0;
  let number: number | undefined;
  for (const p of parts) {
    if (p in CJK_DIGIT) number = CJK_DIGIT[p];
    else if (/^\d/u.test(p)) {
      const v = readDigits(p)[0];
      if (v === undefined) return undefined;
      number = v;
    } else if (p in CJK_SMALL_UNIT) {
      section += (number ?? 1) * CJK_SMALL_UNIT[p];
      number = undefined;
    } else if (p in CJK_BIG_UNIT) {
      if (section === 0 && number === undefined) return undefined;
      total += (section + (number ?? 0)) * CJK_BIG_UNIT[p];
      section = 0;
      number = undefined;
    } else return undefined;
  }
  return total + section + (number ?? 0);
}
