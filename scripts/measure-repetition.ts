/**
 * How the offline repetitiveness score was chosen: candidate definitions scored on SummEval dev
 * (shared/data/summeval/dev.jsonl only) against the mean of the three expert ratings, summary
 * level (Spearman per article over its 12 summaries, then averaged), like `npm run validity`.
 *
 * Usage: npx tsx scripts/measure-repetition.ts
 */
import { readFileSync } from 'node:fs';
import { externalPath } from '../src/lib/node/external-data.ts';
import { calibratePair, type CalibrationRow } from '../src/lib/datasets/calibration.ts';
import { mean } from '../src/lib/stats/correlation.ts';
import { findRepeats } from '../src/lib/metrics/lexical/repetition-offline/repetition.ts';
import { splitSentences, splitWords } from '../src/lib/metrics/text/tokenize.ts';

const DEV = externalPath('data/summeval/dev.jsonl');
const DIMENSIONS = ['coherence', 'consistency', 'fluency', 'relevance'] as const;

interface Row {
  id: string;
  decoded: string;
  expert_annotations: Record<(typeof DIMENSIONS)[number], number>[];
}

const words = (t: string) => splitWords(t).map((w) => w.text.toLowerCase());
function ngrams(ws: string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + n <= ws.length; i++) out.push(ws.slice(i, i + n).join('\u0001'));
  return out;
}
const distinct = (xs: string[]) => (xs.length === 0 ? 1 : new Set(xs).size / xs.length);
function maxPairOverlap(text: string, kind: 'min' | 'jaccard'): number {
  const sets = splitSentences(text).map((s) => new Set(words(s.text)));
  let best = 0;
  for (let i = 0; i < sets.length; i++)
    for (let j = i + 1; j < sets.length; j++) {
      const a = sets[i];
      const b = sets[j];
      let inter = 0;
      for (const w of a) if (b.has(w)) inter++;
      const d = kind === 'min' ? Math.min(a.size, b.size) : a.size + b.size - inter;
      if (d > 0) best = Math.max(best, inter / d);
    }
  return best;
}
/** Share of word positions covered by an n-gram that occurs earlier too. */
function repeatedCoverage(ws: string[], n: number): number {
  if (ws.length < n) return 0;
  const seen = new Set<string>();
  const covered = new Uint8Array(ws.length);
  for (let i = 0; i + n <= ws.length; i++) {
    const g = ws.slice(i, i + n).join('\u0001');
    if (seen.has(g)) covered.fill(1, i, i + n);
    else seen.add(g);
  }
  return covered.reduce((a, b) => a + b, 0) / ws.length;
}

/** The chosen definition: the metric's own parse (src/lib/metrics/lexical/repetition-offline/repetition.ts). */
function parsedRepeatShare(ws: string[]): number {
  const repeated = findRepeats(ws).reduce((sum, r) => sum + r.length, 0);
  return ws.length === 0 ? 0 : repeated / ws.length;
}

const candidates: Record<string, (t: string) => number> = {
  'distinct-1': (t) => distinct(words(t)),
  'distinct-2': (t) => distinct(ngrams(words(t), 2)),
  'distinct-3': (t) => distinct(ngrams(words(t), 3)),
  'distinct-4': (t) => distinct(ngrams(words(t), 4)),
  'mean distinct-1..3': (t) => mean([1, 2, 3].map((n) => distinct(ngrams(words(t), n)))),
  'mean distinct-2..3': (t) => mean([2, 3].map((n) => distinct(ngrams(words(t), n)))),
  '1 − max pair overlap (min)': (t) => 1 - maxPairOverlap(t, 'min'),
  '1 − max pair overlap (jaccard)': (t) => 1 - maxPairOverlap(t, 'jaccard'),
  '1 − repeated 2-gram coverage': (t) => 1 - repeatedCoverage(words(t), 2),
  '1 − repeated 3-gram coverage': (t) => 1 - repeatedCoverage(words(t), 3),
  '1 − repeated 4-gram coverage': (t) => 1 - repeatedCoverage(words(t), 4),
  '1 − parsed repeat share (≥ 2 words)': (t) => 1 - parsedRepeatShare(words(t)),
  'distinct-2 × (1 − max pair jaccard)': (t) =>
    distinct(ngrams(words(t), 2)) * (1 - maxPairOverlap(t, 'jaccard')),
  'words (length, for reference)': (t) => words(t).length,
};

const rows = readFileSync(DEV, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Row);
const calibrationRows: CalibrationRow[] = rows.map((r, i) => ({
  row: i,
  group: r.id,
  scores: Object.fromEntries(Object.entries(candidates).map(([k, f]) => [k, f(r.decoded)])),
  human: Object.fromEntries(
    DIMENSIONS.map((d) => [d, mean(r.expert_annotations.map((a) => a[d]))]),
  ),
}));
const fmt = (v: number | null | undefined) => (v == null ? '  n/a' : v.toFixed(3).padStart(6));
console.log(`${rows.length} summaries; summary-level Spearman (pooled Spearman in brackets)`);
console.log(`${'candidate'.padEnd(38)}${DIMENSIONS.map((d) => d.padStart(20)).join('')}`);
for (const name of Object.keys(candidates)) {
  const cells = DIMENSIONS.map((d) => {
    const p = calibratePair(calibrationRows, name, d);
    return `${fmt(p.summaryLevel?.values.spearman)} (${fmt(p.pooled.values.spearman)})`.padStart(
      20,
    );
  });
  console.log(`${name.padEnd(38)}${cells.join('')}`);
}
