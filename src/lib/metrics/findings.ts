/**
 * What is wrong with a summary, read from every metric's result: the "flags" a person asks about
 * ("did it invent a fact?", "is it cut off?", "does it repeat itself?"), each tied to the card that
 * explains it and, where the metric located it, to a stretch of the summary. The verdict view
 * draws them over the summary once; `not-flag` assertions (assertions/flags.ts) gate on their ids;
 * exports and the CLI list them in English.
 *
 * A finding is only what its metric already decided (a fact not found, a sentence below the
 * encoder's calibrated threshold, a judge's "contradicted"): this module invents no threshold.
 */
import { ref, type MessageRef } from '../i18n/message.ts';
import { DEGENERATE_FLAGS, type GamingFlagId } from './lexical/quality-offline/quality.ts';
import { qualityFlagsOf } from './quality-flags.ts';
import type { MetricId, MetricResult } from './types.ts';

/** Ids of the findings other metrics raise (the quality estimate's flags keep their own ids). */
export const FINDING_IDS = [
  'fact-not-in-source',
  'contradicted-claim',
  'unsupported-claim',
  'unsupported-sentence',
  'vague-sentence',
  'repeated-phrase',
  'repeated-item',
] as const;
export type FindingId = (typeof FINDING_IDS)[number];

/** The metric whose result holds each finding (and whose card explains it). */
export const FINDING_METRICS: Record<FindingId, MetricId> = {
  'fact-not-in-source': 'fact-check',
  'contradicted-claim': 'alignment',
  'unsupported-claim': 'alignment',
  'unsupported-sentence': 'support',
  'vague-sentence': 'vagueness',
  'repeated-phrase': 'repetition-offline',
  'repeated-item': 'repetitiveness',
};

/**
 * 'problem': the summary says something the source does not, or is not a summary at all (a
 * degenerate flag caps the quality estimate); 'check': a risk a person should look at.
 */
export type Severity = 'problem' | 'check';

export interface Finding {
  /** A FindingId or a quality flag id: what `not-flag` assertions name. */
  id: string;
  /** The metric whose card explains it (the verdict links there). */
  metric: MetricId;
  severity: Severity;
  /** Where in the summary, as UTF-16 offsets; absent for a finding about the whole text. */
  start?: number;
  end?: number;
  /** What it is about: the fact, the sentence, the claim (user or model text, shown as text). */
  text?: string;
  /** One sentence in the reader's language. */
  message: MessageRef;
}

const SEVERITY: Record<FindingId, Severity> = {
  'fact-not-in-source': 'problem',
  'contradicted-claim': 'problem',
  'unsupported-claim': 'check',
  'unsupported-sentence': 'check',
  'vague-sentence': 'check',
  'repeated-phrase': 'check',
  'repeated-item': 'check',
};

export function severityOf(id: string): Severity {
  if (id in SEVERITY) return SEVERITY[id as FindingId];
  return DEGENERATE_FLAGS.has(id as GamingFlagId) ? 'problem' : 'check';
}

/** The details of a scored result, or undefined. */
function detailsOf(result: MetricResult): Record<string, unknown> | undefined {
  if (result.status !== 'ok') return undefined;
  const d = result.details as unknown;
  return typeof d === 'object' && d !== null ? (d as Record<string, unknown>) : undefined;
}

function isSpan(x: unknown): boolean {
  const s = x as { start?: unknown; end?: unknown } | null;
  return typeof s?.start === 'number' && typeof s.end === 'number' && s.end > s.start;
}

function arrayOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value)
    ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null)
    : [];
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

type Reader = (result: MetricResult, details: Record<string, unknown>) => Finding[];

/**
 * The findings of a list of located entries: those `keep` accepts and whose offsets are real,
 * each worded by `message` and quoting `what` (the entry's text unless given).
 */
function locatedIn(
  entries: readonly Record<string, unknown>[],
  id: FindingId,
  metric: MetricId,
  keep: (entry: Record<string, unknown>) => boolean,
  message: (entry: Record<string, unknown>) => MessageRef,
  what: (entry: Record<string, unknown>) => string = (entry) => text(entry.text),
): Finding[] {
  return entries
    .filter((entry) => keep(entry) && isSpan(entry))
    .map((entry) => ({
      id,
      metric,
      severity: SEVERITY[id],
      start: entry.start as number,
      end: entry.end as number,
      text: what(entry),
      message: message(entry),
    }));
}

