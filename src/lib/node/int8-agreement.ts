/**
 * Node-only: whether USE-lite's int8 model (the page's default encoder) behaves as the exact fp32
 * model it approximates, on everything the encoder feeds: its sentence vectors, the shuffle test of
 * local coherence, the validity rows of the encoder metrics and the support and redundancy
 * thresholds. `npm run int8:agreement` (scripts/int8-agreement.ts) measures each with the code that
 * made the shipped figure; this module holds the sentences it compares and the pure parts: the
 * summary of the cosines, the difference of each figure, the verdicts and the printed report.
 *
 * The shared calibrations (the order model, the thresholds) were made on fp32 vectors; they serve
 * int8 as long as every check here holds, and the report says when one does not.
 */
import { percentileSorted } from '../stats/paired-bootstrap.ts';
import { HUMAN_DIMENSIONS, type ValidityRow } from '../metrics/validity.ts';
import {
  sourceSentencesForEmbedding,
  summarySentences,
} from '../metrics/semantic/sentence-alignment.ts';

/**
 * The goals (issue 30): every sentence within cosine 0.99 of its fp32 vector, and no figure a card
 * or flag reads moving by more than 0.01, about a fifth of the standard error of a summary-level
 * Spearman on 50 articles (validity.ts, NEAR_ZERO).
 */
export const GOALS = { minCosine: 0.99, maxDelta: 0.01 } as const;

export interface CosineSummary {
  count: number;
  min: number;
  p1: number;
  p5: number;
  median: number;
}

/** Count, minimum, 1st and 5th percentiles and median (numpy's linear percentile). */
export function cosineSummary(cosines: readonly number[]): CosineSummary {
  if (cosines.length === 0) throw new Error('no cosines to summarise');
  const sorted = Float64Array.from(cosines).sort();
  return {
    count: sorted.length,
    min: sorted[0],
    p1: percentileSorted(sorted, 0.01),
    p5: percentileSorted(sorted, 0.05),
    median: percentileSorted(sorted, 0.5),
  };
}

