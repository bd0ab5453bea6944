import { describe, expect, it } from 'vitest';
import {
  checkFacts,
  factCheckSpans,
  scoreFactCheck,
  type FactCheckDetails,
  type FactItem,
} from '../../../../src/lib/metrics/lexical/fact-check/fact-check.ts';
import { factCheckMetric } from '../../../../src/lib/metrics/lexical/fact-check/record.ts';
import { numbersAndDates } from '../../../../src/lib/metrics/lexical/fact-check/fact-check-numbers.ts';
import { CompromiseRecognizer } from '../../../../src/lib/metrics/semantic/compromise-ner.ts';
import { caseTokenizer } from '../../../../src/lib/metrics/text/case-tokenizer.ts';
import { DEFAULT_SETTINGS } from '../../../../src/lib/metrics/settings.ts';
import type { MetricResult } from '../../../../src/lib/metrics/types.ts';

const SOURCE = [
  'ROME, March 3, 2015 — Italian and Maltese rescuers pulled 8,480 migrants from the Mediterranean Sea over the weekend, the International Organization for Migration (IOM) said on Tuesday.',
  'Most of them had left Libya in overcrowded rubber boats, and at least 12 bodies were recovered.',
  'Save the Children said that at least 400 of those rescued were children travelling alone.',
  '"We are seeing more unaccompanied children every week," said Giovanna Di Benedetto, a spokeswoman for the charity in Sicily.',
  'The IOM estimates that some 2,000,000 people have crossed the sea since 2014, and that 3.5% of them died.',
  'Federica Mogherini, the EU foreign policy chief, called for a joint European response.',
].join(' ');

const FAITHFUL = [
  'Italian and Maltese rescuers pulled 8,480 migrants from the Mediterranean over the weekend, the IOM said on Tuesday.',
  'Save the Children said at least 400 of them were children travelling alone.',
  'A spokeswoman, Di Benedetto, said "we are seeing more unaccompanied children every week".',
  'Some two million people have crossed since 2014, and Mogherini called for a joint response.',
].join(' ');

const english = caseTokenizer('en');
const compromise = new CompromiseRecognizer();

async function check(summary: string, source = SOURCE) {
  const names = await compromise.recognize(summary);
  return scoreFactCheck(source, summary, {
    tokenizer: english,
    names,
    namesBackend: compromise.backend,
  });
}

function detailsOf(result: MetricResult<'fact-check'>): FactCheckDetails {
  if (result.status !== 'ok') throw new Error(`not scored: ${result.reason}`);
  return result.details;
}

function item(details: FactCheckDetails, text: string): FactItem {
  const found = details.items.find((i) => i.text === text);
  if (!found) throw new Error(`no item ${text}: ${details.items.map((i) => i.text).join(' | ')}`);
  return found;
}

