/**
 * How well each metric tracks people, as measured by `npm run validity` (scripts/validity.ts) on
 * SummEval dev, and nothing more: the cards link to these rows and the README carries the same
 * table, rendered by `validityMarkdown` from the same JSON, so the three cannot drift apart.
 */
import report from './validity-summeval.json';
import { englishRef, ref, type MessageKey, type MessageRef } from '../i18n/message.ts';
import type { MetricId } from './types.ts';
import { metricInfo, metricRecord } from './registry.ts';

export const HUMAN_DIMENSIONS = ['coherence', 'consistency', 'fluency', 'relevance'] as const;
export type HumanDimension = (typeof HUMAN_DIMENSIONS)[number];

export interface ValidityCell {
  /** Spearman per article over its summaries, averaged over the articles where it is defined. */
  summarySpearman: number | null;
  /** Kendall τ-b, the same way. */
  summaryKendall: number | null;
  /** Spearman over every scored summary at once. */
  pooledSpearman: number | null;
  /** Articles whose correlation was defined (of `ValidityReport.dataset.articles`). */
  articles: number;
}

export interface ValidityRow {
  /** Stable anchor: metric id plus backend family (`coherence-glove`). */
  key: string;
  /** The metrics whose cards link here (one, or the four G-Eval criteria of the judge row). */
  metrics: MetricId[];
  label: string;
  /** The backend string the metric results carry; cards match on it. */
  backend: string;
  /** 'offline': a metric of this app as it runs here; 'reference': against references[0];
   * 'recorded-judge': replies recorded from a judge model, for scale. */
  kind: 'offline' | 'reference' | 'recorded-judge';
  /**
   * Set when the metric was chosen or fit on these same summaries: 'in-sample' figures flatter it
   * (its definition or weights saw the ratings); 'cross-validated' ones come from models that never
   * saw the article they score. Absent: the metric was defined elsewhere.
   */
  fit?: 'in-sample' | 'cross-validated';
  /** Summaries that got a score (the others were n/a: too short, no known words…). */
  scored: number;
  cells: Record<HumanDimension, ValidityCell>;
}

export interface ValidityReport {
  dataset: {
    name: string;
    file: string;
    summaries: number;
    articles: number;
    systems: number;
    raters: string;
    origin: string;
  };
  rows: ValidityRow[];
}

export const VALIDITY: ValidityReport = report as ValidityReport;

/**
 * Below this, in absolute value, on every dimension, a correlation is "near zero": with 50
 * articles the standard error of a summary-level Spearman is about 0.04–0.05, so such a figure
 * is within noise of no agreement at all.
 */
export const NEAR_ZERO = 0.1;

/** Strongest summary-level Spearman of a row, over the four dimensions. */
export function strongest(row: ValidityRow): { dimension: HumanDimension; value: number } | null {
  let best: { dimension: HumanDimension; value: number } | null = null;
  for (const dimension of HUMAN_DIMENSIONS) {
    const value = row.cells[dimension].summarySpearman;
    if (value !== null && (!best || Math.abs(value) > Math.abs(best.value))) {
      best = { dimension, value };
    }
  }
  return best;
}

export function isNearZero(row: ValidityRow): boolean {
  const best = strongest(row);
  return best === null || Math.abs(best.value) < NEAR_ZERO;
}

/** The device part of a transformers.js backend ("… · q8 · WASM") does not change the scores. */
function withoutDevice(backend: string): string {
  return backend.replace(/ · (?:WASM|WebGPU[^·]*|CPU[^·]*)$/u, '');
}

export function validityRows(
  metric: MetricId,
  rows: readonly ValidityRow[] = VALIDITY.rows,
): ValidityRow[] {
  return rows.filter((r) => r.metrics.includes(metric));
}

/** The measured row for a result's backend; undefined when that backend was not measured. */
export function validityRowFor(
  metric: MetricId,
  backend: string,
  rows: readonly ValidityRow[] = VALIDITY.rows,
): ValidityRow | undefined {
  const candidates = validityRows(metric, rows);
  const measured =
    candidates.find((r) => r.backend === backend) ??
    candidates.find((r) => withoutDevice(r.backend) === withoutDevice(backend));
  // A fit's in-sample row flatters it: where the same backend was also measured held out, the
  // card quotes that figure.
  if (measured?.fit === 'in-sample') {
    const heldOut = candidates.find(
      (r) => r.fit === 'cross-validated' && r.backend.startsWith(`${measured.backend}, `),
    );
    if (heldOut) return heldOut;
  }
  return measured;
}

export function formatCorrelation(value: number | null): string {
  return value === null ? '—' : value.toFixed(3);
}

const DIMENSION_KEYS = {
  coherence: 'validity.dimension.coherence',
  consistency: 'validity.dimension.consistency',
  fluency: 'validity.dimension.fluency',
  relevance: 'validity.dimension.relevance',
} as const satisfies Record<HumanDimension, MessageKey>;

const DIMENSION_NAME_KEYS = {
  coherence: 'validity.dimensionName.coherence',
  consistency: 'validity.dimensionName.consistency',
  fluency: 'validity.dimensionName.fluency',
  relevance: 'validity.dimensionName.relevance',
} as const satisfies Record<HumanDimension, MessageKey>;

export function dimensionTitleRef(dimension: HumanDimension): MessageRef {
  return ref(DIMENSION_KEYS[dimension]);
}

