/**
 * The page's language: a rune so every `t(…)` in a template re-renders when the reader switches.
 * English ships with the page; another language's catalog is one chunk fetched when first chosen,
 * so the first paint carries no other language's messages.
 */
import { en, type Catalog, type MessageKey } from './catalog-en.ts';
import { LOCALES, SOURCE_LOCALE, isLocale, matchLocale, type Locale } from './locales.ts';
import { formatMessage, isMessageRef, type MessageRef, type MessageValues } from './message.ts';

const STORAGE_KEY = 'sumlens.locale';

const loaders: Record<Exclude<Locale, 'en'>, () => Promise<{ default: Catalog }>> = {
  'zh-CN': () => import('../../messages/zh-CN/index.ts'),
  ja: () => import('../../messages/ja/index.ts'),
  ru: () => import('../../messages/ru/index.ts'),
  id: () => import('../../messages/id/index.ts'),
};

class I18nState {
  locale = $state<Locale>(SOURCE_LOCALE);
  catalogs = $state.raw<Partial<Record<Locale, Catalog>>>({ en });
  /** A language whose catalog is on its way (the picker shows it as pending). */
  loading = $state<Locale | undefined>();
}

export const i18n = new I18nState();

async function catalogFor(locale: Locale): Promise<Catalog> {
  const held = i18n.catalogs[locale];
  if (held) return held;
  if (locale === 'en') return en;
  const { default: catalog } = await loaders[locale]();
  i18n.catalogs = { ...i18n.catalogs, [locale]: catalog };
  return catalog;
}

/**
 * Switch the interface language. The catalog loads before the switch, so the page never shows a
 * mix of two languages; with `remember`, the choice is kept on this device for the next visit.
 */
export async function setLocale(locale: Locale, remember = true): Promise<void> {
  i18n.loading = locale;
  try {
    await catalogFor(locale);
  } finally {
    if (i18n.loading === locale) i18n.loading = undefined;
  }
  i18n.locale = locale;
  if (typeof document !== 'undefined') document.documentElement.lang = locale;
  if (remember) {
    try {
      localStorage.setItem(STORAGE_KEY, locale);
    } catch {
      // Storage refused (private mode, quota): the choice lasts for this visit only.
    }
  }
}

/** The remembered choice, else the browser's languages, else English. */
export function initialLocale(): Locale {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (isLocale(stored)) return stored;
  } catch {
    // No storage: fall through to the browser's languages.
  }
  const preferred = typeof navigator === 'undefined' ? [] : (navigator.languages ?? []);
  return matchLocale(preferred.length > 0 ? preferred : [navigator?.language ?? SOURCE_LOCALE]);
}

/** Called once at start-up, before mount: resolves when the first language's messages are in. */
export async function initLocale(): Promise<void> {
  const locale = initialLocale();
  try {
    await setLocale(locale, false);
  } catch {
    // The chunk failed to load (offline first visit mid-deploy): English is always there.
    await setLocale(SOURCE_LOCALE, false);
  }
}

/** The message `key` in the page's language. */
export function t(key: MessageKey, values?: MessageValues): string {
  const locale = i18n.locale;
  return formatMessage(locale, i18n.catalogs[locale] ?? en, key, values);
}

/** A stored ref in the page's language. */
export function tr(message: MessageRef): string {
  return t(message.key, message.values);
}

/**
 * A result's text in the page's language: its ref when it has one, else the stored text (results
 * saved before messages had refs, or text that came from a model).
 */
export function localized(text: string | undefined, message?: MessageRef | unknown): string {
  if (isMessageRef(message)) return tr(message);
  return text ?? '';
}

export { LOCALES };
export type { Locale };
