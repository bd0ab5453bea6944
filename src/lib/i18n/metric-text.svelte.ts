/**
 * A metric's name, meaning and citation in the page's language, from the messages
 * `card.metric.<id>.label/meaning/citation`, which npm run i18n:metrics writes from the records (the
 * records keep plain English for the CLI and exports). i18n sits below metrics/, so this takes the
 * id as a string and an unknown id shows as itself.
 */
import { en, type MessageKey } from './catalog-en.ts';
import { t } from './i18n.svelte.ts';

function has(key: string): key is MessageKey {
  return key in en;
}

export function metricLabel(id: string): string {
  const key = `card.metric.${id}.label`;
  return has(key) ? t(key) : id;
}

export function metricMeaning(id: string): string {
  const key = `card.metric.${id}.meaning`;
  return has(key) ? t(key) : '';
}
