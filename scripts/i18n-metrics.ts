/**
 * The metrics' English messages come from one source, their records: `info.label`, `info.meaning`
 * and `info.citation` (plain English, which the CLI and exports print) and `messages` (ICU text).
 * This writes them as the catalog file src/messages/en/metrics.json and keeps every other locale
 * complete: a key a locale lacks is added to its metrics.json in English and listed in its
 * untranslated.json, so a translator finds what is left and the page never shows a bare key.
 *
 * `npm run i18n:metrics` writes; `npm run i18n:metrics -- --check` fails when a file is stale
 * (part of `npm run check`).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { LOCALES, SOURCE_LOCALE } from '../src/lib/i18n/locales.ts';
import type { MetricRecord } from '../src/lib/metrics/record.ts';

const MESSAGES_DIR = resolve(import.meta.dirname, '..', 'src', 'messages');
export const METRICS_FILE = 'metrics.json';
export const UNTRANSLATED_FILE = 'untranslated.json';
/** The mark every non-English catalog file carries (tests/unit/i18n/catalogs.test.ts). */
const REVIEW_MARK = 'machine-written for SumLens; to be reviewed by a native speaker';
const UNTRANSLATED_NOTE =
  'keys of metrics.json still in English (filled by npm run i18n:metrics); translate them there and remove them here';

type Messages = Record<string, string>;

/**
 * Plain text as ICU MessageFormat that formats back to the same text: an apostrophe is doubled and
 * a brace quoted, so "source's {n}" stays literal instead of becoming an argument.
 */
export function icuEscape(plain: string): string {
  return plain.replaceAll("'", "''").replace(/[{}]/gu, (brace) => `'${brace}'`);
}

/** Every record's English entries, in registry order: label, meaning, citation, then its own. */
export function metricMessages(records: Readonly<Record<string, MetricRecord>>): Messages {
  const out: Messages = {};
  const add = (key: string, text: string, owner: string) => {
    if (key in out) throw new Error(`${owner}: message ${key} is defined by two records`);
    out[key] = text;
  };
  for (const [id, record] of Object.entries(records)) {
    add(`card.metric.${id}.label`, icuEscape(record.info.label), id);
    add(`card.metric.${id}.meaning`, icuEscape(record.info.meaning), id);
    if (record.info.citation)
      add(`card.metric.${id}.citation`, icuEscape(record.info.citation), id);
    for (const [key, text] of Object.entries(record.messages ?? {})) add(key, text, id);
  }
  return out;
}

/** A locale's list of metric keys still in English (not a catalog file: the page never loads it). */
export interface UntranslatedList {
  note: string;
  keys: string[];
}

/**
 * One locale brought in step with the English metric messages: each metric key moves into its
 * metrics.json (translated text kept, wherever it stood), a missing one is added in English and
 * listed as untranslated, and metrics.json drops a key that left the records.
 */
export function fillLocale(
  files: Readonly<Record<string, Messages>>,
  english: Messages,
  previouslyUntranslated: readonly string[],
): { files: Record<string, Messages>; untranslated: UntranslatedList } {
  const stillEnglish = new Set(previouslyUntranslated);
  const translated = new Map<string, string>();
  const out: Record<string, Messages> = {};
  for (const [name, messages] of Object.entries(files)) {
    if (name === METRICS_FILE) continue;
    out[name] = Object.fromEntries(
      Object.entries(messages).filter(([key, text]) => {
        if (!(key in english)) return true;
        translated.set(key, text);
        return false;
      }),
    );
  }
  for (const [key, text] of Object.entries(files[METRICS_FILE] ?? {})) {
    if (key in english) translated.set(key, text);
  }
  const metrics: Messages = { '@review': REVIEW_MARK };
  const keys: string[] = [];
  for (const [key, text] of Object.entries(english)) {
    const own = translated.get(key);
    // A key filled in English earlier stays untranslated until someone changes its text.
    const isOwn = own !== undefined && !(stillEnglish.has(key) && own === text);
    metrics[key] = isOwn ? own : text;
    if (!isOwn) keys.push(key);
  }
  out[METRICS_FILE] = metrics;
  return { files: out, untranslated: { note: UNTRANSLATED_NOTE, keys } };
}

function readFolder(locale: string): Record<string, Messages> {
  const dir = join(MESSAGES_DIR, locale);
  const files: Record<string, Messages> = {};
  for (const name of readdirSync(dir).filter(isCatalogFile)) {
    files[name] = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Messages;
  }
  return files;
}

/** Catalog files of a locale folder: every JSON file but the untranslated list. */
export function isCatalogFile(name: string): boolean {
  return name.endsWith('.json') && name !== UNTRANSLATED_FILE;
}

function readUntranslated(locale: string): string[] {
  const path = join(MESSAGES_DIR, locale, UNTRANSLATED_FILE);
  if (!existsSync(path)) return [];
  return (JSON.parse(readFileSync(path, 'utf8')) as UntranslatedList).keys;
}

/** As Prettier writes it, so that `prettier --check` and the stale check agree. */
async function serialise(path: string, value: unknown): Promise<string> {
  const options = await prettier.resolveConfig(path);
  return prettier.format(JSON.stringify(value), { ...options, filepath: path });
}

/** Writes what changed (or, with `check`, only lists it); returns the stale files. */
export async function syncMetricMessages(check: boolean): Promise<string[]> {
  // Imported here, not at the top: the registry loads every metric module, which the pure helpers
  // above (and the tests that call them) do not need.
  const { METRIC_RECORDS } = await import('../src/lib/metrics/registry.ts');
  const english = metricMessages(METRIC_RECORDS);
  const wanted = new Map<string, unknown>([
    [join(MESSAGES_DIR, SOURCE_LOCALE, METRICS_FILE), english],
  ]);
  for (const locale of LOCALES.filter((l) => l !== SOURCE_LOCALE)) {
    const { files, untranslated } = fillLocale(
      readFolder(locale),
      english,
      readUntranslated(locale),
    );
    for (const [name, messages] of Object.entries(files)) {
      wanted.set(join(MESSAGES_DIR, locale, name), messages);
    }
    wanted.set(join(MESSAGES_DIR, locale, UNTRANSLATED_FILE), untranslated);
    console.log(`${locale}: ${untranslated.keys.length} metric messages untranslated`);
  }
  const texts = await Promise.all(
    [...wanted].map(async ([path, value]) => [path, await serialise(path, value)] as const),
  );
  const stale = texts.filter(
    ([path, text]) => !existsSync(path) || readFileSync(path, 'utf8') !== text,
  );
  if (!check) for (const [path, text] of stale) writeFileSync(path, text);
  return stale.map(([path]) => path);
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale = await syncMetricMessages(check);
  for (const path of stale) console.log(`${check ? 'stale' : 'wrote'}: ${path}`);
  if (check && stale.length > 0) {
    console.error('The metric messages are stale: run npm run i18n:metrics and commit the result.');
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
