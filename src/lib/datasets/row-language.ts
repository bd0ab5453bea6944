/**
 * The language of each row of a run, decided as a single case's is (metrics/text/language.ts):
 * a row whose data names its language (a `language` or `lang` column) uses that one, as chosen;
 * every other case row is detected with cld3, a chunk of rows per call so that a run of hundreds
 * of rows asks the language worker a few times, not once per row. The language goes into the
 * row's input (it picks the row's tokenizer and the judge's reply language) and is recorded with
 * the row's result, so that opening the row shows and keeps it.
 *
 * Detection never stops a run: a detector that fails (no worker, cld3 not loading) leaves each
 * row to its script, as the single-case form does.
 */
import {
  detectLanguage,
  rowLanguageSample,
  normalizeLanguageCode,
  type TextLanguage,
} from '../metrics/text/language.ts';
import { isCaseRow, type CaseRow, type DatasetRow } from '../rows/formats.ts';

/** The language of each text, in order: the language worker's `detectMany`, or cld3 in-thread. */
export type DetectLanguages = (texts: string[]) => Promise<TextLanguage[]>;

/** Without cld3 at hand (tests, a worker that cannot load it): each text's script. */
export const scriptLanguages: DetectLanguages = async (texts) =>
  texts.map((text) => detectLanguage(text));

/** Rows detected per call; the run's first rows wait for at most this many to be read. */
export const LANGUAGE_CHUNK = 100;

/** Columns that name a row's language, in the order they are read. */
const LANGUAGE_COLUMNS = ['language', 'lang'] as const;

/** The language a row's own data names (a `language`/`lang` column, or one set on the input). */
export function chosenRowLanguage(row: CaseRow): string | undefined {
  if (row.input.languageChosen && row.input.language) {
    const code = normalizeLanguageCode(row.input.language);
    if (code !== 'und') return code;
  }
  for (const column of LANGUAGE_COLUMNS) {
    const value = row.raw?.[column];
    if (typeof value !== 'string') continue;
    const code = normalizeLanguageCode(value);
    if (code !== 'und') return code;
  }
  return undefined;
}

/** `row` with `language` in its input, as the metrics and the judge read it. */
function withLanguage(row: CaseRow, language: TextLanguage): CaseRow {
  const { language: _language, languageChosen: _chosen, ...input } = row.input;
  if (language.code === 'und') return { ...row, input };
  return {
    ...row,
    input: {
      ...input,
      language: language.code,
      ...(language.basis === 'chosen' ? { languageChosen: true } : {}),
    },
  };
}

async function detectChunk(
  rows: DatasetRow[],
  detect: DetectLanguages,
  found: (row: DatasetRow, language: TextLanguage) => void,
): Promise<DatasetRow[]> {
  const pending: Array<{ at: number; row: CaseRow }> = [];
  const out = rows.map((row, at) => {
    if (!isCaseRow(row)) return row;
    const chosen = chosenRowLanguage(row);
    if (chosen === undefined) {
      pending.push({ at, row });
      return row;
    }
    const language: TextLanguage = { code: chosen, basis: 'chosen' };
    const labelled = withLanguage(row, language);
    found(labelled, language);
    return labelled;
  });
  if (pending.length === 0) return out;
  const texts = pending.map(({ row }) => rowLanguageSample(row.input));
  let languages: TextLanguage[];
  try {
    languages = await detect(texts);
    if (languages.length !== texts.length) throw new Error('one language per text');
  } catch {
    languages = await scriptLanguages(texts);
  }
  pending.forEach(({ at, row }, i) => {
    const language = languages[i]!;
    const labelled = withLanguage(row, language);
    out[at] = labelled;
    found(labelled, language);
  });
  return out;
}

/**
 * `rows` with each case row's language in its input, detected `chunk` rows at a time; `found`
 * hears each row's language as decided (for its stored result). A read error comes after the
 * rows read before it, so that none of them is lost to the run.
 */
export async function* withRowLanguages(
  rows: AsyncIterable<DatasetRow> | Iterable<DatasetRow>,
  detect: DetectLanguages,
  found: (row: DatasetRow, language: TextLanguage) => void = () => {},
  chunk = LANGUAGE_CHUNK,
): AsyncGenerator<DatasetRow> {
  let buffer: DatasetRow[] = [];
  try {
    for await (const row of rows) {
      buffer.push(row);
      if (buffer.length < chunk) continue;
      const ready = buffer;
      buffer = [];
      yield* await detectChunk(ready, detect, found);
    }
  } catch (error) {
    if (buffer.length > 0) yield* await detectChunk(buffer, detect, found);
    throw error;
  }
  if (buffer.length > 0) yield* await detectChunk(buffer, detect, found);
}

/** A case row opened in the single-case form: its input with the language it was scored in. */
export interface OpenedRow {
  input: CaseRow['input'];
  /** How that language was found; absent for a row scored before runs recorded it. */
  language?: TextLanguage;
}

/**
 * What the form restores from a row and its stored result: the language the run used (chosen
 * when it came from the row's own column), else the row as it was imported.
 */
export function openedRow(row: CaseRow, result: { language?: TextLanguage }): OpenedRow {
  const language = result.language;
  if (!language) return { input: row.input };
  return { input: withLanguage(row, language).input, language };
}
