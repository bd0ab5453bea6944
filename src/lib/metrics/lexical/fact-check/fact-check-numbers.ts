/**
 * Numbers, dates and hedges for the offline fact check (fact-check.ts): one linear pass of
 * regular expressions, the same for the summary and for a source of any length, in every
 * language the text layer segments.
 *
 * Numbers: digit groups ("8,480", "8 480", "8480", "1.234,5"), decimals, full-width digits
 * ("１２３"), scale words and letters ("2.5 million", "$2.5m", "3 млн", "3万"), percentages
 * ("20%", "20 per cent", "20 процентов", "百分之二十"), money ("$2.5 million", "£300": the
 * currency widens the span, the value is the amount), English number words ("two million",
 * "a dozen", "twenty-five"), ordinals ("third", "21st", "3-й", "第三") and CJK numerals ("三千",
 * "二十五", "一万二千"). A form that reads two ways ("8.480" is 8480 in Indonesian and 8.48 in
 * English) keeps both readings and matches either.
 *
 * Left out on purpose, because they are words more often than numbers: "one", "a", "first" and
 * "second" standing alone, a lone CJK numeral not followed by a counter ("一起", "十分", "百姓"),
 * unit-less CJK digit pairs ("三四" = "three or four"), and Russian number words.
 *
 * Dates: explicit ones ("March 3", "3 March 2015", "March 2015", "2015-03-03", "3/3/2015",
 * "3 марта 2015 года", "2015年3月3日", "3月3日"), a month after "in", "since"… ("in March",
 * "в марте"), weekdays ("Tuesday", "в среду", "星期二", "火曜日"), decades ("the 1990s") and
 * years (a four-digit whole number from 1500 to 2100 with no unit, or "2015年").
 *
 * Offsets are UTF-16 indices into the text as given: full-width ASCII is folded one unit for one
 * unit before matching, so every offset stays valid.
 */

export interface NumberMention {
  start: number;
  end: number;
  text: string;
  /** Every reading of the digits, the likeliest first. */
  values: number[];
  ordinal: boolean;
  percent: boolean;
  money: boolean;
}

export interface DateParts {
  year?: number;
  month?: number;
  day?: number;
  /** 1 = Monday … 7 = Sunday. */
  weekday?: number;
  decade?: number;
}

export interface DateMention {
  start: number;
  end: number;
  text: string;
  /** Readings of the date ("3/4/2015" is 3 April or 4 March): any one may match. */
  readings: DateParts[];
}

export type HedgeDirection = 'either' | 'above' | 'below';

export interface Hedge {
  text: string;
  /** 'above': the true value is at least the number ("more than"); 'below': at most ("nearly"). */
  direction: HedgeDirection;
}

/**
 * Rounding a hedged number is accepted within these bounds (source value s, summary value v):
 * 'either' ("about", "около", "约", "およそ"): |s − v| ≤ 10% of v; 'above' ("more than",
 * "более", "超过", "以上"): v ≤ s ≤ v + 20%; 'below' ("nearly", "up to", "почти", "近く"):
 * v − 20% ≤ s ≤ v. One-sided hedges round to a round figure on one side ("more than 8,000" for
 * 8,950 is 12% off), hence their wider bound; a two-sided hedge rounds to the nearest figure.
 */
export const HEDGE_TOLERANCE = { either: 0.1, above: 0.2, below: 0.2 } as const;

