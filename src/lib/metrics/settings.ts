/** User-settable knobs of the offline metrics, with the defaults of SPEC §2 and §5. */
import { z } from 'zod';

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
});

export type MetricSettings = z.infer<typeof metricSettingsSchema>;

export const DEFAULT_SETTINGS: MetricSettings = {
  density: { target: 0.15, width: 0.15 },
  rouge: { useStemmer: true, lsumSplitSentences: false, tokenizer: 'auto' },
};

/** Settings saved by an older version, completed with today's defaults. */
export function withDefaults(saved: Partial<MetricSettings> | undefined): MetricSettings {
  return {
    density: { ...DEFAULT_SETTINGS.density, ...saved?.density },
    rouge: { ...DEFAULT_SETTINGS.rouge, ...saved?.rouge },
  };
}
