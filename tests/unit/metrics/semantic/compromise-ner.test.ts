import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  COMPROMISE_BACKEND,
  CompromiseRecognizer,
  ENTITY_LABELS,
  assessLanguage,
  resolveOverlaps,
} from '../../../../src/lib/metrics/semantic/compromise-ner.ts';
import type { TextSpan } from '../../../../src/lib/metrics/types.ts';
import { readJsonl } from '../../../helpers/shared.ts';

const recognizer = new CompromiseRecognizer();

/** [label, text, start] triples, the shape the expectations below are written in. */
async function triples(text: string): Promise<[string, string, number][]> {
  const spans = await recognizer.recognize(text);
  return spans.map((s) => [s.label, s.text, s.start]);
}

function expectWellFormed(text: string, spans: TextSpan[]): void {
  for (const [i, s] of spans.entries()) {
    expect(text.slice(s.start, s.end)).toBe(s.text);
    expect(s.end).toBeGreaterThan(s.start);
    expect(ENTITY_LABELS).toContain(s.label);
    if (i > 0) expect(s.start).toBeGreaterThanOrEqual(spans[i - 1].end);
  }
}

describe('CompromiseRecognizer: exact spans', () => {
  it('names the backend with the compromise version and the dates plugin', () => {
    expect(recognizer.backend).toBe('compromise-14.17 (+dates)');
    expect(COMPROMISE_BACKEND).toBe(recognizer.backend);
  });

  it('finds organisations, money, people, places, dates and percentages', async () => {
    const text =
      'Apple Inc. paid $2.6 million to John Smith in Paris on Tuesday, a 20% rise from April 2014.';
    expect(await triples(text)).toEqual([
      ['ORG', 'Apple Inc.', 0],
      ['MONEY', '$2.6 million', 16],
      ['PERSON', 'John Smith', 32],
      ['PLACE', 'Paris', 46],
      ['DATE', 'Tuesday', 55],
      ['PERCENT', '20%', 66],
      ['DATE', 'April 2014', 80],
    ]);
  });

  it('splits a time from the date after it and keeps "March 3rd, 2021" whole', async () => {
    const text =
      'Three senators from the United Nations met Angela Merkel at 4:30pm on March 3rd, 2021; ' +
      'sales rose 20 percent to 2.6 million units.';
    expect(await triples(text)).toEqual([
      ['CARDINAL', 'Three', 0],
      ['ORG', 'United Nations', 24],
      ['PERSON', 'Angela Merkel', 43],
      ['TIME', '4:30pm', 60],
      ['DATE', 'March 3rd, 2021', 70],
      ['PERCENT', '20 percent', 98],
      ['CARDINAL', '2.6 million', 112],
    ]);
  });

  it('finds percentage points, leftover proper nouns (MISC) and drops commas', async () => {
    const text =
      'The Federal Reserve raised rates by 0.25 percentage points, said Jerome Powell, the Fed chair, in Washington.';
    expect(await triples(text)).toEqual([
      ['ORG', 'Federal Reserve', 4],
      ['PERCENT', '0.25 percentage points', 36],
      ['PERSON', 'Jerome Powell', 65],
      ['MISC', 'Fed', 84],
      ['PLACE', 'Washington', 98],
    ]);
  });

  it('finds demonyms (NORP), ordinals and money in other currencies', async () => {
    const text =
      'Microsoft and Google spent €5bn; Chinese and French officials met in Beijing last week for the second time.';
    expect(await triples(text)).toEqual([
      ['ORG', 'Microsoft', 0],
      ['ORG', 'Google', 14],
      ['MONEY', '€5bn', 27],
      ['NORP', 'Chinese', 33],
      ['NORP', 'French', 45],
      ['PLACE', 'Beijing', 69],
      ['DATE', 'last week', 77],
      ['ORDINAL', 'second', 95],
    ]);
  });

  it('finds ages, quantities, durations, "per cent" and times of day', async () => {
    const text =
      'The 26-year-old ran 5 km in 30 minutes, and 7 per cent of the 6,000 fans left at 10 a.m. on Saturday.';
    expect(await triples(text)).toEqual([
      ['DATE', '26-year-old', 4],
      ['QUANTITY', '5 km', 20],
      ['TIME', '30 minutes', 28],
      ['PERCENT', '7 per cent', 44],
      ['CARDINAL', '6,000', 62],
      ['TIME', '10 a.m.', 81],
      ['DATE', 'Saturday', 92],
    ]);
  });

  it('drops titles and possessives, splits "Birmingham, West Midlands"', async () => {
    const text =
      "Sir Bradley Wiggins met U.S. President Barack Obama and Wenger's team at Birmingham City Council in Birmingham, West Midlands.";
    expect(await triples(text)).toEqual([
      ['PERSON', 'Bradley Wiggins', 4],
      ['PLACE', 'U.S.', 24],
      ['PERSON', 'Barack Obama', 39],
      ['MISC', 'Wenger', 56],
      ['ORG', 'Birmingham City Council', 73],
      ['PLACE', 'Birmingham', 100],
      ['PLACE', 'West Midlands', 112],
    ]);
  });

  it('counts "three" and "2.6 million" as CARDINAL, "20 percent" as one PERCENT', async () => {
    const text = 'Profits rose 20 percent as three plants shipped 2.6 million cars.';
    expect(await triples(text)).toEqual([
      ['PERCENT', '20 percent', 13],
      ['CARDINAL', 'three', 27],
      ['CARDINAL', '2.6 million', 48],
    ]);
  });

  it('does not make entities of web addresses or e-mail addresses', async () => {
    const text =
      'See towardsdatascience.com/how-to-evaluate-llm-summarization-18a040c3905d/ or email jane@example.com about 3 things.';
    expect(await triples(text)).toEqual([['CARDINAL', '3', 107]]);
  });

  it('returns nothing for empty or entity-free text', async () => {
    expect(await recognizer.recognize('')).toEqual([]);
    expect(await recognizer.recognize('   \n ')).toEqual([]);
    expect(await recognizer.recognize('the cat sat on the mat and looked at the wall.')).toEqual(
      [],
    );
  });
});

