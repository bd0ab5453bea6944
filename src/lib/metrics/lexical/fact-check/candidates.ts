/** The summary's checkable items: quotes and names (numbers and dates come from fact-check-numbers.ts). */
import type { TextSpan } from '../../types.ts';
import type { DateMention, NumberMention } from './fact-check-numbers.ts';
import type { FactKind } from './fact-check.ts';
import { ACRONYM, atSentenceStart, nameSpans } from './names.ts';

// ── summary items ────────────────────────────────────────────────────────────────────────────

export interface Candidate {
  kind: FactKind;
  start: number;
  end: number;
  text: string;
  number?: NumberMention;
  date?: DateMention;
}

const QUOTE_RE =
  /"([^"\n]{1,600})"|“([^”\n]{1,600})”|«([^»\n]{1,600})»|„([^“”\n]{1,600})[“”]|「([^」\n]{1,600})」|『([^』\n]{1,600})』/gu;

export function quoteCandidates(summary: string): Candidate[] {
  const out: Candidate[] = [];
  for (const m of summary.matchAll(QUOTE_RE)) {
    const group = m.slice(1).findIndex((g) => g !== undefined) + 1;
    const inner = m[group];
    const lead = inner.length - inner.trimStart().length;
    const text = inner.trim();
    if (!/[\p{L}\p{N}]/u.test(text)) continue;
    const start = m.index + 1 + lead;
    out.push({ kind: 'quote', start, end: start + text.length, text });
  }
  return out;
}

export function entityCandidates(
  summary: string,
  recognized: readonly TextSpan[] | undefined,
  taken: readonly { start: number; end: number }[],
): Candidate[] {
  const spans = nameSpans(summary);
  const demonyms = new Set(
    (recognized ?? []).filter((r) => r.label === 'NORP').map((r) => `${r.start}:${r.end}`),
  );
  // Words the summary capitalises somewhere other than at a sentence start.
  const midSentence = new Set(
    spans.filter((s) => !atSentenceStart(summary, s.start)).map((s) => s.text.toLowerCase()),
  );
  const labelled = (recognized ?? []).filter((r) => ['PERSON', 'ORG', 'PLACE'].includes(r.label));
  const labelledAt = new Set(labelled.map((r) => `${r.start}:${r.end}`));
  const cands: Candidate[] = [];
  for (const s of spans) {
    if (demonyms.has(`${s.start}:${s.end}`)) continue;
    const lone = s.words === 1 && !ACRONYM.test(s.text);
    if (
      lone &&
      atSentenceStart(summary, s.start) &&
      !midSentence.has(s.text.toLowerCase()) &&
      !labelledAt.has(`${s.start}:${s.end}`)
    ) {
      continue;
    }
    cands.push({ kind: 'entity', start: s.start, end: s.end, text: s.text });
  }
  for (const r of labelled) {
    // compromise's span, trimmed of a leading title and a trailing possessive.
    const inner = nameSpans(summary, r.start, r.end).find(
      (n) => n.start >= r.start && n.end <= r.end,
    );
    const start = inner?.start ?? r.start;
    const text = summary.slice(start, r.end).replace(/['’]s$/u, '');
    if (text.length === 0 || !/^\p{Lu}/u.test(text)) continue;
    cands.push({ kind: 'entity', start, end: start + text.length, text });
  }
  // Longer first; an entity never overlaps a number or a date, nor another entity.
  cands.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: Candidate[] = [];
  const overlapsAny = (c: Candidate, list: readonly { start: number; end: number }[]) =>
    list.some((k) => c.start < k.end && k.start < c.end);
  for (const c of cands) {
    if (overlapsAny(c, taken) || overlapsAny(c, kept)) continue;
    kept.push(c);
  }
  return kept;
}