describe('fact check on an English news report', () => {
  it('finds every number, date, name and quote of a faithful summary', async () => {
    const result = await check(FAITHFUL);
    const details = detailsOf(result);
    expect(result.score).toBe(1);
    expect(details.items.filter((i) => !i.found)).toEqual([]);
    expect(factCheckSpans(details)).toEqual([]);
    expect(details.counts.number.total).toBeGreaterThanOrEqual(3);
    expect(details.counts.entity.total).toBeGreaterThanOrEqual(4);
    expect(details.counts.quote).toEqual({ total: 1, found: 1 });
    expect(details.extractors).toContain('compromise');
    expect(result.backend).toMatch(/^fact-check \(numbers, dates, entities, quotes; compromise-/u);
    expect(item(details, 'two million').source?.text).toBe('2,000,000');
    expect(item(details, 'Di Benedetto').found).toBe(true);
    expect(item(details, 'Mogherini').match).toBe('surname');
  });

  it('flags a changed number with the closest source number, and a swapped organisation with the name it replaced', async () => {
    const edited = FAITHFUL.replace('8,480', '18,480').replace(
      'Save the Children',
      'Doctors Without Borders',
    );
    const result = await check(edited);
    const details = detailsOf(result);
    expect(result.score).toBeLessThan(1);
    const number = item(details, '18,480');
    expect(number.found).toBe(false);
    expect(number.source?.text).toBe('8,480');
    expect(number.source?.context).toContain('pulled 8,480 migrants');
    const org = item(details, 'Doctors Without Borders');
    expect(org.found).toBe(false);
    expect(org.source?.text).toBe('Save the Children');
    expect(details.items.filter((i) => !i.found).map((i) => i.text)).toEqual([
      '18,480',
      'Doctors Without Borders',
    ]);
    const spans = factCheckSpans(details);
    expect(spans.map((s) => edited.slice(s.start, s.end))).toEqual([
      '18,480',
      'Doctors Without Borders',
    ]);
    expect(spans[0].label).toBe('not in source');
    expect(result.explanation).toMatch(/not found: “18,480”, “Doctors Without Borders”/u);
  });

  it('accepts rounding only after a hedge', async () => {
    const hedged = detailsOf(await check('About 8,500 migrants were rescued.'));
    expect(item(hedged, '8,500')).toMatchObject({ found: true, match: 'hedged', hedged: true });
    expect(item(hedged, '8,500').source?.text).toBe('8,480');
    const bare = detailsOf(await check('Rescuers saved 8,500 migrants.'));
    expect(item(bare, '8,500')).toMatchObject({ found: false, hedged: false });
    expect(item(bare, '8,500').source?.text).toBe('8,480');
    // "more than" is one-sided: 8,480 is not more than 9,000.
    const wrongWay = detailsOf(await check('More than 9,000 migrants were rescued.'));
    expect(item(wrongWay, '9,000').found).toBe(false);
    const rightWay = detailsOf(await check('More than 8,000 migrants were rescued.'));
    expect(item(rightWay, '8,000').found).toBe(true);
  });

  it('reads number words, spaced digit groups, percentages and full-width digits', async () => {
    const details = detailsOf(
      await check(
        'Two million people crossed; 8 480 were rescued, 3.5 per cent died and １２ bodies were found.',
      ),
    );
    expect(item(details, 'Two million').found).toBe(true);
    expect(item(details, '8 480').found).toBe(true);
    expect(item(details, '3.5 per cent').found).toBe(true);
    expect(item(details, '１２').found).toBe(true);
  });

  it('matches a surname alone, an acronym with its expansion and the other way round', async () => {
    const source =
      'Barack Obama met officials of the United Nations High Commissioner for Refugees. The International Organization for Migration (IOM) sent a team.';
    const details = detailsOf(
      await check(
        'Obama met the UNHCR. The IOM and the International Organization for Migration sent a team.',
        source,
      ),
    );
    expect(item(details, 'Obama')).toMatchObject({ found: true, match: 'surname' });
    expect(item(details, 'UNHCR')).toMatchObject({ found: true, match: 'acronym' });
    expect(item(details, 'IOM').found).toBe(true);
    const reverse = detailsOf(
      await check(
        'The International Organization for Migration sent a team.',
        'The IOM sent a team.',
      ),
    );
    expect(item(reverse, 'International Organization for Migration')).toMatchObject({
      found: true,
      match: 'acronym',
    });
  });

  it('is n/a when the summary states nothing to check, or the source is empty', async () => {
    const none = await check('The rescue went on through the night and many were saved.');
    expect(none.status).toBe('n/a');
    expect(none.reason).toMatch(/no numbers, dates, names or quotes/u);
    const empty = await check(FAITHFUL, '  ');
    expect(empty.status).toBe('n/a');
    expect(empty.reason).toBe('needs the source text');
  });
});

describe('fact check in other languages', () => {
  it('Chinese: CJK numerals equal digits, a changed number is flagged', () => {
    const source =
      '国际移民组织3月3日表示，周末共有3000名移民在地中海获救，其中约二十五人是儿童。IOM称，自2014年以来已有3万人死亡。';
    const faithful = detailsOf(
      scoreFactCheck(
        source,
        '周末三千名移民获救，其中二十五人是儿童，IOM说自2014年以来3万人死亡。',
        {
          tokenizer: caseTokenizer('zh'),
        },
      ),
    );
    expect(faithful.items.filter((i) => !i.found)).toEqual([]);
    expect(item(faithful, '三千').source?.text).toBe('3000');
    expect(item(faithful, 'IOM').found).toBe(true);
    expect(faithful.extractors).not.toContain('compromise');
    const changed = detailsOf(
      scoreFactCheck(source, '周末有5000名移民获救。', { tokenizer: caseTokenizer('zh') }),
    );
    expect(item(changed, '5000')).toMatchObject({ found: false });
    expect(item(changed, '5000').source?.text).toBe('3000');
  });

  it('Chinese: a hedge after the number ("多") accepts a source number above it', () => {
    const details = detailsOf(
      scoreFactCheck('共有3120人获救。', '3000多人获救。', { tokenizer: caseTokenizer('zh') }),
    );
    expect(item(details, '3000')).toMatchObject({ found: true, match: 'hedged', hedge: '多' });
  });

  it('Japanese: numbers, dates and quotes', () => {
    const source =
      '国際移住機関（IOM）は2015年3月3日、週末に8480人の移民が救助されたと発表した。担当者は「子どもの数が毎週増えている」と述べた。';
    const faithful = detailsOf(
      scoreFactCheck(
        source,
        'IOMによると、2015年3月3日に約8500人が救助された。「子どもの数が毎週増えている」という。',
        {
          tokenizer: caseTokenizer('ja'),
        },
      ),
    );
    expect(faithful.items.filter((i) => !i.found)).toEqual([]);
    expect(item(faithful, '8500')).toMatchObject({ hedged: true, match: 'hedged' });
    expect(item(faithful, '子どもの数が毎週増えている').kind).toBe('quote');
    const changed = detailsOf(
      scoreFactCheck(source, '2015年3月4日に8480人が救助された。', {
        tokenizer: caseTokenizer('ja'),
      }),
    );
    expect(item(changed, '2015年3月4日').found).toBe(false);
    expect(item(changed, '2015年3月4日').source?.text).toBe('2015年3月3日');
  });

  it('Russian: an inflected name is found, a changed number is flagged', () => {
    const source =
      'По словам Марии Ивановой, представителя Международной организации по миграции (МОМ), за выходные спасли 8 480 мигрантов. Она сообщила об этом 3 марта 2015 года в Москве.';
    const details = detailsOf(
      scoreFactCheck(
        source,
        'Мария Иванова сообщила в Москве, что спасли 18 480 мигрантов. Это случилось 3 марта.',
        { tokenizer: caseTokenizer('ru') },
      ),
    );
    expect(item(details, 'Мария Иванова')).toMatchObject({ found: true, match: 'inflected' });
    expect(item(details, 'Москве').found).toBe(true);
    expect(item(details, '3 марта').found).toBe(true);
    expect(item(details, '18 480')).toMatchObject({ found: false });
    expect(item(details, '18 480').source?.text).toBe('8 480');
    expect(details.extractors).not.toContain('compromise');
  });
});

describe('numbers and dates', () => {
  it('reads each form once, dates before their digits', () => {
    const { numbers, dates } = numbersAndDates(
      'On March 3, 2015, $2.5 million, £300, the third boat, the 21st, four boats, a dozen ships and 3万 people.',
    );
    expect(dates.map((d) => d.text)).toEqual(['March 3, 2015']);
    expect(numbers.map((n) => [n.text, n.values[0]])).toEqual([
      ['$2.5 million', 2_500_000],
      ['£300', 300],
      ['third', 3],
      ['21st', 21],
      ['four', 4],
      ['a dozen', 12],
      ['3万', 30_000],
    ]);
  });
});

describe('fact check at scale', () => {
  it('checks a summary with 500 numbers against a 300,000-word source', () => {
    const sentence =
      'The agency said that 8,480 migrants reached the coast on March 3, 2015, and Save the Children counted 400 minors among them. ';
    const words = sentence.split(/\s+/u).length - 1;
    let source = sentence.repeat(Math.ceil(300_000 / words));
    source +=
      'In the last report the International Organization for Migration (IOM) counted 12,345 arrivals.';
    const summary = Array.from(
      { length: 500 },
      (_, i) => `Boat ${i + 1} carried ${1000 + i * 7} people.`,
    ).join(' ');
    const started = performance.now();
    const result = scoreFactCheck(source, summary, { tokenizer: english });
    const elapsed = performance.now() - started;
    const details = detailsOf(result);
    expect(details.counts.number.total).toBeGreaterThanOrEqual(500);
    expect(details.sourceChars).toBe(source.length);
    console.info(
      `fact-check: 500 numbers × ${words * Math.ceil(300_000 / words)}-word source in ${Math.round(elapsed)} ms`,
    );
  }, 60_000);
});

describe('the record', () => {
  it('scores through the lexical worker path, with compromise for English', async () => {
    const result = await factCheckMetric.compute({
      input: { source: SOURCE, summary: FAITHFUL, language: 'en' },
      settings: DEFAULT_SETTINGS,
      backends: {},
      tokenizer: async () => english,
    });
    expect(result.id).toBe('fact-check');
    expect(result.status).toBe('ok');
    expect(result.score).toBe(1);
    expect(factCheckMetric.info.needs).toBe('reference');
  });

  it('checks without compromise in other languages', async () => {
    const details = checkFacts('Мария Иванова приехала 3 марта.', 'Марию Иванову ждали 3 марта.', {
      tokenizer: caseTokenizer('ru'),
    });
    expect(details.items.every((i) => i.found)).toBe(true);
    expect(details.extractors).toEqual(['numbers', 'dates', 'quotes', 'capitalised', 'acronyms']);
  });
});
