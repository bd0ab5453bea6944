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

import {
  CJK_COUNTER,
  CJK_NUMERAL_CLASS,
  CJK_RUN,
  CURRENCY_AFTER,
  CURRENCY_BEFORE,
  DIGITS,
  HAS_CJK_NUMERAL,
  ORDINAL_AFTER,
  PERCENT_AFTER,
  SCALE_AFTER,
  SCALE_WORDS,
  foldWidth,
  numberWordRuns,
  parseCjkNumber,
  readDigits,
} from './number-words.ts';
import { DATE_PATTERNS, isYear } from './dates.ts';

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
