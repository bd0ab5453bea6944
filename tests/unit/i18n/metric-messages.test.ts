import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import {
  fillLocale,
  icuEscape,
  metricMessages,
  UNTRANSLATED_FILE,
  type UntranslatedList,
} from '../../../scripts/i18n-metrics.ts';
import { LOCALES } from '../../../src/lib/i18n/locales.ts';
import { METRIC_RECORDS } from '../../../src/lib/metrics/registry.ts';
import type { MetricRecord } from '../../../src/lib/metrics/record.ts';

const root = join(import.meta.dirname, '..', '..', '..', 'src', 'messages');
const readJson = <T>(...path: string[]): T =>
  JSON.parse(readFileSync(join(root, ...path), 'utf8')) as T;

function formatted(icu: string): string {
  return String(new IntlMessageFormat(icu, 'en', undefined, { ignoreTag: true }).format());
}

describe('icuEscape', () => {
  it.each([
    "the source's order",
    "'quoted' words and '' two apostrophes",
    'a {brace} pair, a lone { and }',
    "an apostrophe before a brace: '{n}'",
    'a # outside a plural, <b>not a tag</b>',
  ])('formats back to the plain text: %s', (plain) => {
    expect(formatted(icuEscape(plain))).toBe(plain);
  });
});

describe('the generated metric messages', () => {
  it('src/messages/en/metrics.json is what the records say (run npm run i18n:metrics)', () => {
    expect(readJson<Record<string, string>>('en', 'metrics.json')).toEqual(
      metricMessages(METRIC_RECORDS),
    );
  });

  it('each record’s plain English comes back unchanged when its entry is formatted', () => {
    const catalog = readJson<Record<string, string>>('en', 'metrics.json');
    for (const [id, record] of Object.entries(METRIC_RECORDS) as Array<[string, MetricRecord]>) {
      expect(formatted(catalog[`card.metric.${id}.label`]!), id).toBe(record.info.label);
      expect(formatted(catalog[`card.metric.${id}.meaning`]!), id).toBe(record.info.meaning);
      if (record.info.citation) {
        expect(formatted(catalog[`card.metric.${id}.citation`]!), id).toBe(record.info.citation);
      }
      for (const [key, text] of Object.entries(record.messages ?? {})) {
        expect(catalog[key], `${id}: ${key}`).toBe(text);
      }
    }
  });

  it('refuses a key two records define', () => {
    const record = METRIC_RECORDS.bleu;
    const twice = {
      a: { ...record, messages: { 'lexical.same': 'one' } },
      b: { ...record, messages: { 'lexical.same': 'two' } },
    } as Record<string, MetricRecord>;
    expect(() => metricMessages(twice)).toThrow(/lexical\.same is defined by two records/u);
  });

  for (const locale of LOCALES.filter((l) => l !== 'en')) {
    it(`${locale}: every key it lists as untranslated is in its metrics.json in English`, () => {
      const english = readJson<Record<string, string>>('en', 'metrics.json');
      const own = readJson<Record<string, string>>(locale, 'metrics.json');
      const { keys } = readJson<UntranslatedList>(locale, UNTRANSLATED_FILE);
      for (const key of keys) expect(own[key], `${locale} ${key}`).toBe(english[key]);
      console.info(`${locale}: ${keys.length} metric messages untranslated`);
    });
  }
});

describe('fillLocale', () => {
  const english = {
    'card.metric.x.label': 'X',
    'card.metric.x.meaning': 'Means x',
    'lexical.x.note': 'A note',
  };
  const review = { '@review': 'machine-written' };

  it('moves translations into metrics.json, fills the rest in English and lists them', () => {
    const { files, untranslated } = fillLocale(
      {
        'card.json': { ...review, 'card.other': 'Autre', 'card.metric.x.label': 'Iks' },
        'lexical.json': {
          ...review,
          'lexical.x.note': 'Une note',
          'card.metric.gone.label': 'Old',
        },
      },
      english,
      [],
    );
    expect(files['card.json']).toEqual({ ...review, 'card.other': 'Autre' });
    // A key no record has any more stays where it is: it is not a metric key of this generation.
    expect(files['lexical.json']).toEqual({ ...review, 'card.metric.gone.label': 'Old' });
    expect(files['metrics.json']).toMatchObject({
      'card.metric.x.label': 'Iks',
      'card.metric.x.meaning': 'Means x',
      'lexical.x.note': 'Une note',
    });
    expect(untranslated.keys).toEqual(['card.metric.x.meaning']);
  });

  it('keeps a filled key listed until its text changes, then counts it translated', () => {
    const before = fillLocale({ 'metrics.json': {} }, english, []);
    expect(before.untranslated.keys).toEqual(Object.keys(english));
    const again = fillLocale(before.files, english, before.untranslated.keys);
    expect(again.untranslated.keys).toEqual(Object.keys(english));
    const translated = {
      'metrics.json': { ...again.files['metrics.json'], 'lexical.x.note': 'Une note' },
    };
    expect(fillLocale(translated, english, again.untranslated.keys).untranslated.keys).toEqual([
      'card.metric.x.label',
      'card.metric.x.meaning',
    ]);
  });
});