describe('CompromiseRecognizer: overlaps', () => {
  it('MONEY beats the CARDINAL inside it; a DATE beats the number inside it', async () => {
    const text = 'It cost $2.6 million in April 2014.';
    const spans = await recognizer.recognize(text);
    expect(spans.map((s) => [s.label, s.text])).toEqual([
      ['MONEY', '$2.6 million'],
      ['DATE', 'April 2014'],
    ]);
  });

  it('resolveOverlaps keeps the longer span, then the more specific label', () => {
    const spans = [
      { start: 0, end: 3, label: 'CARDINAL' },
      { start: 0, end: 12, label: 'MONEY' },
      { start: 20, end: 24, label: 'CARDINAL' },
      { start: 20, end: 24, label: 'DATE' },
      { start: 14, end: 24, label: 'DATE' },
      { start: 30, end: 35, label: 'PLACE' },
      { start: 33, end: 40, label: 'ORG' },
      { start: 50, end: 55, label: 'MISC' },
      { start: 50, end: 55, label: 'PERSON' },
    ];
    expect(resolveOverlaps(spans)).toEqual([
      { start: 0, end: 12, label: 'MONEY' },
      { start: 14, end: 24, label: 'DATE' },
      { start: 33, end: 40, label: 'ORG' },
      { start: 50, end: 55, label: 'PERSON' },
    ]);
  });
});

describe('CompromiseRecognizer: offsets', () => {
  it('gives UTF-16 offsets that highlight the right substrings in awkward text', async () => {
    const text =
      '  😀 Angela Merkel\u00a0met\tJohn Smith in Paris.\r\nOn Monday, “Google” paid $5 million 👨‍👩‍👧 to 𝒜 Microsoft.\n\nSales rose 20%.';
    const spans = await recognizer.recognize(text);
    expectWellFormed(text, spans);
    expect(spans.map((s) => s.text)).toEqual([
      'Angela Merkel',
      'John Smith',
      'Paris',
      'Monday',
      'Google',
      '$5 million',
      'Microsoft',
      '20%',
    ]);
  });

  it('keeps offsets right across paragraphs of a long text (parsed in chunks)', async () => {
    const paragraph =
      'On Tuesday, Angela Merkel met John Smith in Paris and paid $2.6 million for 20% of Google.';
    const text = Array.from({ length: 300 }, (_, i) => `${i + 1}. ${paragraph}`).join('\n\n');
    expect(text.length).toBeGreaterThan(20_000 * 1.2);
    const spans = await recognizer.recognize(text);
    expectWellFormed(text, spans);
    expect(spans.filter((s) => s.text === 'Angela Merkel')).toHaveLength(300);
    expect(spans.filter((s) => s.label === 'MONEY')).toHaveLength(300);
  });

  it('gives sorted, non-overlapping, exact spans on real news articles', async () => {
    const rows = readJsonl<{ text: string; references: string[] }>('data/summeval/dev.jsonl').slice(
      0,
      60,
    );
    const texts = [...new Set(rows.flatMap((r) => [r.text, r.references[0]]))];
    for (const text of texts) expectWellFormed(text, await recognizer.recognize(text));
  });
});