/** One reader per metric that can say what is wrong; a stored result of another shape reads as none. */
const READERS: Partial<Record<MetricId, Reader>> = {
  'fact-check': (_r, d) =>
    locatedIn(
      arrayOf(d.items),
      'fact-not-in-source',
      'fact-check',
      (item) => item.found === false,
      (item) =>
        ref('verdict.finding.factNotInSource', {
          fact: text(item.text),
          closest: text((item.source as { text?: unknown } | undefined)?.text) || '—',
        }),
    ),
  support: (_r, d) =>
    locatedIn(
      arrayOf(d.sentences),
      'unsupported-sentence',
      'support',
      (s) => s.unsupportedRisk === true,
      () => ref('verdict.finding.unsupportedSentence'),
    ),
  'repetition-offline': (_r, d) =>
    locatedIn(
      arrayOf(d.spans),
      'repeated-phrase',
      'repetition-offline',
      () => true,
      (s) => ref('verdict.finding.repeatedPhrase', { phrase: text(s.text) }),
    ),
  vagueness: (_r, d) =>
    locatedIn(
      arrayOf(d.sentences),
      'vague-sentence',
      'vagueness',
      (s) => s.vague === true,
      (s) => ref('verdict.finding.vagueSentence', { reason: text(s.reason) || '—' }),
    ),
  repetitiveness: (_r, d) =>
    arrayOf(d.repeatedItems).flatMap((item) =>
      locatedIn(
        arrayOf(item.spans),
        'repeated-item',
        'repetitiveness',
        () => true,
        () => ref('verdict.finding.repeatedItem', { item: text(item.text) }),
        () => text(item.text),
      ),
    ),
  alignment: (_r, d) =>
    arrayOf(d.claims)
      .filter((c) => c.verdict === 'contradicted' || c.verdict === 'unsupported')
      .map((c): Finding => {
        const id = c.verdict === 'contradicted' ? 'contradicted-claim' : 'unsupported-claim';
        return {
          id,
          metric: 'alignment',
          severity: SEVERITY[id],
          text: text(c.claim),
          message: ref(
            id === 'contradicted-claim'
              ? 'verdict.finding.contradictedClaim'
              : 'verdict.finding.unsupportedClaim',
            { claim: text(c.claim), reason: text(c.reason) || '—' },
          ),
        };
      }),
  'quality-offline': (result) =>
    qualityFlagsOf(result).map((f): Finding => ({
      id: f.id,
      metric: 'quality-offline',
      severity: severityOf(f.id),
      message: f.messageRef ?? ref('common.literal', { text: f.message }),
    })),
};

/**
 * Every finding of a case's results: whole-text findings first, then located ones in the
 * summary's order. A result that is not 'ok' has none (its card says why it has no score).
 */
export function findingsIn(results: readonly MetricResult[]): Finding[] {
  const out: Finding[] = [];
  for (const result of results) {
    const read = READERS[result.id];
    const details = detailsOf(result);
    if (!read || !details) continue;
    out.push(...read(result, details));
  }
  return out.sort(
    (a, b) =>
      (a.start ?? -1) - (b.start ?? -1) ||
      (a.severity === b.severity ? 0 : a.severity === 'problem' ? -1 : 1),
  );
}

/** The distinct finding ids of a case: what `not-flag` assertions check. */
export function findingIdsIn(results: readonly MetricResult[]): string[] {
  return [...new Set(findingsIn(results).map((f) => f.id))];
}

export interface FindingCount {
  id: string;
  severity: Severity;
  count: number;
}

/** How many of each finding, problems first, then by count: the verdict line's list. */
export function countFindings(findings: readonly Finding[]): FindingCount[] {
  const counts = new Map<string, FindingCount>();
  for (const f of findings) {
    const c = counts.get(f.id) ?? { id: f.id, severity: f.severity, count: 0 };
    c.count++;
    counts.set(f.id, c);
  }
  return [...counts.values()].sort(
    (a, b) =>
      (a.severity === b.severity ? 0 : a.severity === 'problem' ? -1 : 1) ||
      b.count - a.count ||
      (a.id < b.id ? -1 : 1),
  );
}
