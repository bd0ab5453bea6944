/**
 * The messages between the CLI's main thread and its offline-metric worker threads
 * (offline-pool.ts, offline-worker.ts). Rows go out and their results come back by id; a worker
 * asks the main thread for the vectors it has of a sentence list and sends back the ones it had to
 * encode, because the main thread alone reads and appends the vector cache on disk. Both sides
 * check what they receive.
 */
import { z } from 'zod';
import { metricSettingsSchema } from '../lib/metrics/settings.ts';
import { caseInputSchema, metricIdSchema, metricResultSchema } from '../lib/workers/metric-api.ts';
import { ENCODER_RUNTIMES } from './encoder.ts';
import { EMBEDDINGS } from './offline-backends.ts';

export const workerSetupSchema = z.object({
  ids: z.array(metricIdSchema).min(1),
  settings: metricSettingsSchema,
  embedding: z.enum(EMBEDDINGS),
  encoder: z.object({
    runtime: z.enum(ENCODER_RUNTIMES),
    threads: z.number().int().positive(),
    precision: z.enum(['fp32', 'int8']),
    modelPath: z.string().optional(),
  }),
});

export type WorkerSetup = z.infer<typeof workerSetupSchema>;

const cachedVectorSchema = z.object({
  vector: z.custom<Float32Array>((v) => v instanceof Float32Array, 'a Float32Array'),
  windowed: z.boolean(),
});

export const toWorkerSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('score'),
    id: z.number(),
    // The page's case plus what a CLI row may carry: the worker scores what the serial run would.
    input: caseInputSchema.extend({
      instructions: z.array(z.unknown()).optional(),
      languageChosen: z.boolean().optional(),
    }),
  }),
  /** The answer to `lookup`: per sentence, its vector or null. */
  z.object({
    type: z.literal('vectors'),
    id: z.number(),
    entries: z.array(cachedVectorSchema.nullable()),
  }),
]);

export const fromWorkerSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('scored'),
    id: z.number(),
    results: z.array(metricResultSchema),
    /** The row's scoring time in the worker (JUnit's per-row time). */
    ms: z.number(),
  }),
  z.object({ type: z.literal('failed'), id: z.number(), message: z.string() }),
  z.object({ type: z.literal('lookup'), id: z.number(), sentences: z.array(z.string()) }),
  z.object({ type: z.literal('store'), sentence: z.string(), entry: cachedVectorSchema }),
  /** A line for stderr (the encoder's fallback), printed once however many workers say it. */
  z.object({ type: z.literal('note'), message: z.string() }),
]);

export type ToWorker = z.input<typeof toWorkerSchema>;
export type FromWorker = z.input<typeof fromWorkerSchema>;
