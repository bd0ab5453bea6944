/**
 * The one request/reply protocol between the page and every metric worker. Both sides import this
 * file; the worker validates what it receives with zod, because a message from a stale tab or a
 * newer build must fail loudly, not half-work.
 */
import { z } from 'zod';
import { metricSettingsSchema } from '../src/lib/metrics/settings.ts';
import { modelSourceSchema } from '../src/lib/models/source.ts';
import { METRIC_IDS } from '../src/lib/metrics/types.ts';
import type { MetricResult } from '../src/lib/metrics/types.ts';

export const metricIdSchema = z.enum(METRIC_IDS);

export const caseInputSchema = z.object({
  source: z.string(),
  summary: z.string(),
  reference: z.string().optional(),
});

export const workerRequestSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('score'),
    id: z.string().min(1),
    metricIds: z.array(metricIdSchema).min(1),
    input: caseInputSchema,
    settings: metricSettingsSchema,
    /** Where transformer models come from (only the model workers read it). */
    models: modelSourceSchema,
  }),
  /** Warm up (load vectors, plugins, the chosen model) before the first case arrives. */
  z.object({
    type: z.literal('load'),
    id: z.string().min(1),
    settings: metricSettingsSchema.optional(),
    models: modelSourceSchema.optional(),
  }),
  z.object({ type: z.literal('cancel'), id: z.string().min(1) }),
]);

export type WorkerRequest = z.infer<typeof workerRequestSchema>;

export interface ProgressReply {
  type: 'progress';
  id: string;
  /** What is happening, in words ("loading word vectors"). */
  stage: string;
  file?: string;
  loaded?: number;
  total?: number;
}

export interface ResultReply {
  type: 'result';
  id: string;
  result: MetricResult;
}

export interface DoneReply {
  type: 'done';
  id: string;
  cancelled: boolean;
}

export interface ErrorReply {
  type: 'error';
  id: string;
  message: string;
}

export type WorkerReply = ProgressReply | ResultReply | DoneReply | ErrorReply;
