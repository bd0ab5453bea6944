/**
 * Entity density (SPEC §2), after Adams et al. 2023, "From Sparse to Dense: GPT-4 Summarization
 * with Chain of Density Prompting": entities per token of the summary. The paper counted spaCy
 * entities over spaCy tokens; here tokens are word-and-punctuation tokens (`splitTokens`, on
 * Intl.Segmenter) and entities come from a pluggable `EntityRecognizer` (compromise by default, see
 * compromise-ner.ts), so the density is close to, not equal to, the paper's.
 *
 * Human-preferred summaries sit near 0.15 entities/token and first-draft LLM summaries at ≤ 0.10.
 * The score penalises the distance from the target in both directions:
 * `densityScore = max(0, 1 − |density − target| / width)`, target 0.15, width 0.15 by default.
 * `result.raw` is the density itself.
 */
import { messageOf } from '../../../errors.ts';
import { explained } from '../../../i18n/message.ts';
import { failed, notApplicable } from '../../results.ts';
import type { MetricResult, TextSpan } from '../../types.ts';
import { splitTokens, type Segment } from '../../text/tokenize.ts';
import { throwIfAborted, type EntityRecognizer } from '../backends.ts';

export const DEFAULT_DENSITY_TARGET = 0.15;
export const DEFAULT_DENSITY_WIDTH = 0.15;

export interface EntityDensityOptions {
  /** Preferred entities per token, in [0, 1]; default 0.15. */
  target?: number;
  /** Distance from the target at which the score reaches 0, > 0; default 0.15. */
  width?: number;
  /** The case's tokens (words and punctuation marks); default Intl.Segmenter's. */
  tokenize?: (text: string) => Segment[];
  /** The tokenizer's name, recorded in the details. */
  tokenizerName?: string;
}

/**
 * An optional capability of a recogniser: saying whether it can read the text's language
 * (compromise reads English only). Recognisers without it get `languageSupported: null`.
 */
export interface LanguageAwareRecognizer extends EntityRecognizer {
  languageSupport(text: string): { supported: boolean; note?: string };
}

export interface EntityDensityDetails {
  /** Entities found, sorted and non-overlapping, with UTF-16 offsets into the summary. */
  entities: TextSpan[];
  tokenCount: number;
  entityCount: number;
  /** entityCount / tokenCount; null when there is nothing to count. */
  density: number | null;
  /** Entities per label, e.g. { PERSON: 2, DATE: 1 }. */
  counts: Record<string, number>;
  target: number;
  width: number;
  /** False when the recogniser cannot read this language (the density is then an undercount);
   * null when the recogniser does not say. */
  languageSupported: boolean | null;
  /** Why the language is not supported, for the UI. */
  languageNote?: string;
  /** The case tokenizer the tokens came from. */
  caseTokenizer?: string;
}

const ID = 'entity-density';

function isLanguageAware(r: EntityRecognizer): r is LanguageAwareRecognizer {
  return typeof (r as Partial<LanguageAwareRecognizer>).languageSupport === 'function';
}

function isAbort(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

/** `max(0, 1 − |density − target| / width)`. */
export function densityScore(density: number, target: number, width: number): number {
  return Math.max(0, 1 - Math.abs(density - target) / width);
}

function fmt(x: number): string {
  return String(Number(x.toFixed(3)));
}

/** Where the density sits against the target: the band the explanation names. */
function band(density: number, target: number, width: number, score: number): string {
  const diff = density - target;
  if (Math.abs(diff) <= width / 5) return 'close';
  if (diff < 0) {
    if (score === 0) return 'farBelow';
    return diff <= -width / 3 ? 'below' : 'littleBelow';
  }
  if (score === 0) return 'farAbove';
  return diff >= width / 3 ? 'above' : 'littleAbove';
}

/**
 * Entity density of a summary. Returns 'n/a' for an empty summary, 'error' for invalid options
 * or a recogniser failure; a cancel (AbortError) is rethrown.
 */
export async function scoreEntityDensity(
  summary: string,
  recognizer: EntityRecognizer,
  options: EntityDensityOptions = {},
  signal?: AbortSignal,
): Promise<MetricResult<'entity-density'>> {
  const t0 = performance.now();
  const target = options.target ?? DEFAULT_DENSITY_TARGET;
  const width = options.width ?? DEFAULT_DENSITY_WIDTH;
  const language = isLanguageAware(recognizer) ? recognizer.languageSupport(summary) : null;
  const details: EntityDensityDetails = {
    entities: [],
    tokenCount: 0,
    entityCount: 0,
    density: null,
    counts: {},
    target,
    width,
    languageSupported: language ? language.supported : null,
    ...(language?.note ? { languageNote: language.note } : {}),
    ...(options.tokenizerName ? { caseTokenizer: options.tokenizerName } : {}),
  };
  const backend = recognizer.backend;

  if (!Number.isFinite(target) || target < 0 || target > 1) {
    return failed(
      ID,
      backend,
      `The density target must be between 0 and 1 (got ${target}).`,
      details,
    );
  }
  if (!Number.isFinite(width) || width <= 0) {
    return failed(ID, backend, `The density width must be greater than 0 (got ${width}).`, details);
  }
  throwIfAborted(signal);

  const tokenCount = (options.tokenize ?? splitTokens)(summary).length;
  details.tokenCount = tokenCount;
  if (tokenCount === 0) {
    return notApplicable(ID, backend, 'The summary is empty: there is nothing to count.', details);
  }

  let entities: TextSpan[];
  try {
    entities = await recognizer.recognize(summary, signal);
  } catch (e) {
    if (isAbort(e)) throw e;
    const message = messageOf(e);
    return failed(ID, backend, `Entity recognition failed: ${message}`, details);
  }
  throwIfAborted(signal);

  const counts: Record<string, number> = {};
  for (const e of entities) counts[e.label] = (counts[e.label] ?? 0) + 1;
  const density = entities.length / tokenCount;
  const score = densityScore(density, target, width);
  details.entities = entities;
  details.entityCount = entities.length;
  details.density = density;
  details.counts = counts;

  return {
    id: ID,
    status: 'ok',
    score,
    raw: density,
    ...explained('language.entityDensity.explanation', {
      entities: entities.length,
      tokens: tokenCount,
      density,
      target: fmt(target),
      band: band(density, target, width, score),
      preferred: target === DEFAULT_DENSITY_TARGET ? 'yes' : 'no',
      undercount: language && !language.supported ? 'yes' : 'no',
    }),
    backend,
    details,
    elapsedMs: performance.now() - t0,
  };
}