describe('CompromiseRecognizer: cancel', () => {
  it('rejects with AbortError when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(recognizer.recognize('John Smith', controller.signal)).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('stops between chunks of a long text', async () => {
    const text = Array.from({ length: 1200 }, () => 'Angela Merkel met John Smith in Paris.').join(
      '\n\n',
    );
    const controller = new AbortController();
    const pending = recognizer.recognize(text, controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('CompromiseRecognizer: languages', () => {
  it('marks English as supported, also dense, headline-like English', () => {
    expect(assessLanguage('John Smith flew to Paris on Tuesday to meet the board.').supported).toBe(
      true,
    );
    const dense =
      'Serena Williams struggled to beat Sara Errani during Fed Cup clash. World No 1 Williams eventually defeated Errani 4-6 7-6(3) 6-3.';
    expect(assessLanguage(dense).supported).toBe(true);
    expect(assessLanguage('').supported).toBe(true);
    expect(assessLanguage('2014: 3.5%').supported).toBe(true);
  });

  it('marks non-Latin and non-English Latin text as unsupported, with a note', () => {
    const zh = '阿里巴巴在2014年9月19日于纽约证券交易所上市，融资250亿美元。';
    const ru = 'Компания заработала 2,6 млн рублей в 2014 году. Владимир Путин посетил Москву.';
    const id =
      'Presiden Joko Widodo mengunjungi Jakarta pada hari Senin bersama 300 orang dan menteri yang baru untuk membahas anggaran dengan pemerintah daerah.';
    for (const text of [zh, ru, id]) {
      const a = assessLanguage(text);
      expect(a.supported, text).toBe(false);
      expect(a.note).toMatch(/English only/);
    }
    expect(recognizer.languageSupport(zh).supported).toBe(false);
  });

  it('finds digit numbers, percentages and 年/月/日 dates in Chinese text', async () => {
    const text = '阿里巴巴在2014年9月19日于纽约证券交易所上市，融资250亿美元。增长了20%。';
    const spans = await recognizer.recognize(text);
    expectWellFormed(text, spans);
    expect(spans.map((s) => [s.label, s.text])).toEqual([
      ['DATE', '2014年9月19日'],
      ['CARDINAL', '250亿'],
      ['PERCENT', '20%'],
    ]);
  });

  it('finds numbers in Russian text (compromise reads English only)', async () => {
    const text = 'Компания заработала 2,6 млн рублей в 2014 году.';
    const spans = await recognizer.recognize(text);
    expectWellFormed(text, spans);
    expect(spans.map((s) => s.text)).toEqual(['2,6', '2014']);
  });
});

describe('CompromiseRecognizer: runs in a Web Worker', () => {
  it('imports no Node built-ins', () => {
    const semantic = new URL('../../../../src/lib/metrics/semantic/', import.meta.url);
    const rules = readdirSync(new URL('compromise/', semantic)).map((f) => `compromise/${f}`);
    for (const file of ['compromise-ner.ts', ...rules]) {
      const source = readFileSync(new URL(file, semantic), 'utf8');
      expect(source, file).not.toMatch(/from ['"](?:node:|fs|path|os|url)['"/]/);
      expect(source, file).not.toMatch(/\bprocess\.|\brequire\(/);
    }
  });
});

describe('CompromiseRecognizer: long texts without paragraph breaks', () => {
  it('parses a text of many chunks as the sum of its sentences', async () => {
    const paragraph =
      'The European Space Agency launched its Juice probe from Kourou, French Guiana, on 14 April 2023. ' +
      'It cost 1.6 billion euros and will reach Jupiter in July 2031. ';
    const once = await recognizer.recognize(paragraph);
    const copies = Math.ceil(65_000 / paragraph.length);
    const long = paragraph.repeat(copies);
    const spans = await recognizer.recognize(long);
    expectWellFormed(long, spans);
    expect(spans.length).toBe(once.length * copies);
  });

  it('cuts a text with no punctuation at spaces instead of parsing it whole', async () => {
    const text = 'London '.repeat(12_000);
    const spans = await recognizer.recognize(text);
    expectWellFormed(text, spans);
    expect(spans.length).toBeGreaterThan(0);
  });
});

describe('CompromiseRecognizer: context rules', () => {
  it('takes a season word for a date only in a date context', async () => {
    expect(await triples('Prices saw a 5 percent fall in March.')).toEqual([
      ['PERCENT', '5 percent', 13],
      ['DATE', 'March', 31],
    ]);
    expect(await triples('Leaves drop in fall.')).toEqual([['DATE', 'fall', 15]]);
    expect(await triples('Rates spring back.')).toEqual([]);
  });

  it('keeps "X of Y" names as one entity', async () => {
    const spans = await triples('The Chamber of Commerce objected.');
    expect(spans).toEqual([['MISC', 'Chamber of Commerce', 4]]);
  });
});