/** English, for the README's table and the CLI. */
export function dimensionTitle(dimension: HumanDimension): string {
  return englishRef(dimensionTitleRef(dimension));
}

/**
 * Rows that name no single metric, by their stable key; a metric's own rows are named by its
 * record (`validity.label`).
 */
const COMPOSITE_ROW_KEYS: Readonly<Record<string, MessageKey>> = {
  'quality-offline-lexical-cv': 'validity.row.qualityCv',
  'geval-recorded-gpt4': 'validity.row.geval',
};

/**
 * The report's data-set texts are written by `npm run validity` in English; the page words the ones
 * it knows and shows any other as stored.
 */
const DATASET_TEXT_KEYS: Readonly<Record<string, MessageKey>> = {
  'mean of 3 expert ratings, 1–5': 'validity.dataset.summevalRaters',
  'Fabbri et al. 2021, CNN/DailyMail test articles': 'validity.dataset.summevalOrigin',
};

const FIT_KEYS = {
  'in-sample': 'validity.fit.inSample',
  'cross-validated': 'validity.fit.crossValidated',
} as const satisfies Record<NonNullable<ValidityRow['fit']>, MessageKey>;

function storedText(text: string, keys: Readonly<Record<string, MessageKey>>): MessageRef {
  const key = Object.hasOwn(keys, text) ? keys[text] : undefined;
  return key ? ref(key) : ref('common.literal', { text });
}

/** A row's name in words the page can translate (ROUGE-1, BLEU… are names in every language). */
export function rowLabelRef(row: ValidityRow): MessageRef {
  const composite = Object.hasOwn(COMPOSITE_ROW_KEYS, row.key)
    ? COMPOSITE_ROW_KEYS[row.key]
    : undefined;
  if (composite) return ref(composite);
  const [id] = row.metrics;
  const validity = row.metrics.length === 1 && id ? metricRecord(id).validity : undefined;
  // The script stores the label the metric had when measured; a renamed metric's old rows show it.
  if (validity && id && row.label === metricInfo(id).label) return ref(validity.label);
  return ref('common.literal', { text: row.label });
}

export function fitRef(fit: NonNullable<ValidityRow['fit']>): MessageRef {
  return ref(FIT_KEYS[fit]);
}

/** The data set's raters and origin as the report stores them, translated where known. */
export function datasetTextRef(text: string): MessageRef {
  return storedText(text, DATASET_TEXT_KEYS);
}

/** Below this the agreement is called weak. */
export const WEAK = 0.2;

export type Agreement = 'none' | 'near-zero' | 'weak' | 'measured';

export function agreementOf(row: ValidityRow): Agreement {
  const best = strongest(row);
  if (!best) return 'none';
  if (Math.abs(best.value) < NEAR_ZERO) return 'near-zero';
  return Math.abs(best.value) < WEAK ? 'weak' : 'measured';
}

/** One line a card can show: the strongest figure and on what data, or that it is near zero. */
export function agreementSummaryRef(row: ValidityRow): MessageRef {
  const best = strongest(row);
  const data = ref('validity.summary.data', {
    name: VALIDITY.dataset.name,
    summaries: VALIDITY.dataset.summaries,
    articles: VALIDITY.dataset.articles,
  });
  if (!best) return ref('validity.summary.notEnough', { data });
  const figure = ref('validity.summary.figure', {
    value: best.value,
    dimension: ref(DIMENSION_NAME_KEYS[best.dimension]),
  });
  const caveat = ref(
    best.value < 0
      ? row.fit === 'in-sample'
        ? 'validity.summary.caveatInverseInSample'
        : 'validity.summary.caveatInverse'
      : row.fit === 'in-sample'
        ? 'validity.summary.caveatInSample'
        : 'validity.summary.caveatNone',
  );
  switch (agreementOf(row)) {
    case 'near-zero':
      return ref('validity.summary.nearZero', { data, figure });
    case 'weak':
      return ref('validity.summary.weak', { data, figure, caveat });
    default:
      return ref('validity.summary.measured', { data, figure, caveat });
  }
}

/** The card's line in English (the CLI, tests). */
export function agreementSummary(row: ValidityRow): string {
  return englishRef(agreementSummaryRef(row));
}

/** The README's table (between its validity markers) and what `npm run validity` prints. */
export function validityMarkdown(r: ValidityReport = VALIDITY): string {
  const head = [
    'Metric',
    'Backend',
    ...HUMAN_DIMENSIONS.map((d) => `${dimensionTitle(d)} ρ · τ-b · pooled ρ`),
    'Scored',
  ];
  const lines = [
    `| ${head.join(' | ')} |`,
    `| ${head.map((_, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`,
  ];
  for (const row of r.rows) {
    const cells = HUMAN_DIMENSIONS.map((d) => {
      const c = row.cells[d];
      return [c.summarySpearman, c.summaryKendall, c.pooledSpearman]
        .map(formatCorrelation)
        .join(' · ');
    });
    const fit = row.fit ? ` (${row.fit})` : '';
    const label = isNearZero(row) ? `${row.label}${fit} (near zero)` : `${row.label}${fit}`;
    lines.push(
      `| ${label} | \`${row.backend}\` | ${cells.join(' | ')} | ${row.scored}/${r.dataset.summaries} |`,
    );
  }
  return lines.join('\n');
}
