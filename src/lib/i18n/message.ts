/**
 * Messages in ICU MessageFormat (plurals, selects, numbers and dates through Intl), formatted by
 * FormatJS's intl-messageformat. Plain TypeScript with no runes, so metric modules in the workers
 * and the CLI use it too: they return a MessageRef next to the English text, and the page renders
 * the ref in the reader's language.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import { en, type Catalog, type MessageKey } from './catalog-en.ts';
import type { Locale } from './locales.ts';

export type { MessageKey } from './catalog-en.ts';

/** A value a message interpolates; a nested ref is formatted in the same language first. */
export type MessageValue = string | number | Date | MessageRef;
export type MessageValues = Record<string, MessageValue>;

/** A message to be worded later, in whatever language the reader has: stored with results. */
export interface MessageRef {
  key: MessageKey;
  values?: MessageValues;
}

export function ref(key: MessageKey, values?: MessageValues): MessageRef {
  return values === undefined ? { key } : { key, values };
}

export function isMessageRef(value: unknown): value is MessageRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { key?: unknown }).key === 'string' &&
    !(value instanceof Date)
  );
}

const compiled = new Map<string, IntlMessageFormat>();

/**
 * Formatters shared by every compiled message. Left to itself each IntlMessageFormat makes its own
 * Intl.NumberFormat and PluralRules and resolves its locale again (Intl's supportedLocalesOf):
 * scoring 600 rows compiled a few dozen messages and spent more time there than in ROUGE.
 */
function memoized<A extends unknown[], T>(make: (...args: A) => T): (...args: A) => T {
  const made = new Map<string, T>();
  return (...args) => {
    const key = JSON.stringify(args);
    let value = made.get(key);
    if (value === undefined) {
      value = make(...args);
      made.set(key, value);
    }
    return value;
  };
}
const sharedFormatters = {
  getNumberFormat: memoized(
    (locales?: string | string[], options?: Intl.NumberFormatOptions) =>
      new Intl.NumberFormat(locales, options),
  ),
  getDateTimeFormat: memoized(
    (locales?: string | string[], options?: Intl.DateTimeFormatOptions) =>
      new Intl.DateTimeFormat(locales, options),
  ),
  getPluralRules: memoized(
    (locales?: string | string[], options?: Intl.PluralRulesOptions) =>
      new Intl.PluralRules(locales, options),
  ),
};
const resolveLocaleOnce = memoized(IntlMessageFormat.resolveLocale);
IntlMessageFormat.resolveLocale = resolveLocaleOnce;

/**
 * The message in `locale`, falling back to English where the catalog lacks the key (a test keeps
 * every catalog complete; the fallback only guards a stale stored key). An unknown key is shown as
 * itself, so a missing message is visible, never a blank.
 */
export function formatMessage(
  locale: Locale,
  catalog: Catalog,
  key: MessageKey | string,
  values?: MessageValues,
): string {
  const own = (catalog as Record<string, string | undefined>)[key];
  const source = own ?? (en as Record<string, string | undefined>)[key];
  if (source === undefined) return key;
  const lang = own === undefined ? 'en' : locale;
  const cacheKey = `${lang}\u0000${source}`;
  let format = compiled.get(cacheKey);
  if (!format) {
    format = new IntlMessageFormat(source, lang, undefined, {
      ignoreTag: true,
      formatters: sharedFormatters,
    });
    compiled.set(cacheKey, format);
  }
  if (!values) return String(format.format());
  const plain: Record<string, string | number | Date> = {};
  for (const [name, value] of Object.entries(values)) {
    plain[name] = isMessageRef(value)
      ? formatMessage(locale, catalog, value.key, value.values)
      : value;
  }
  return String(format.format(plain));
}

/** English wording, for results' text fields, the CLI, logs and tests. */
export function english(key: MessageKey, values?: MessageValues): string {
  return formatMessage('en', en, key, values);
}

export function englishRef(message: MessageRef): string {
  return english(message.key, message.values);
}

/** `{ explanation, explanationRef }` for a metric result: English text plus the ref the page words. */
export function explained(
  key: MessageKey,
  values?: MessageValues,
): { explanation: string; explanationRef: MessageRef } {
  return { explanation: english(key, values), explanationRef: ref(key, values) };
}

/** `{ reason, reasonRef }` for an n/a or error result. */
export function reasoned(
  key: MessageKey,
  values?: MessageValues,
): { reason: string; reasonRef: MessageRef } {
  return { reason: english(key, values), reasonRef: ref(key, values) };
}
