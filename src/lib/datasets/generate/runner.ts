/**
 * The runner: generates the missing predictions of the rows it is given, storing each as it
 * arrives, with progress, pause and stop; errors every row would hit stop the run instead.
 */
import { messageOf, asError } from '../../errors.ts';
import { estimateCost, type PriceTable } from '../../llm/prices.ts';
import { LlmError, type Judge, type LlmErrorKind } from '../../llm/types.ts';
import {
  hashText,
  needsPrediction,
  type DatasetRow,
  type GenerationRecord,
  type PredictionRow,
} from '../../rows/formats.ts';
import {
  callListener,
  type RunState,
  RATE_WINDOW_MS,
  RateMeter,
  RunAbort,
  runLanes,
  type PauseSignal,
} from '../lanes.ts';
import {
  buildPrompt,
  generationRequest,
  type BuiltPrompt,
  type GenerationSettings,
} from './prompt.ts';

/**
 * Errors that no other row would escape either: the run stops with the provider's message
 * rather than failing every row ('rate-limit' and 'network' arrive here only once the client's
 * retries ran out).
 */
export const STOPPING_ERROR_KINDS: ReadonlySet<LlmErrorKind> = new Set<LlmErrorKind>([
  'auth',
  'permission',
  'quota',
  'model-not-found',
  'rate-limit',
  'network',
]);

/** Where predictions go (storage/predictions.ts for IndexedDB; tests use a Map). */
export interface PredictionStore {
  /** Stores a prediction with its row; false when the row already had one. */
  put(row: number, prediction: string, generation: GenerationRecord): Promise<boolean>;
  /** Keeps why a row failed; false when the row has a prediction by now. */
  fail(row: number, generation: GenerationRecord & { error: string }): Promise<boolean>;
}

export type GenerationState = RunState;

export interface GenerationProgress {
  /** Rows that needed a prediction when the run started. */
  total: number;
  /** Predictions stored by this run. */
  generated: number;
  /** Rows whose generation failed (they still need a prediction). */
  failed: number;
  /** generated + failed. */
  done: number;
  inFlight: number;
  /** Stored predictions whose prompt was cut. */
  cut: number;
  /** Tokens the provider reported so far. */
  usage: { input: number; output: number };
  /** USD so far; undefined when the model has no price. */
  cost: number | undefined;
  /** Rows per second over the moving window; null until measurable. */
  ratePerSec: number | null;
  /** Seconds left at that rate; null when unknown. */
  etaSec: number | null;
  state: GenerationState;
}

export interface GenerationOutcome {
  /** 'stopped': an error every row would hit, or a storage failure (see `message`). */
  status: 'done' | 'cancelled' | 'stopped';
  generated: number;
  failed: number;
  total: number;
  usage: { input: number; output: number };
  cost: number | undefined;
  message?: string;
  /** The provider error's kind when one stopped the run ('quota', 'auth', …). */
  errorKind?: LlmErrorKind;
}

export interface RowGenerated {
  row: number;
  prediction?: string;
  error?: string;
  generation: GenerationRecord;
}

export interface GenerateOptions {
  /** Rows to generate for, in order; rows that already have a prediction are skipped. */
  rows: AsyncIterable<DatasetRow> | Iterable<DatasetRow>;
  /** Rows needing a prediction at the start (for progress and time left). */
  total: number;
  judge: Judge;
  settings: GenerationSettings;
  store: PredictionStore;
  /** Calls at the same time (the client's per-provider limit applies on top); default 1. */
  concurrency?: number;
  prices?: PriceTable;
  signal?: AbortSignal;
  pause?: PauseSignal;
  onProgress?(progress: GenerationProgress): void;
  /** Each row as stored (a prediction, or a failure with its reason). */
  onRow?(row: RowGenerated): void;
  /** Milliseconds clock for the rate (tests pass a fake); default performance.now. */
  clock?: () => number;
  /** Wall clock for the stored records; default Date.now. */
  now?: () => number;
  rateWindowMs?: number;
}

/**
 * Generates the missing predictions of `rows`, storing each as it arrives. Resolves (never
 * rejects) with how the run ended.
 */
