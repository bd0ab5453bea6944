/**
 * The metric workers' methods (lexical, embedding and NER workers all serve the same two), declared
 * once for workers/host.ts and the page's MetricWorkerClient (./worker-client.ts): `score` streams
 * each metric's result as soon as it is ready, and the backends' loading progress; `load` warms a
 * backend up before the first case arrives.
 */
import { z } from 'zod';
import { metricSettingsSchema } from '../metrics/settings.ts';
import { modelSourceSchema } from '../models/source.ts';
import { METRIC_IDS } from '../metrics/registry.ts';
import type { MetricResult } from '../metrics/types.ts';
import { messageRefSchema } from './message-ref.ts';
import { defineWorkerApi } from './rpc.ts';

export { messageRefSchema };

export const metricIdSchema = z.enum(METRIC_IDS);

export const caseInputSchema = z.object({
  source: z.string(),
  summary: z.string(),
  reference: z.string().optional(),
  language: z.string().optional(),
});

/** A backend loading: what is happening in words ("loading word vectors"), and bytes when known. */
export const loadingSchema = z.object({
  stage: z.string(),
  stageRef: messageRefSchema.optional(),
  file: z.string().optional(),
  loaded: z.number().optional(),
  total: z.number().optional(),
});

export type Loading = z.infer<typeof loadingSchema>;

export const metricResultSchema = z
  .object({
    id: metricIdSchema,
    status: z.enum(['ok', 'n/a', 'error']),
    score: z.number().nullable(),
    raw: z.number().optional(),
    explanation: z.string(),
    reason: z.string().optional(),
    backend: z.string(),
    /** Each metric's own shape, shown by its card; never read by the layer. */
    details: z.unknown(),
    elapsedMs: z.number().optional(),
    notes: z.array(z.string()).optional(),
    // Message refs the page words in its language (built by message.ts in the worker).
    explanationRef: messageRefSchema.optional(),
    reasonRef: messageRefSchema.optional(),
    noteRefs: z.array(messageRefSchema).optional(),
  })
  // The one place a wire result becomes a typed one: page and worker are one build, and the
  // details were made by the metric that `id` names (the schema checked every other field).
  .transform((wire) => wire as MetricResult);

export const metricApi = defineWorkerApi('metric', {
  score: {
    request: z.object({
      metricIds: z.array(metricIdSchema).min(1),
      input: caseInputSchema,
      settings: metricSettingsSchema,
      /** Where transformer models come from (only the model workers read it). */
      models: modelSourceSchema,
    }),
    progress: z.discriminatedUnion('type', [
      loadingSchema.extend({ type: z.literal('loading') }),
      z.object({ type: z.literal('result'), result: metricResultSchema }),
    ]),
    result: z.null(),
  },
  load: {
    request: z.object({
      settings: metricSettingsSchema.optional(),
      models: modelSourceSchema.optional(),
    }),
    progress: loadingSchema,
    result: z.null(),
  },
  /**
   * Embeds a case's sentences (source and summary) ahead of Score, while the user is still pasting
   * or typing, so that Score finds them in the worker's vector cache. Workers without such a cache
   * answer 0.
   */
  prepare: {
    request: z.object({
      source: z.string(),
      summary: z.string(),
      settings: metricSettingsSchema,
      models: modelSourceSchema,
    }),
    progress: loadingSchema,
    /** How many sentences were embedded now (0: nothing to do, or already cached). */
    result: z.object({ sentences: z.number() }),
  },
});
