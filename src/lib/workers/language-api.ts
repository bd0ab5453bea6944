/**
 * The language worker's methods (workers/language.worker.ts): the language of a case's texts, or
 * of a data set's rows in one call, detected with cld3, whose ~1 MB module stays in that worker
 * and out of the page's bundle; and the words of a text box, counted off the page's thread (a
 * 300,000-word paste takes Intl.Segmenter about a second).
 */
import { z } from 'zod';
import { defineWorkerApi } from './rpc.ts';

export const textLanguageSchema = z.object({
  code: z.string(),
  basis: z.enum(['detected', 'script', 'chosen', 'unknown']),
  probability: z.number().optional(),
});

export const languageApi = defineWorkerApi('language', {
  detect: {
    request: z.object({ text: z.string() }),
    progress: z.never(),
    result: textLanguageSchema,
  },
  /** One answer per text, in order: a run's rows a chunk at a time, not a message per row. */
  detectMany: {
    request: z.object({ texts: z.array(z.string()) }),
    progress: z.never(),
    result: z.array(textLanguageSchema),
  },
  /** Words as the metrics count them (countWords). */
  countWords: {
    request: z.object({ text: z.string() }),
    progress: z.never(),
    result: z.number().int().nonnegative(),
  },
});
