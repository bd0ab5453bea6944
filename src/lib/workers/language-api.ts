/**
 * The language worker's one method (workers/language.worker.ts): the language of a case's texts,
 * detected with cld3, whose ~1 MB module stays in that worker and out of the page's bundle.
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
});
