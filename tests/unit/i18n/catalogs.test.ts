import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { LOCALES } from '../../../src/lib/i18n/locales.ts';
import { en } from '../../../src/lib/i18n/catalog-en.ts';
import { formatMessage } from '../../../src/lib/i18n/message.ts';

const root = join(import.meta.dirname, '..', '..', '..', 'src', 'messages');

function readLocale(locale: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of readdirSync(join(root, locale)).filter((f) => f.endsWith('.json'))) {
    const messages = JSON.parse(readFileSync(join(root, locale, file), 'utf8')) as Record<
      string,
      string
    >;
    for (const [key, value] of Object.entries(messages)) {
      if (key.startsWith('@')) continue;
      expect(out[key], `${locale}/${file}: ${key} is defined twice`).toBeUndefined();
      out[key] = value;
    }
  }
  return out;
}

/** The argument names a message interpolates, through plurals and selects. */
function argumentsOf(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type === TYPE.literal || el.type === TYPE.pound) continue;
    if (el.type === TYPE.tag) {
      argumentsOf(el.children, into);
      continue;
    }
    into.add(el.value);
    if (el.type === TYPE.plural || el.type === TYPE.select) {
      for (const option of Object.values(el.options)) argumentsOf(option.value, into);
    }
  }
  return into;
}

const english = readLocale('en');

describe('message catalogs', () => {
  it('the catalog the page bundles is every English file', () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(english).sort());
  });

  it('keys are namespaced by their file', () => {
    // metrics.json is generated from the metric records, which keep their messages' old keys.
    const namespaced = (f: string) => f.endsWith('.json') && f !== 'metrics.json';
    for (const file of readdirSync(join(root, 'en')).filter(namespaced)) {
      const ns = file.replace(/\.json$/u, '');
      const messages = JSON.parse(readFileSync(join(root, 'en', file), 'utf8')) as object;
      for (const key of Object.keys(messages)) expect(key.startsWith(`${ns}.`), key).toBe(true);
    }
  });

  for (const locale of LOCALES.filter((l) => l !== 'en')) {
    describe(locale, () => {
      const own = readLocale(locale);

      it('has every English key and no key English lacks', () => {
        const missing = Object.keys(english).filter((k) => !(k in own));
        const extra = Object.keys(own).filter((k) => !(k in english));
        expect(missing, `${locale} lacks these keys`).toEqual([]);
        expect(extra, `${locale} has keys English lacks`).toEqual([]);
      });

      it('each message parses and uses the same arguments as English', () => {
        for (const [key, source] of Object.entries(english)) {
          const translated = own[key];
          if (translated === undefined) continue;
          const want = [...argumentsOf(parse(source, { ignoreTag: true }))].sort();
          const got = [...argumentsOf(parse(translated, { ignoreTag: true }))].sort();
          expect(got, `${locale} ${key}`).toEqual(want);
        }
      });

      it('marks its translations for review in every file', () => {
        for (const file of readdirSync(join(root, locale)).filter((f) => f.endsWith('.json'))) {
          const messages = JSON.parse(readFileSync(join(root, locale, file), 'utf8')) as Record<
            string,
            string
          >;
          expect(messages['@review'], `${locale}/${file}`).toMatch(/review/u);
        }
      });
    });
  }

  it('English messages parse', () => {
    for (const [key, source] of Object.entries(english)) {
      expect(() => parse(source, { ignoreTag: true }), key).not.toThrow();
    }
  });
});

describe('formatMessage', () => {
  it('plurals follow each language’s rules through Intl', () => {
    const catalog = {
      'common.literal':
        '{n, plural, one {# предложение} few {# предложения} many {# предложений} other {# предложения}}',
    };
    const word = (n: number) => formatMessage('ru', catalog as never, 'common.literal', { n });
    expect(word(1)).toBe('1 предложение');
    expect(word(3)).toBe('3 предложения');
    expect(word(5)).toBe('5 предложений');
    expect(word(21)).toBe('21 предложение');
  });

  it('falls back to English for a key the catalog lacks, and shows an unknown key as itself', () => {
    expect(formatMessage('ja', {}, 'common.close')).toBe('Close');
    expect(formatMessage('ja', {}, 'no.such.key')).toBe('no.such.key');
  });

  it('formats nested refs in the same language', () => {
    const catalog = { 'common.literal': '«{text}»', 'common.close': 'Закрыть' };
    expect(
      formatMessage('ru', catalog as never, 'common.literal', { text: { key: 'common.close' } }),
    ).toBe('«Закрыть»');
  });
});