/** The interval of source values a hedged summary value accepts. */
export function hedgeRange(value: number, direction: HedgeDirection): [number, number] {
  const v = Math.abs(value);
  if (direction === 'above') return [v, v * (1 + HEDGE_TOLERANCE.above)];
  if (direction === 'below') return [v * (1 - HEDGE_TOLERANCE.below), v];
  return [v * (1 - HEDGE_TOLERANCE.either), v * (1 + HEDGE_TOLERANCE.either)];
}

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
const DIGITS = new RegExp(
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

const SCALE_WORDS: Record<string, number> = {
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
const SCALE_AFTER =
  /^(?:\s?(hundred|thousand|million|billion|trillion|mln|bn|mn|tn|тыс(?:яч[аиу]?)?|млн|миллион(?:а|ов)?|млрд|миллиард(?:а|ов)?|трлн)(?![\p{L}])\.?|(k|m|b)(?![\p{L}\d]))/iu;
const PERCENT_AFTER =
  /^\s?(?:%|percent(?![\p{L}])|per cent(?![\p{L}])|процент(?:а|ов)?(?![\p{L}])|パーセント|个百分点|個百分點|ポイント)/iu;
const CURRENCY_BEFORE =
  /(?:US\$|A\$|C\$|HK\$|NZ\$|R\$|\$|£|€|¥|₽|₹|₩|₺|(?:USD|EUR|GBP|RUB|CNY|JPY)\s?)$/u;
const CURRENCY_AFTER =
  /^\s?(?:dollars?|euros?|pounds?|yen|yuan|rupees?|рубл[а-яё]*|долл[а-яё]*\.?|евро|美元|元|人民币|円|ドル|ユーロ)(?![\p{Script=Latin}\p{Script=Cyrillic}])/iu;
const ORDINAL_AFTER =
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
function numberWordRuns(text: string): WordRun[] {
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
const CJK_NUMERAL_CLASS = '零〇一二两兩三四五六七八九十百千万萬亿億兆';
const CJK_RUN = new RegExp(`(?:\\d+(?:[.,]\\d+)*|[${CJK_NUMERAL_CLASS}])+`, 'gu');
const HAS_CJK_NUMERAL = new RegExp(`[${CJK_NUMERAL_CLASS}]`, 'u');
/** Counters after which a lone CJK numeral is a number ("三人", "五艘"). */
const CJK_COUNTER =
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

// ── dates ────────────────────────────────────────────────────────────────────────────────────

const EN_MONTHS: Record<string, number> = {
  january: 1,
  february: 2,
  march: 3,
  april: 4,
  may: 5,
  june: 6,
  july: 7,
  august: 8,
  september: 9,
  october: 10,
  november: 11,
  december: 12,
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const EN_MONTH =
  '(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)';
const EN_MONTH_ALONE =
  '(January|February|March|April|June|July|August|September|October|November|December)';
const EN_WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const RU_MONTH =
  '(январ[ьяею]|феврал[ьяею]|март[аеу]?|апрел[ьяею]|ма[йяею]|июн[ьяею]|июл[ьяею]|август[аеу]?|сентябр[ьяею]|октябр[ьяею]|ноябр[ьяею]|декабр[ьяею])';
const RU_MONTH_STEMS = [
  'янв',
  'фев',
  'мар',
  'апр',
  'ма',
  'июн',
  'июл',
  'авг',
  'сен',
  'окт',
  'ноя',
  'дек',
];
const RU_WEEKDAYS = [
  'понедельник',
  'вторник',
  'среду',
  'четверг',
  'пятницу',
  'субботу',
  'воскресенье',
];
const CJK_WEEKDAY: Record<string, number> = {
  一: 1,
  二: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  日: 7,
  天: 7,
};
const JA_WEEKDAY: Record<string, number> = { 月: 1, 火: 2, 水: 3, 木: 4, 金: 5, 土: 6, 日: 7 };
const NOT_LETTER_BEFORE = '(?<![\\p{L}\\d])';
const NOT_LETTER_AFTER = '(?![\\p{L}\\d])';
const CJK_SMALL_NUM = `(\\d{1,2}|[一二三四五六七八九十]{1,3})`;

function ruMonth(word: string): number {
  const w = word.toLowerCase();
  if (w.startsWith('мар')) return 3;
  if (w.startsWith('ма')) return 5;
  return RU_MONTH_STEMS.findIndex((s) => w.startsWith(s)) + 1;
}

function smallNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const v = /^\d+$/u.test(text) ? Number(text) : parseCjkNumber(text);
  return v === undefined || !Number.isFinite(v) ? undefined : v;
}

function validDay(d: number | undefined): boolean {
  return d !== undefined && d >= 1 && d <= 31;
}

interface DatePattern {
  re: RegExp;
  read(m: RegExpMatchArray): DateParts[] | undefined;
}

const DATE_PATTERNS: DatePattern[] = [
  {
    // 2015-03-03
    re: /(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)/gu,
    read: (m) => [{ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }],
  },
  {
    // 3/4/2015: day/month or month/day.
    re: /(?<![\d/])(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?![\d/])/gu,
    read: (m) => {
      const [a, b, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const out: DateParts[] = [];
      if (b <= 12 && validDay(a)) out.push({ year: y, month: b, day: a });
      if (a <= 12 && validDay(b) && a !== b) out.push({ year: y, month: a, day: b });
      return out.length > 0 ? out : undefined;
    },
  },
  {
    // March 3, 2015 / March 3rd / Mar. 3
    re: new RegExp(
      `\\b${EN_MONTH}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4})\\b)?`,
      'gu',
    ),
    read: (m) =>
      validDay(Number(m[2]))
        ? [
            {
              month: EN_MONTHS[m[1].toLowerCase()],
              day: Number(m[2]),
              ...(m[3] ? { year: Number(m[3]) } : {}),
            },
          ]
        : undefined,
  },
  {
    // 3 March 2015 / 3rd of March
    re: new RegExp(
      `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${EN_MONTH}\\b\\.?(?:,?\\s+(\\d{4})\\b)?`,
      'gu',
    ),
    read: (m) =>
      validDay(Number(m[1]))
        ? [
            {
              month: EN_MONTHS[m[2].toLowerCase()],
              day: Number(m[1]),
              ...(m[3] ? { year: Number(m[3]) } : {}),
            },
          ]
        : undefined,
  },
  {
    // March 2015
    re: new RegExp(`\\b${EN_MONTH}\\.?,?\\s+(\\d{4})\\b`, 'gu'),
    read: (m) => [{ month: EN_MONTHS[m[1].toLowerCase()], year: Number(m[2]) }],
  },
  {
    // in March ("May" alone is a verb too often)
    re: new RegExp(
      `(?<=\\b(?:[Ii]n|[Ss]ince|[Uu]ntil|[Tt]ill|[Bb]y|[Ff]rom|[Tt]hrough|[Dd]uring|[Ll]ast|[Nn]ext|[Tt]his|[Ee]arly|[Ll]ate|[Mm]id-?)\\s?)${EN_MONTH_ALONE}\\b`,
      'gu',
    ),
    read: (m) => [{ month: EN_MONTHS[m[1].toLowerCase()] }],
  },
  {
    re: /\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b/gu,
    read: (m) => [{ weekday: EN_WEEKDAYS.indexOf(m[1].toLowerCase()) + 1 }],
  },
  {
    // the 1990s, 1990s
    re: /\b(1[5-9]\d0|20\d0)[’']?s\b/gu,
    read: (m) => [{ decade: Number(m[1]) }],
  },
  {
    // 3 марта 2015 года
    re: new RegExp(
      `${NOT_LETTER_BEFORE}(\\d{1,2})\\s+${RU_MONTH}(?:\\s+(\\d{4})(?:\\s*(?:г\\.|года|году|год)${NOT_LETTER_AFTER})?)?${NOT_LETTER_AFTER}`,
      'giu',
    ),
    read: (m) =>
      validDay(Number(m[1]))
        ? [{ month: ruMonth(m[2]), day: Number(m[1]), ...(m[3] ? { year: Number(m[3]) } : {}) }]
        : undefined,
  },
  {
    // марте 2015 года / в марте
    re: new RegExp(
      `(?:${NOT_LETTER_BEFORE}${RU_MONTH}\\s+(\\d{4})(?:\\s*(?:г\\.|года|году|год)${NOT_LETTER_AFTER})?|(?<=(?:^|[^\\p{L}])[Вв]\\s)${RU_MONTH}${NOT_LETTER_AFTER})`,
      'gu',
    ),
    read: (m) =>
      m[1] ? [{ month: ruMonth(m[1]), year: Number(m[2]) }] : [{ month: ruMonth(m[3]) }],
  },
  {
    re: new RegExp(
      `(?<=(?:^|[^\\p{L}])[Вв]о?\\s)(${RU_WEEKDAYS.join('|')})${NOT_LETTER_AFTER}`,
      'giu',
    ),
    read: (m) => [{ weekday: RU_WEEKDAYS.indexOf(m[1].toLowerCase()) + 1 }],
  },
  {
    // 2015年3月3日 / 2015年3月 / 二〇一五年
    re: new RegExp(
      `(\\d{4}|[〇零一二三四五六七八九]{4})年(?:${CJK_SMALL_NUM}月(?:${CJK_SMALL_NUM}[日号號])?)?`,
      'gu',
    ),
    read: (m) => {
      const year = smallNumber(m[1]);
      const month = smallNumber(m[2]);
      const day = smallNumber(m[3]);
      if (year === undefined) return undefined;
      return [
        {
          year,
          ...(month !== undefined && month <= 12 ? { month } : {}),
          ...(validDay(day) ? { day } : {}),
        },
      ];
    },
  },
  {
    // 3月3日 / 三月三日
    re: new RegExp(`(?<![\\d年个個])${CJK_SMALL_NUM}月${CJK_SMALL_NUM}[日号號]`, 'gu'),
    read: (m) => {
      const month = smallNumber(m[1]);
      const day = smallNumber(m[2]);
      return month !== undefined && month <= 12 && validDay(day) ? [{ month, day }] : undefined;
    },
  },
  {
    re: /(?:星期|礼拜|禮拜|週|周)([一二三四五六日天])|([月火水木金土日])曜日/gu,
    read: (m) => [{ weekday: m[1] ? CJK_WEEKDAY[m[1]] : JA_WEEKDAY[m[2]] }],
  },
];

/** The comparable keys of a date reading: every one must be in the source. */
export function dateKeys(d: DateParts): string[] {
  const keys: string[] = [];
  if (d.month !== undefined && d.day !== undefined) keys.push(`md:${d.month}-${d.day}`);
  else if (d.month !== undefined) keys.push(`m:${d.month}`);
  if (d.year !== undefined) keys.push(`y:${d.year}`);
  if (d.weekday !== undefined) keys.push(`wd:${d.weekday}`);
  if (d.decade !== undefined) keys.push(`dec:${d.decade}`);
  return keys;
}

/** Every key a source date makes findable (a full date also stands for its month alone). */
export function dateIndexKeys(d: DateParts): string[] {
  const keys = dateKeys(d);
  if (d.month !== undefined && d.day !== undefined) keys.push(`m:${d.month}`);
  if (d.year !== undefined) keys.push(`dec:${d.year - (d.year % 10)}`);
  return keys;
}

function isYear(v: number, raw: string): boolean {
  return /^\d{4}$/u.test(raw) && v >= 1500 && v <= 2100;
}

// ── the pass ─────────────────────────────────────────────────────────────────────────────────

export interface NumbersAndDates {
  numbers: NumberMention[];
  dates: DateMention[];
}

/** Characters already claimed by a mention: one byte per UTF-16 unit, so every check is local. */
class Taken {
  readonly #covered: Uint8Array;
  constructor(length: number) {
    this.#covered = new Uint8Array(length);
  }
  add(start: number, end: number): void {
    this.#covered.fill(1, start, end);
  }
  has(start: number, end: number): boolean {
    for (let i = start; i < end; i++) if (this.#covered[i] === 1) return true;
    return false;
  }
}

/** Numbers and dates of `text`, in text order, never overlapping (a date wins over its digits). */
export function numbersAndDates(text: string): NumbersAndDates {
  const folded = foldWidth(text);
  const dates: DateMention[] = [];
  const taken = new Taken(text.length);
  for (const pattern of DATE_PATTERNS) {
    for (const m of folded.matchAll(pattern.re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken.has(start, end)) continue;
      const readings = pattern.read(m);
      if (!readings || readings.length === 0) continue;
      dates.push({ start, end, text: text.slice(start, end), readings });
      taken.add(start, end);
    }
  }
  const numbers: NumberMention[] = [];
  const push = (n: Omit<NumberMention, 'text'>) => {
    if (taken.has(n.start, n.end)) return;
    numbers.push({ ...n, text: text.slice(n.start, n.end) });
    taken.add(n.start, n.end);
  };

  // 百分之二十 (percent, prefix form)
  for (const m of folded.matchAll(
    new RegExp(`百分之((?:\\d+(?:\\.\\d+)?|[${CJK_NUMERAL_CLASS}点])+)`, 'gu'),
  )) {
    const body = m[1].replace('点', '.');
    const v = /^[\d.]+$/u.test(body) ? Number(body) : parseCjkNumber(body.split('.')[0]);
    if (v === undefined || !Number.isFinite(v)) continue;
    push({
      start: m.index,
      end: m.index + m[0].length,
      values: [v],
      ordinal: false,
      percent: true,
      money: false,
    });
  }
  // CJK numeral runs (Arabic digits allowed inside: "3万").
  for (const m of folded.matchAll(CJK_RUN)) {
    const run = m[0];
    if (!HAS_CJK_NUMERAL.test(run)) continue;
    let start = m.index;
    let end = start + run.length;
    const after = folded.slice(end, end + 4);
    const before = folded.slice(Math.max(0, start - 1), start);
    const cjkOnly = !/\d/u.test(run);
    if (cjkOnly && /^[万萬亿億兆]/u.test(run)) continue;
    const value = parseCjkNumber(run);
    if (value === undefined || !Number.isFinite(value)) continue;
    const unitLess = !/[十百千万萬亿億兆]/u.test(run);
    if (
      cjkOnly &&
      unitLess &&
      !(run.length >= 3 && /[〇零]/u.test(run)) &&
      !(run.length >= 2 && after.startsWith('年'))
    ) {
      if (run.length > 1) continue;
      if (value < 2 || !CJK_COUNTER.test(after)) continue;
    }
    if (cjkOnly && run.length === 1 && !CJK_COUNTER.test(after) && before !== '第') continue;
    const ordinal = before === '第';
    if (ordinal) start -= 1;
    if (ordinal && value === 1) continue;
    let percent = false;
    const pct = PERCENT_AFTER.exec(after);
    if (pct) {
      percent = true;
      end += pct[0].length;
    }
    push({ start, end, values: [value], ordinal, percent, money: false });
  }
  // Digits.
  for (const m of folded.matchAll(DIGITS)) {
    const raw = m[0];
    let start = m.index;
    let end = start + raw.length;
    // A numbered list item ("1. ", "2) ") is no fact.
    const lineStart = start === 0 || folded[start - 1] === '\n';
    if (lineStart && /^[.)]\s/u.test(folded.slice(end, end + 2))) continue;
    let values = readDigits(raw);
    if (values.length === 0) continue;
    let ordinal = false;
    let percent = false;
    let money = false;
    let scaled = false;
    const rest = () => folded.slice(end, end + 24);
    const ord = ORDINAL_AFTER.exec(rest());
    if (ord) {
      ordinal = true;
      end += ord[0].length;
    } else {
      const currencyBefore = CURRENCY_BEFORE.exec(folded.slice(Math.max(0, start - 5), start));
      if (currencyBefore) {
        money = true;
        start -= currencyBefore[0].length;
      }
      const scale = SCALE_AFTER.exec(rest());
      // Attached letters ("5m") are a scale after money only: "5 m" and "5m" alone are metres.
      if (scale && (scale[1] || money)) {
        const factor = SCALE_WORDS[(scale[1] ?? scale[2]).toLowerCase().replace(/\.$/u, '')];
        if (factor) {
          values = values.map((v) => Number((v * factor).toPrecision(12)));
          end += scale[0].length;
          scaled = true;
        }
      }
      const pct = PERCENT_AFTER.exec(rest());
      if (pct) {
        percent = true;
        end += pct[0].length;
      }
      const currencyAfter = !percent && CURRENCY_AFTER.exec(rest());
      if (currencyAfter) {
        money = true;
        end += currencyAfter[0].length;
      }
    }
    if (!ordinal && !percent && !money && !scaled && isYear(values[0], raw)) {
      if (!taken.has(start, end)) {
        dates.push({ start, end, text: text.slice(start, end), readings: [{ year: values[0] }] });
        taken.add(start, end);
      }
      continue;
    }
    push({ start, end, values, ordinal, percent, money });
  }
  // English number words.
  for (const run of numberWordRuns(folded)) {
    if (run.weak) continue;
    const { start } = run;
    let { end } = run;
    let percent = false;
    let money = false;
    const pct = PERCENT_AFTER.exec(folded.slice(end, end + 12));
    if (pct) {
      percent = true;
      end += pct[0].length;
    } else {
      const cur = CURRENCY_AFTER.exec(folded.slice(end, end + 12));
      if (cur) {
        money = true;
        end += cur[0].length;
      }
    }
    push({ start, end, values: [run.value], ordinal: run.ordinal, percent, money });
  }
  numbers.sort((a, b) => a.start - b.start);
  dates.sort((a, b) => a.start - b.start);
  return { numbers, dates };
}

// ── hedges ───────────────────────────────────────────────────────────────────────────────────

const HEDGES_BEFORE: Array<[RegExp, HedgeDirection]> = [
  [
    /(?:^|[^\p{L}])(about|around|roughly|approximately|approx\.|some|circa|ca\.|c\.|an estimated|estimated|около|примерно|приблизительно|порядка|где-то)\s*$/iu,
    'either',
  ],
  // CJK hedges need no word boundary: the text has no spaces ("に約8500人").
  [/(大约|大概|约有|约|約|およそ|おおよそ|ほぼ)\s*$/u, 'either'],
  [/(超过|超過|逾|至少|多于|多於|最低)\s*$/u, 'above'],
  [/(将近|將近|接近|不到|不足|多达|多達|最多|最大|近)\s*$/u, 'below'],
  [/(~|≈|∼)\s*$/u, 'either'],
  [
    /(?:^|[^\p{L}])(more than|over|at least|upwards of|in excess of|just over|above|не менее|более чем|более|больше|свыше)\s*$/iu,
    'above',
  ],
  [
    /(?:^|[^\p{L}])(nearly|almost|close to|up to|less than|fewer than|under|just under|as many as|не более|почти|менее|меньше|до)\s*$/iu,
    'below',
  ],
];
/** A counter may stand between the number and a hedge that follows it ("3000多人", "1万人以上"). */
const HEDGES_AFTER: Array<[RegExp, HedgeDirection]> = [
  [
    /^\s*(?:[人名个個件台艘隻只家次回天年岁歳元円]|ドル)?\s*(左右|上下|前後|程度|ほど|くらい|ぐらい)/u,
    'either',
  ],
  [/^\s*(or so|-odd|odd)(?![\p{L}])/iu, 'either'],
  [/^\s*(多|余|餘)/u, 'above'],
  [/^\s*(?:[人名个個件台艘隻只家次回天年岁歳元円]|ドル)?\s*(以上|余り|超|強)/u, 'above'],
  [/^\s*(or more|plus|\+)(?![\p{L}])/iu, 'above'],
  [/^\s*(?:[人名个個件台艘隻只家次回天年岁歳元円]|ドル)?\s*(近く|未満|以下|弱)/u, 'below'],
];

/** The hedge just before `start` or just after `end` in `text`, if any ("about 8,500"). */
export function hedgeOf(text: string, start: number, end: number): Hedge | undefined {
  const before = text.slice(Math.max(0, start - 24), start);
  for (const [re, direction] of HEDGES_BEFORE) {
    const m = re.exec(before);
    if (m) return { text: m[1], direction };
  }
  const after = text.slice(end, end + 12);
  for (const [re, direction] of HEDGES_AFTER) {
    const m = re.exec(after);
    if (m) return { text: m[1], direction };
  }
  return undefined;
}
