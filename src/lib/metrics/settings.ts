/** User-settable knobs of the offline metrics, with the defaults of SPEC §2 and §5. */
import { z } from 'zod';
import { isValidModelId, MODEL_DTYPES } from '../models/catalog.ts';

/** 'auto': WebGPU when the browser has a hardware adapter, WASM otherwise. */
export const DEVICE_CHOICES = ['auto', 'webgpu', 'wasm'] as const;
export type DeviceChoice = (typeof DEVICE_CHOICES)[number];

/** 'auto': fp32 on WebGPU, q8 on WASM (transformers.js's own defaults in the browser). */
export const DTYPE_CHOICES = ['auto', ...MODEL_DTYPES] as const;
const transformerBackendSchema = z.object({
  kind: z.literal('transformer'),
  model: z.string().refine(isValidModelId, 'is not a model id of the form owner/name'),
  device: z.enum(DEVICE_CHOICES),
  dtype: z.enum(DTYPE_CHOICES),
});

export type TransformerBackendChoice = z.infer<typeof transformerBackendSchema>;

/**
 * Universal Sentence Encoder lite, its files served by the app itself: int8 weights (7 MB, the
 * default) or the exact fp32 model (28 MB). Settings saved before the choice existed read as int8.
 */
const useLiteBackendSchema = z.object({
  kind: z.literal('use-lite'),
  device: z.enum(DEVICE_CHOICES),
  precision: z.enum(['int8', 'fp32']).default('int8'),
});

export type UseLiteBackendChoice = z.infer<typeof useLiteBackendSchema>;

export const embeddingBackendSchema = z.discriminatedUnion('kind', [
  useLiteBackendSchema,
  z.object({ kind: z.literal('glove') }),
  transformerBackendSchema,
  /** The judge provider's embedding API, with the judge's key (computed in the page). */
  z.object({ kind: z.literal('provider'), model: z.string().trim().min(1) }),
]);

export const nerBackendSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('compromise') }),
  transformerBackendSchema,
]);

export type EmbeddingBackendChoice = z.infer<typeof embeddingBackendSchema>;
export type NerBackendChoice = z.infer<typeof nerBackendSchema>;

export const metricSettingsSchema = z.object({
  density: z.object({
    target: z.number().min(0).max(1),
    width: z.number().gt(0).max(1),
  }),
  rouge: z.object({
    useStemmer: z.boolean(),
    /** Lsum on sentences found by the text layer, as if each sat on its own line (the way
     * Hugging Face's summarization scripts call rouge_score); off = rouge_score's newline split. */
    lsumSplitSentences: z.boolean(),
    /** 'auto': rouge_score's tokenizer for Latin-script text, Intl.Segmenter words for other
     * scripts (which rouge_score deletes). Forcing the segmenter keeps accented letters, which
     * rouge_score also deletes ("élève" → "l ve"). Applies to ROUGE and BLEU. */
    tokenizer: z.enum(['auto', 'rouge_score', 'intl-segmenter']),
  }),
  /** Which model computes coherence (embedding) and entity density (ner). */
  backends: z.object({ embedding: embeddingBackendSchema, ner: nerBackendSchema }),
});

export type MetricSettings = z.infer<typeof metricSettingsSchema>;

export const DEFAULT_SETTINGS: MetricSettings = {
  density: { target: 0.15, width: 0.15 },
  rouge: { useStemmer: true, lsumSplitSentences: false, tokenizer: 'auto' },
  backends: {
    embedding: { kind: 'use-lite', device: 'auto', precision: 'int8' },
    ner: { kind: 'compromise' },
  },
};

/**
 * Version of the saved settings' defaults. 1: GloVe was the built-in embedding default. 2: USE-lite
 * is. Settings saved at version 1 carrying `{ kind: 'glove' }` are moved to USE-lite once: GloVe was
 * then the only built-in choice and the default, so a saved GloVe almost always means "the default",
 * not a choice. Someone who picks GloVe again is saved at version 2 and keeps it.
 */
export const SETTINGS_VERSION = 2;

export function migrateSavedSettings(
  saved: Partial<MetricSettings> | undefined,
  savedVersion: number | undefined,
): Partial<MetricSettings> | undefined {
  if ((savedVersion ?? 1) >= 2 || saved?.backends?.embedding?.kind !== 'glove') return saved;
  return {
    ...saved,
    backends: { ...saved.backends, embedding: DEFAULT_SETTINGS.backends.embedding },
  };
}

/** Settings saved by an older version, completed with today's defaults. */
export function withDefaults(saved: Partial<MetricSettings> | undefined): MetricSettings {
  return {
    density: { ...DEFAULT_SETTINGS.density, ...saved?.density },
    rouge: { ...DEFAULT_SETTINGS.rouge, ...saved?.rouge },
    backends: { ...DEFAULT_SETTINGS.backends, ...saved?.backends },
  };
}
