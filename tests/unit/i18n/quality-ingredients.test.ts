/** The quality card's ingredients read in the reader's language: each has a message, translated. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { QUALITY_FEATURE_IDS } from '../../../src/lib/metrics/lexical/quality-offline/quality-features.ts';
import { en } from '../../../src/lib/i18n/catalog-en.ts';

const catalog = (locale: string) =>
  JSON.parse(
    readFileSync(new URL(`../../../src/messages/${locale}/details.json`, import.meta.url), 'utf8'),
  ) as Record<string, string>;

describe('quality ingredients', () => {
  it.each(['zh-CN', 'ru', 'ja', 'id'])('every ingredient has its own %s words', (locale) => {
    const words = catalog(locale);
    for (const id of QUALITY_FEATURE_IDS) {
      const key = `details.quality.feature.${id}`;
      expect(en, key).toHaveProperty(key);
      expect(words[key], `${locale} ${key}`).toBeTruthy();
      // Words, not the English label copied over.
      expect(words[key], `${locale} ${key}`).not.toBe((en as Record<string, string>)[key]);
    }
  });
});
