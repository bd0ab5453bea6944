/**
 * The words of an export: the reports, titles and headers a person reads come in the language the
 * page was in when the file was made. Plain TS (the calibration worker and the CLI build exports
 * too): a builder takes `words`, English by default, and the page passes its `t`.
 */
import type { Catalog, MessageKey } from '../../i18n/catalog-en.ts';
import type { Locale } from '../../i18n/locales.ts';
import { english, formatMessage, type MessageValues } from '../../i18n/message.ts';

export type Words = (key: MessageKey, values?: MessageValues) => string;

export const englishWords: Words = english;

export function wordsOf(locale: Locale, catalog: Catalog): Words {
  return (key, values) => formatMessage(locale, catalog, key, values);
}

const catalogs: Record<Exclude<Locale, 'en'>, () => Promise<{ default: Catalog }>> = {
  'zh-CN': () => import('../../../messages/zh-CN/index.ts'),
  ja: () => import('../../../messages/ja/index.ts'),
  ru: () => import('../../../messages/ru/index.ts'),
  id: () => import('../../../messages/id/index.ts'),
};

/** The words of `locale`, its catalog loaded on first use (in a worker, which has only English). */
export async function loadWords(locale: Locale | undefined): Promise<Words> {
  if (locale === undefined || locale === 'en') return englishWords;
  const { default: catalog } = await catalogs[locale]();
  return wordsOf(locale, catalog);
}

/**
 * A CSV header a program matches: the id alone where the label reads the same (English), else
 * the label with the id in brackets, as the score columns are written.
 */
export function csvHeader(label: string, id: string): string {
  return label === id ? id : `${label} [${id}]`;
}
