/**
 * The interface languages. Each has a message catalog under src/messages/<tag>/; English is the
 * source, bundled with the page, and the others load on demand.
 */
export const LOCALES = ['en', 'zh-CN', 'ja', 'ru', 'id'] as const;
export type Locale = (typeof LOCALES)[number];
export const SOURCE_LOCALE: Locale = 'en';

/** Each language named in itself, so a person who cannot read the current one finds theirs. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  'zh-CN': '简体中文',
  ja: '日本語',
  ru: 'Русский',
  id: 'Bahasa Indonesia',
};

export function isLocale(tag: unknown): tag is Locale {
  return typeof tag === 'string' && (LOCALES as readonly string[]).includes(tag);
}

/**
 * The first of the browser's preferred languages that we have, by exact tag and then by primary
 * language ("zh-Hans-CN", "zh-SG" and "zh" all get 简体中文, "in" is the old code for Indonesian).
 * Traditional Chinese (zh-TW, zh-HK, zh-Hant) is not 简体中文, so it falls through to the next.
 */
export function matchLocale(preferred: readonly string[]): Locale {
  for (const raw of preferred) {
    const tag = raw.trim();
    if (!tag) continue;
    if (isLocale(tag)) return tag;
    let locale: Intl.Locale;
    try {
      locale = new Intl.Locale(tag).maximize();
    } catch {
      continue;
    }
    const language = locale.language === 'in' ? 'id' : locale.language;
    if (language === 'zh') {
      if (locale.script === 'Hans') return 'zh-CN';
      continue;
    }
    const hit = LOCALES.find((l) => l.split('-')[0] === language);
    if (hit) return hit;
  }
  return SOURCE_LOCALE;
}
