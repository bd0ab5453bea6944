/**
 * The verdict above the cards, as plain data: every metric's findings drawn over the summary once,
 * the checks' pass/fail, and the tone of the one-line verdict. The view (VerdictPanel.svelte) only
 * words it.
 */
import {
  evaluateAssertions,
  rowOutcome,
  type AssertionOutcome,
  type Outcome,
} from '../assertions/evaluate.ts';
import type { Assertion } from '../assertions/assertion.ts';
import type { MetricResult } from '../metrics/types.ts';
import { countFindings, findingsIn, type Finding, type FindingCount } from '../metrics/findings.ts';

/** A stretch of the summary and the numbers of the located findings covering it (1-based). */
export interface Segment {
  start: number;
  end: number;
  text: string;
  /** Footnote numbers of the findings over this stretch; empty for plain text. */
  notes: number[];
  /** The most severe of them, for its colour. */
  severity?: Finding['severity'];
  /** Whether one of them is sentence-long (drawn as an underline rather than a fill). */
  sentence: boolean;
  /** Whether one of them is a word-level finding (a fact, a repeat): drawn as a fill. */
  item: boolean;
  /** The footnotes that end here: their marks are placed after this stretch. */
  endingNotes: number[];
}

const SENTENCE_FINDINGS = new Set(['unsupported-sentence', 'vague-sentence']);

/**
 * The summary cut at every finding's boundary. Findings outside the text (a stored result of
 * another summary) are dropped rather than drawn at the wrong place.
 */
export function segmentsOf(summary: string, located: readonly Finding[]): Segment[] {
  const inside = located
    .map((f, i) => ({ f, note: i + 1 }))
    .filter(
      ({ f }) =>
        f.start !== undefined &&
        f.end !== undefined &&
        f.end <= summary.length &&
        f.start < f.end &&
        (f.text === undefined || f.text === '' || summary.slice(f.start, f.end) === f.text),
    );
  const cuts = new Set<number>([0, summary.length]);
  for (const { f } of inside) {
    cuts.add(f.start!);
    cuts.add(f.end!);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const segments: Segment[] = [];
  for (let k = 0; k + 1 < points.length; k++) {
    const start = points[k]!;
    const end = points[k + 1]!;
    const over = inside.filter(({ f }) => f.start! <= start && f.end! >= end);
    const severity = over.some(({ f }) => f.severity === 'problem')
      ? 'problem'
      : over.length > 0
        ? 'check'
        : undefined;
    segments.push({
      start,
      end,
      text: summary.slice(start, end),
      notes: over.map((o) => o.note),
      ...(severity ? { severity } : {}),
      sentence: over.some(({ f }) => SENTENCE_FINDINGS.has(f.id)),
      item: over.some(({ f }) => !SENTENCE_FINDINGS.has(f.id)),
      endingNotes: over.filter(({ f }) => f.end === end).map((o) => o.note),
    });
  }
  return segments;
}

export type Tone = 'running' | 'problem' | 'check' | 'clean' | 'empty';

export interface Verdict {
  /** Metrics still running, and all shown. */
  pending: number;
  total: number;
  /** Metrics with a score. */
  scored: number;
  /** Located findings (drawn over the summary, numbered in this order), then the others. */
  located: Finding[];
  unlocated: Finding[];
  counts: FindingCount[];
  outcomes: AssertionOutcome[];
  /** The checks' verdict: 'skip' when none could be checked, undefined when there are none. */
  checks?: Outcome;
  tone: Tone;
}

export function verdictOf(
  results: readonly MetricResult[],
  assertions: readonly Assertion[],
  progress: { pending: number; total: number },
): Verdict {
  const findings = findingsIn(results);
  const located = findings.filter((f) => f.start !== undefined);
  const unlocated = findings.filter((f) => f.start === undefined);
  const counts = countFindings(findings);
  const outcomes = evaluateAssertions(assertions, results);
  const scored = results.filter((r) => r.status === 'ok').length;
  const tone: Tone =
    progress.pending > 0
      ? 'running'
      : scored === 0
        ? 'empty'
        : counts.some((c) => c.severity === 'problem')
          ? 'problem'
          : counts.length > 0
            ? 'check'
            : 'clean';
  return {
    pending: progress.pending,
    total: progress.total,
    scored,
    located,
    unlocated,
    counts,
    outcomes,
    ...(assertions.length > 0 ? { checks: rowOutcome(outcomes) } : {}),
    tone,
  };
}