/** One figure on both models: `group` is the table's row, `measure` its column. */
export interface FigureDelta {
  group: string;
  measure: string;
  fp32: number | null;
  int8: number | null;
  /** int8 − fp32, six decimals; null when either is undefined. */
  delta: number | null;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function figureDelta(
  group: string,
  measure: string,
  fp32: number | null,
  int8: number | null,
): FigureDelta {
  const delta = fp32 === null || int8 === null ? null : round6(int8 - fp32);
  return { group, measure, fp32, int8, delta };
}

/**
 * Within the goal: |Δ| ≤ 0.01, or undefined on both models (an n/a cell). A figure defined on one
 * model only has moved as far as it can.
 */
export function deltaHolds(figure: FigureDelta): boolean {
  if (figure.fp32 === null && figure.int8 === null) return true;
  return figure.delta !== null && Math.abs(figure.delta) <= GOALS.maxDelta;
}

const VALIDITY_MEASURES = [
  ['summarySpearman', 'ρ'],
  ['summaryKendall', 'τ-b'],
  ['pooledSpearman', 'pooled ρ'],
] as const;

/** Every correlation cell of the encoder metrics' rows, matched by metric. */
export function validityDeltas(
  fp32: readonly ValidityRow[],
  int8: readonly ValidityRow[],
): FigureDelta[] {
  const out: FigureDelta[] = [];
  for (const a of fp32) {
    const b = int8.find((r) => r.metrics[0] === a.metrics[0]);
    if (!b) throw new Error(`no int8 validity row for ${a.metrics[0]}`);
    for (const dimension of HUMAN_DIMENSIONS) {
      for (const [cell, measure] of VALIDITY_MEASURES) {
        out.push(
          figureDelta(
            `${a.metrics[0]} · ${dimension}`,
            measure,
            a.cells[dimension][cell],
            b.cells[dimension][cell],
          ),
        );
      }
    }
  }
  return out;
}

export type CheckId = 'sentence-cosine' | 'shuffle' | 'validity' | 'thresholds';

export interface Check {
  id: CheckId;
  goal: string;
  holds: boolean;
  /** The figure that decided it: the lowest cosine, or the largest |Δ|. */
  worst: string;
}

export function cosineCheck(summary: CosineSummary): Check {
  return {
    id: 'sentence-cosine',
    goal: `cosine int8 vs fp32 ≥ ${GOALS.minCosine} for every sentence`,
    holds: summary.count > 0 && summary.min >= GOALS.minCosine,
    worst: `min ${summary.min.toFixed(4)} over ${summary.count} sentences`,
  };
}

export function deltaCheck(id: Exclude<CheckId, 'sentence-cosine'>, figures: FigureDelta[]): Check {
  if (figures.length === 0) throw new Error(`${id}: no figures to compare`);
  const failing = figures.filter((f) => !deltaHolds(f));
  // An n/a cell on both models moved nowhere; one defined on one model only moved furthest.
  const size = (f: FigureDelta) =>
    f.fp32 === null && f.int8 === null ? -1 : f.delta === null ? Infinity : Math.abs(f.delta);
  const largest = [...figures].sort((a, b) => size(b) - size(a))[0];
  const moved = largest.delta === null ? 'defined on one model only' : signed(largest.delta);
  return {
    id,
    goal: `|Δ| ≤ ${GOALS.maxDelta} for each of ${figures.length} figures`,
    holds: failing.length === 0,
    worst: `${failing.length ? `${failing.length} outside; ` : ''}largest |Δ| ${largest.group} ${largest.measure}: ${moved}`,
  };
}

export interface AgreementReport {
  backends: { fp32: string; int8: string };
  goals: typeof GOALS;
  sentences: {
    from: string;
    cosine: CosineSummary;
    /** The least alike sentences, for a look at what int8 gets least right. */
    lowest: { cosine: number; sentence: string }[];
  };
  shuffle: { pairs: number; articles: number; figures: FigureDelta[] };
  validity: { dataset: string; figures: FigureDelta[] };
  thresholds: {
    figures: FigureDelta[];
    /** What support and redundancy flag int8 with today (encoder-thresholds.json). */
    shipped: { key: string; support: number; redundancy: number } | null;
  };
  checks: Check[];
  /** True when every check holds. */
  holds: boolean;
}

export function withChecks(
  report: Omit<AgreementReport, 'checks' | 'holds' | 'goals'>,
): AgreementReport {
  const checks = [
    cosineCheck(report.sentences.cosine),
    deltaCheck('shuffle', report.shuffle.figures),
    deltaCheck('validity', report.validity.figures),
    deltaCheck('thresholds', report.thresholds.figures),
  ];
  return { ...report, goals: GOALS, checks, holds: checks.every((c) => c.holds) };
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(4)}`;
}

const figure = (x: number | null) => (x === null ? '—' : x.toFixed(4));

/** One row per group, one column per measure: "fp32 → int8 (Δ)". */
export function deltaTable(figures: readonly FigureDelta[], first = ''): string {
  const measures = [...new Set(figures.map((f) => f.measure))];
  const groups = [...new Set(figures.map((f) => f.group))];
  const lines = [
    `| ${first} | ${measures.map((m) => `${m}: fp32 → int8 (Δ)`).join(' | ')} |`,
    `| --- | ${measures.map(() => '---:').join(' | ')} |`,
  ];
  for (const group of groups) {
    const cells = measures.map((measure) => {
      const f = figures.find((x) => x.group === group && x.measure === measure);
      if (!f) return '';
      const mark = deltaHolds(f) ? '' : ' ✗';
      return `${figure(f.fp32)} → ${figure(f.int8)} (${f.delta === null ? '—' : signed(f.delta)})${mark}`;
    });
    lines.push(`| ${group} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

const CHECK_TITLES: Record<CheckId, string> = {
  'sentence-cosine': 'Per-sentence cosine',
  shuffle: 'Shuffle test',
  validity: 'Validity rows',
  thresholds: 'Support and redundancy thresholds',
};

export function verdictLine(check: Check): string {
  return `${check.holds ? '✓ holds' : '✗ does not hold'} · ${CHECK_TITLES[check.id]}: ${check.goal} (${check.worst})`;
}

function shippedLine(shipped: AgreementReport['thresholds']['shipped']): string {
  if (!shipped) return 'int8 has no thresholds in encoder-thresholds.json: it flags nothing.';
  return `int8 flags with encoder-thresholds.json's \`${shipped.key}\` thresholds: support ${shipped.support}, redundancy ${shipped.redundancy}.`;
}

/** What `npm run int8:agreement` prints (and docs/int8-encoder.md quotes). */
export function formatAgreement(report: AgreementReport): string {
  const c = report.sentences.cosine;
  return [
    `USE-lite int8 (\`${report.backends.int8}\`) against fp32 (\`${report.backends.fp32}\`).`,
    '',
    `${CHECK_TITLES['sentence-cosine']}, ${report.sentences.from}:`,
    '',
    '| Sentences | min | 1st pct | 5th pct | median |',
    '| ---: | ---: | ---: | ---: | ---: |',
    `| ${c.count} | ${c.min.toFixed(4)} | ${c.p1.toFixed(4)} | ${c.p5.toFixed(4)} | ${c.median.toFixed(4)} |`,
    '',
    `${CHECK_TITLES.shuffle} (as npm run measure:coherence: ${report.shuffle.articles} SummEval dev openings, ${report.shuffle.pairs} (original, shuffled) pairs; share where the original scores higher):`,
    '',
    deltaTable(report.shuffle.figures, 'Score'),
    '',
    `${CHECK_TITLES.validity} (as npm run validity, ${report.validity.dataset}; ρ and τ-b per article then averaged, pooled ρ over all):`,
    '',
    deltaTable(report.validity.figures, 'Metric · human rating'),
    '',
    `${CHECK_TITLES.thresholds} (as scripts/encoder-thresholds.ts, SummEval dev):`,
    '',
    deltaTable(report.thresholds.figures, 'Threshold'),
    '',
    shippedLine(report.thresholds.shipped),
    '',
    ...report.checks.map(verdictLine),
  ].join('\n');
}

/** Text of the SummEval dev rows the report reads (readDevRows' shape, narrowed). */
interface CaseText {
  text: string;
  decoded: string;
}

/**
 * The sentences the encoder metrics embed for these cases (the source sentences support and order
 * embed, the summary sentences every metric embeds), plus `more` (other summaries), each once.
 */
export function agreementSentences(cases: readonly CaseText[], more: readonly string[]): string[] {
  const out = new Set<string>();
  for (const text of new Set(cases.map((c) => c.text))) {
    for (const s of sourceSentencesForEmbedding(text).sentences) out.add(s.text);
  }
  for (const summary of [...cases.map((c) => c.decoded), ...more]) {
    for (const s of summarySentences(summary)) out.add(s.text);
  }
  return [...out].filter((s) => s.trim() !== '');
}
