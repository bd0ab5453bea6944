/** Dates in English, Russian, Chinese and Japanese forms, read to their parts, and their index keys. */
import type { DateParts } from './fact-check-numbers.ts';
import { parseCjkNumber } from './number-words.ts';

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

export const DATE_PATTERNS: DatePattern[] = [
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

export function isYear(v: number, raw: string): boolean {
  return /^\d{4}$/u.test(raw) && v >= 1500 && v <= 2100;
}
