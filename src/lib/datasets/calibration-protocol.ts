/**
 * The calibration of a run, off the page's thread: every (metric, human column) pair at both
 * levels and by three methods is seconds of work on a data set of thousands of rows, which would
 * freeze the page if the run view computed it there. The page sends the light calibration rows
 * (row number, group, scores, ratings: no texts), workers/calibration.worker.ts runs `calibrate`
 * and posts the result back. Requests and replies are validated with zod on arrival, as the batch
 * worker's are (src/lib/datasets/batch-protocol.ts); a malformed one fails the job it names.
 *
 * Both ends are here: `serveCalibration` (the worker's loop) and `CalibrationClient` (the page's
 * handle). calibration-client.ts starts the real worker, so that this module, which the worker
 * imports, does not make Vite bundle the worker into itself.
 */
import { messageOf } from '../errors.ts';
import { z } from 'zod';
import { calibrate, type Calibration, type CalibrationRow } from './calibration.ts';

const id = z.string().min(1);
/** Any number, NaN and ±Infinity included: `calibrate` itself leaves unusable values out. */
const anyNumber = z.custom<number>((v) => typeof v === 'number', 'Expected a number');

export const calibrationRowSchema = z.object({
  row: z.number().int(),
  group: z.string().optional(),
  scores: z.record(z.string(), anyNumber.nullable()),
  human: z.record(z.string(), anyNumber),
});

export const calibrationRequestSchema = z.object({
  type: z.literal('calibrate'),
  id,
  rows: z.array(calibrationRowSchema),
});

export type CalibrationRequest = z.infer<typeof calibrationRequestSchema>;

const methodValuesSchema = z.object({
  pearson: z.number().nullable(),
  spearman: z.number().nullable(),
  kendall: z.number().nullable(),
});

const count = z.number().int().min(0);

export const calibrationSchema = z.object({
  metrics: z.array(z.string()),
  humanColumns: z.array(z.string()),
  pairs: z.array(
    z.object({
      metric: z.string(),
      human: z.string(),
      pooled: z.object({ n: count, values: methodValuesSchema }),
      summaryLevel: z
        .object({
          values: methodValuesSchema,
          n: count,
          groupsUsed: count,
          groupsSkipped: count,
          ungroupedRows: count,
        })
        .nullable(),
      missingScores: count,
    }),
  ),
});

export const calibrationReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('calibration'), id, calibration: calibrationSchema }),
  /** The request could not be read or `calibrate` threw. */
  z.object({ type: z.literal('error'), id: z.string(), message: z.string() }),
]);

export type CalibrationReply = z.infer<typeof calibrationReplySchema>;

// ---- The worker side ----

/** The two calls of a worker's global scope used here (a test passes a fake). */
export interface CalibrationWorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<unknown>) => void): void;
  postMessage(message: CalibrationReply): void;
}

/** Answers each `calibrate` request with its calibration, or an error that names the problem. */
export function serveCalibration(
  scope: CalibrationWorkerScope = self as unknown as CalibrationWorkerScope,
): void {
  scope.addEventListener('message', (event: MessageEvent<unknown>) => {
    const parsed = calibrationRequestSchema.safeParse(event.data);
    if (!parsed.success) {
      const bad = (event.data as { id?: unknown } | null)?.id;
      const issue = parsed.error.issues[0];
      scope.postMessage({
        type: 'error',
        id: typeof bad === 'string' ? bad : '',
        message:
          `Malformed request to the calibration worker: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'unknown'}`.trim(),
      });
      return;
    }
    const { id: jobId, rows } = parsed.data;
    try {
      scope.postMessage({ type: 'calibration', id: jobId, calibration: calibrate(rows) });
    } catch (error) {
      scope.postMessage({
        type: 'error',
        id: jobId,
        message: `The calibration failed: ${messageOf(error)}`,
      });
    }
  });
}

// ---- The page side ----

/** What the client needs of a Worker (a test passes a fake). */
export interface CalibrationWorkerLike {
  postMessage(message: CalibrationRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<unknown>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  terminate?(): void;
}

interface PendingJob {
  resolve(calibration: Calibration): void;
  reject(error: Error): void;
}

/**
 * The page's handle on the calibration worker: `calibrate` resolves with the worker's result.
 * Jobs are answered in the order sent; each is independent, so a caller that moved on (another
 * run opened) simply ignores an old answer.
 */
export class CalibrationClient {
  readonly #worker: CalibrationWorkerLike;
  readonly #jobs = new Map<string, PendingJob>();
  #next = 0;

  constructor(worker: CalibrationWorkerLike) {
    this.#worker = worker;
    worker.addEventListener('message', (event: MessageEvent<unknown>) => this.#receive(event.data));
    worker.addEventListener('error', (event: ErrorEvent) => {
      event.preventDefault?.();
      this.#failAll(
        `The calibration worker stopped: ${event.message || 'it could not start'}. Open the run again to retry.`,
      );
    });
  }

  calibrate(rows: readonly CalibrationRow[]): Promise<Calibration> {
    const jobId = `calibration-${++this.#next}`;
    return new Promise<Calibration>((resolve, reject) => {
      this.#jobs.set(jobId, { resolve, reject });
      this.#worker.postMessage({ type: 'calibrate', id: jobId, rows: [...rows] });
    });
  }

  /** Jobs sent and not yet answered. */
  get pending(): number {
    return this.#jobs.size;
  }

  terminate(): void {
    this.#worker.terminate?.();
    this.#failAll('The calibration worker was shut down.');
  }

  #receive(data: unknown): void {
    const parsed = calibrationReplySchema.safeParse(data);
    if (!parsed.success) {
      const bad = (data as { id?: unknown } | null)?.id;
      const job = typeof bad === 'string' ? this.#jobs.get(bad) : undefined;
      if (job && typeof bad === 'string') {
        this.#jobs.delete(bad);
        job.reject(new Error('The calibration worker sent a reply that could not be read.'));
      }
      return;
    }
    const reply = parsed.data;
    const job = this.#jobs.get(reply.id);
    if (!job) return;
    this.#jobs.delete(reply.id);
    if (reply.type === 'calibration') job.resolve(reply.calibration);
    else job.reject(new Error(reply.message));
  }

  #failAll(message: string): void {
    const jobs = [...this.#jobs.values()];
    this.#jobs.clear();
    for (const job of jobs) job.reject(new Error(message));
  }
}
