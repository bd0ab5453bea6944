/**
 * The offline quality estimate's flags (lexical/quality.ts `gamingFlags`: a copied lead, one
 * sentence, a cut-off ending…) read from a result, wherever a result is shown or counted: the
 * score board, a run's rows, a comparison, the leaderboard and their exports. Every reader goes
 * through `qualityFlagsOf`, so a result of an older version, another metric or one without a
 * score reads as no flags, and flag ids added later pass through (their label is the id itself
 * until a message names them).
 */
import { en, type MessageKey } from '../i18n/catalog-en.ts';
import { english, isMessageRef, type MessageRef, type MessageValues } from '../i18n/message.ts';
import type { GamingFlag } from './lexical/quality-offline/quality.ts';
import type { MetricResult } from './types.ts';

/**
 * A flag as read back: lexical/quality.ts's GamingFlag, with the id a plain string, since a
 * stored result may carry an id this version no longer names (or a later one does).
 */
export interface QualityFlag extends Omit<GamingFlag, 'id' | 'messageRef'> {
  id: string;
  messageRef?: MessageRef;
}

export const QUALITY_METRIC_ID = 'quality-offline';

function isFlag(value: unknown): value is QualityFlag {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { id?: unknown }).id === 'string' &&
    (value as { id: string }).id !== ''
  );
}

/** The flags of a quality-offline result scored 'ok'; none for anything else. */
export function qualityFlagsOf(result: MetricResult | undefined): QualityFlag[] {
  if (result?.id !== QUALITY_METRIC_ID || result.status !== 'ok') return [];
  const flags = (result.details as { flags?: unknown } | undefined)?.flags;
  if (!Array.isArray(flags)) return [];
  return flags.filter(isFlag).map((f) => ({
    id: f.id,
    message: typeof f.message === 'string' ? f.message : f.id,
    ...(isMessageRef(f.messageRef) ? { messageRef: f.messageRef } : {}),
  }));
}

/** The quality estimate's result among a row's results (undefined when it was not scored). */
export function qualityResultIn(results: readonly MetricResult[] | undefined) {
  return results?.find((r) => r.id === QUALITY_METRIC_ID);
}

/** The flags of a row's results: those of its quality-offline result. */
export function qualityFlagsIn(results: readonly MetricResult[] | undefined): QualityFlag[] {
  return qualityFlagsOf(qualityResultIn(results));
}

/** How many of a set of rows carry each flag. */
export interface FlagCount {
  id: string;
  count: number;
}

export interface FlagTally {
  /** Rows whose quality estimate was scored ('ok'): the share's denominator. */
  scored: number;
  /** Each flag seen, most frequent first (ties by id). */
  flags: FlagCount[];
}

/** Counts rows carrying each flag (a flag counts once per row), over rows' results. */
export function tallyQualityFlags(rows: Iterable<readonly MetricResult[] | undefined>): FlagTally {
  let scored = 0;
  const counts = new Map<string, number>();
  for (const results of rows) {
    const result = qualityResultIn(results);
    if (result?.status !== 'ok') continue;
    scored++;
    for (const id of new Set(qualityFlagsOf(result).map((f) => f.id))) {
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  const flags = [...counts]
    .map(([id, count]) => ({ id, count }))
    .sort((x, y) => y.count - x.count || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return { scored, flags };
}

/** A function that words a message: the page's `t`, or an export's words (English by default). */
export type FlagWords = (key: MessageKey, values?: MessageValues) => string;

const isKey = (key: string): key is MessageKey => key in en;

/** A flag's short name ("lead copy"): its message `card.flag.<id>`, else the id as it is. */
export function flagLabel(id: string, words: FlagWords = english): string {
  const key = `card.flag.${id}`;
  return isKey(key) ? words(key) : id;
}

/** A flag's full sentence in the words given: its stored ref when it has one, else its English. */
export function flagMessage(flag: QualityFlag, words: FlagWords = english): string {
  const ref = flag.messageRef as unknown;
  if (isMessageRef(ref) && isKey(ref.key)) return words(ref.key, ref.values);
  return flag.message;
}

/** A flag's count as text: "lead copy 12/50". */
export function flagCountText(count: FlagCount, scored: number, words: FlagWords = english) {
  return words('card.flags.count', {
    flag: flagLabel(count.id, words),
    count: count.count,
    scored,
  });
}

/** A flag's share as text: "lead copy 34%". */
export function flagShareText(count: FlagCount, scored: number, words: FlagWords = english) {
  return words('card.flags.share', {
    flag: flagLabel(count.id, words),
    share: scored > 0 ? count.count / scored : 0,
  });
}

/** A tally as one line of plain text ("lead copy 12/50; one sentence 3/50"), '' without flags. */
export function flagTallyText(
  tally: FlagTally | undefined,
  words: FlagWords = english,
  form: 'count' | 'share' = 'count',
): string {
  if (!tally) return '';
  const text = form === 'count' ? flagCountText : flagShareText;
  return tally.flags.map((f) => text(f, tally.scored, words)).join('; ');
}

/** A row's flag ids as plain text ("lead-copy; one-sentence"), for CSV cells. */
export function flagIdsText(flags: readonly QualityFlag[]): string {
  return flags.map((f) => f.id).join('; ');
}