export async function generatePredictions(options: GenerateOptions): Promise<GenerationOutcome> {
  const { judge, settings, store, total } = options;
  const clock = options.clock ?? (() => performance.now());
  const now = options.now ?? (() => Date.now());
  const pause = options.pause;
  const templateHash = hashText(settings.template);
  const meter = new RateMeter(clock, options.rateWindowMs ?? RATE_WINDOW_MS);
  const abort = new RunAbort<{ message: string; kind?: LlmErrorKind }>(options.signal);

  let generated = 0;
  let failed = 0;
  let cut = 0;
  let inFlight = 0;
  const usage = { input: 0, output: 0 };

  const cost = () => estimateCost(usage, judge.provider, judge.model, options.prices);
  const state = (): GenerationState => {
    if (abort.stop) return 'stopped';
    if (abort.cancelled) return 'cancelling';
    if (pause?.paused) return inFlight > 0 ? 'pausing' : 'paused';
    return 'running';
  };
  const emit = (final?: GenerationState) => {
    if (!options.onProgress) return;
    const done = generated + failed;
    const left = Math.max(0, total - done);
    const progress: GenerationProgress = {
      total,
      generated,
      failed,
      done,
      inFlight: final ? 0 : inFlight,
      cut,
      usage: { ...usage },
      cost: cost(),
      ratePerSec: meter.rate(),
      etaSec: final === 'done' || left === 0 ? 0 : final ? null : meter.eta(left),
      state: final ?? state(),
    };
    callListener(() => options.onProgress?.(progress));
  };

  const unsubscribe = pause?.subscribe((paused) => {
    if (!paused) meter.restart();
    emit();
  });

  const halt = (message: string, kind?: LlmErrorKind) =>
    abort.halt({ message, ...(kind ? { kind } : {}) }, new Error(message));

  const record = (prompt: BuiltPrompt | undefined): GenerationRecord => ({
    provider: judge.provider,
    model: judge.model,
    at: now(),
    promptCut: prompt?.cut ?? false,
    promptTokens: prompt?.tokens ?? 0,
    maxNewTokens: settings.maxNewTokens,
    templateHash,
  });

  const generateRow = async (row: PredictionRow): Promise<void> => {
    let prompt: BuiltPrompt | undefined;
    let outcome: RowGenerated;
    try {
      prompt = buildPrompt(row, settings.template, settings.promptTokens);
      const response = await judge.complete(
        generationRequest(prompt.text, settings.maxNewTokens, abort.signal),
      );
      usage.input += response.usage.input;
      usage.output += response.usage.output;
      const choice = response.choices[0];
      outcome = {
        row: row.row,
        prediction: choice?.text ?? '',
        generation: {
          ...record(prompt),
          model: response.model || judge.model,
          ...(choice ? { finishReason: choice.finishReason } : {}),
          usage: { input: response.usage.input, output: response.usage.output },
          ...(response.fromCache ? { fromCache: true } : {}),
        },
      };
    } catch (error) {
      // Cancelled or stopped mid-call: the row stays as it was, to be generated next time.
      if (abort.signal.aborted) return;
      if (error instanceof LlmError && STOPPING_ERROR_KINDS.has(error.kind)) {
        halt(error.message, error.kind);
        return;
      }
      outcome = { row: row.row, error: messageOf(error), generation: record(prompt) };
    }
    let stored: boolean;
    try {
      stored =
        outcome.prediction !== undefined
          ? await store.put(row.row, outcome.prediction, outcome.generation)
          : await store.fail(row.row, { ...outcome.generation, error: outcome.error ?? '' });
    } catch (error) {
      halt(asError(error).message);
      return;
    }
    if (!stored) return;
    if (outcome.prediction !== undefined) {
      generated++;
      if (outcome.generation.promptCut) cut++;
    } else {
      failed++;
    }
    meter.complete();
    callListener(() => options.onRow?.(outcome));
  };

  emit();
  await runLanes({
    rows: options.rows,
    concurrency: options.concurrency ?? 1,
    signal: abort.signal,
    pause,
    onPauseWait: () => emit(),
    onReadError: (error) => halt(`Reading the data set's rows failed (${asError(error).message}).`),
    work: async (row) => {
      if (!needsPrediction(row)) return;
      inFlight++;
      emit();
      await generateRow(row);
      inFlight--;
      emit();
    },
  });
  unsubscribe?.();
  abort.release();

  const stop = abort.stop;
  const status: GenerationOutcome['status'] = stop
    ? 'stopped'
    : abort.cancelled
      ? 'cancelled'
      : 'done';
  emit(status);
  const outcome: GenerationOutcome = {
    status,
    generated,
    failed,
    total,
    usage: { ...usage },
    cost: cost(),
  };
  if (stop) {
    outcome.message = stop.message;
    if (stop.kind) outcome.errorKind = stop.kind;
  }
  return outcome;
}
