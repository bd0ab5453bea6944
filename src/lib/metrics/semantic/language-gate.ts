/**
 * The one rule by which a sentence-encoder metric (coherence, source order, source support,
 * redundancy, the repetition card's encoder pair) declines a text its encoder cannot read. An
 * English-only encoder still returns vectors for Russian or Chinese sentences, but their cosines
 * say nothing: a Russian summary in source order scored "reversed", unrelated sentences matched
 * at 0.93. So the metric says n/a and names the multilingual encoder to pick in Models, as entity
 * density does for its English-only recogniser (records.ts).
 *
 * The rule:
 * 1. An encoder that declares no languages, or 'any', reads everything (custom, provider and
 *    multilingual models are never blocked).
 * 2. The case's language is `input.language` (detected in the page or chosen by the user),
 *    normalised to its primary subtag. When it is known, the metric is gated unless the encoder's
 *    list holds it.
 * 3. When it is absent or 'und' (the CLI, a case not yet detected), the text's dominant script
 *    decides (`languageFromScript` on the summary and the source's start, the fallback the case
 *    tokenizer uses): mostly Cyrillic, Han, kana, Hangul, Arabic, … implies a language, gated
 *    unless the encoder's list holds it. Latin text of unknown language passes.
 *
 * The message says the encoder "reads English only": every encoder that declares a list today
 * (USE-lite, GloVe, the catalog's English models) declares ['en'].
 */
import { ref } from '../../i18n/message.ts';
import { catalogModel, multilingualEncoder } from '../../models/catalog.ts';
import { notApplicable } from '../results.ts';
import { languageFromScript, normalizeLanguageCode } from '../text/language.ts';
import type { MetricId, UnscoredResult } from '../types.ts';
import type { SentenceEmbedder } from './backends.ts';

/** What the gate reads of a case. */
export interface GatedText {
  source: string;
  summary: string;
  language?: string;
}

/** Why an encoder cannot read a case. */
export interface UnreadableLanguage {
  /** The case's language (primary subtag). */
  language: string;
  /** 'given': input.language; 'script': implied by the text's script. */
  basis: 'given' | 'script';
}

/** Source characters the script check reads (the case tokenizer's fallback reads as many). */
const SCRIPT_SAMPLE_CHARS = 4000;

/** The case's language the encoder cannot read, or undefined when it can (or may). */
export function unreadableLanguage(
  input: GatedText,
  embedder: Pick<SentenceEmbedder, 'languages'>,
): UnreadableLanguage | undefined {
  const readable = embedder.languages;
  if (readable === undefined || readable === 'any') return undefined;
  const reads = (code: string) => readable.some((l) => normalizeLanguageCode(l) === code);
  const given = input.language === undefined ? 'und' : normalizeLanguageCode(input.language);
  if (given !== 'und') return reads(given) ? undefined : { language: given, basis: 'given' };
  const script = languageFromScript(
    `${input.summary}\n${input.source.slice(0, SCRIPT_SAMPLE_CHARS)}`,
  );
  if (script === undefined || reads(script)) return undefined;
  return { language: script, basis: 'script' };
}

/**
 * A short name of the encoder for the message: "USE-lite", "GloVe", a catalog model's label, or
 * the backend string's first part.
 */
export function encoderName(backend: string): string {
  if (/^use-lite\b/iu.test(backend)) return 'USE-lite';
  if (/^glove\b/iu.test(backend)) return 'GloVe';
  const model = /^transformers\.js (\S+)/u.exec(backend)?.[1];
  if (model) return catalogModel(model)?.label ?? model;
  return backend.split(' · ')[0] ?? backend;
}

/** The label of the multilingual encoder in Models (the catalog's, with a fallback id). */
export function multilingualEncoderLabel(): string {
  return multilingualEncoder()?.label ?? 'paraphrase-multilingual-MiniLM-L12-v2';
}

/** The message an encoder metric gives when its encoder cannot read the case. */
export function languageUnsupportedRef(backend: string, language: string) {
  return ref('semantic.languageUnsupported', {
    language,
    backend: encoderName(backend),
    model: multilingualEncoderLabel(),
  });
}

/**
 * n/a for metric `id` when `embedder` cannot read the case's language, naming the language and
 * the multilingual encoder; undefined when the metric may run.
 */
export function languageGate<K extends MetricId>(
  id: K,
  input: GatedText,
  embedder: Pick<SentenceEmbedder, 'backend' | 'languages'>,
): UnscoredResult<K> | undefined {
  const unreadable = unreadableLanguage(input, embedder);
  if (!unreadable) return undefined;
  return notApplicable(
    id,
    embedder.backend,
    languageUnsupportedRef(embedder.backend, unreadable.language),
    { language: unreadable.language, languageBasis: unreadable.basis },
  );
}
