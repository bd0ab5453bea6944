import { describe, expect, it } from 'vitest';
import { en } from '../../../src/lib/i18n/catalog-en.ts';

const chunks = {
  'zh-CN': () => import('../../../src/messages/zh-CN/index.ts'),
  ja: () => import('../../../src/messages/ja/index.ts'),
  ru: () => import('../../../src/messages/ru/index.ts'),
  id: () => import('../../../src/messages/id/index.ts'),
};

describe('the chunk the page loads for a language', () => {
  for (const [locale, load] of Object.entries(chunks)) {
    it(`${locale} holds every key and no review mark`, async () => {
      const { default: catalog } = await load();
      expect(Object.keys(catalog).sort()).toEqual(Object.keys(en).sort());
    });
  }
});
