/**
 * Generate, then evaluate (TinyEval's two stages, its pred.py then eval.py): for prediction rows
 * that have their inputs but no prediction, a model writes the predictions first, the way
 * TinyEval's `get_pred` does:
 *
 * - the prompt is the data set's template filled with the row's fields (`dataset2prompt.json`,
 *   Python `str.format`: `fillPromptTemplate`);
 * - a prompt longer than the model's prompt length (`model2maxlen.json`) loses its MIDDLE: the
 *   first and last halves of the budget are kept and joined, since the instructions sit at the
 *   start and the question at the end. TinyEval counts tokens with the model's tokenizer; the
 *   page has none, so tokens are estimated (`estimateTokens`: about 4 characters per token in
 *   English, one per CJK character, erring long) and the UI says so;
 * - greedy decoding: temperature 0, one sample, at most `maxNewTokens` new tokens
 *   (`dataset2maxlen.json`); the prompt goes as one user turn (the provider applies the model's
 *   chat template, as pred.py's `build_chat` does).
 *
 * Each prediction is stored with its row as soon as it arrives (storage/predictions.ts), with the
 * provider, model and whether the prompt was cut. Rows that already have one are skipped, so a
 * reload or a stop resumes where it stopped and nothing is generated twice. A row whose call
 * fails keeps its reason and stays without a prediction (a later start retries it); errors that
 * every other row would hit too (a bad key, no quota, an unknown model, an unreachable server)
 * stop the run with the provider's message instead of failing every row.
 *
 * Framework-free: the page drives it (`generateStoredPredictions`), tests pass a scripted judge
 * and an in-memory store (`generatePredictions`).
 */
import { messageOf, asError } from '../errors.ts';
import { estimateTokens, fitMiddle } from '../metrics/judge/context.ts';
import { estimateCost, type PriceTable } from '../llm/prices.ts';
import {
  LlmError,
  type Judge,
  type JudgeRequest,
  type LlmErrorKind,
  type ProviderKind,
} from '../llm/types.ts';
import {
  recountMissingPredictions,
  rowsNeedingPrediction,
  storeGeneratedPrediction,
  storeGenerationFailure,
} from '../storage/predictions.ts';
import {
  hashText,
  needsPrediction,
  type DatasetRow,
  type GenerationRecord,
  type PredictionRow,
} from '../rows/formats.ts';
import {
  callListener,
  exclusively,
  type RunState,
  RATE_WINDOW_MS,
  RateMeter,
  RunAbort,
  runLanes,
  type PauseSignal,
} from './lanes.ts';
import { fillPromptTemplate, parsePromptConfig, templateFields } from './tinyeval.ts';

// ---- Settings ----

export interface GenerationSettings {
  /** The prompt template: `{context}`, `{input}`… filled from the row (TinyEval's dataset2prompt). */
  template: string;
  /** At most this many new tokens per prediction (TinyEval's dataset2maxlen). */
  maxNewTokens: number;
  /** The model's prompt length in estimated tokens (TinyEval's model2maxlen): longer prompts
   * lose their middle. */
  promptTokens: number;
}

/** Shorter prompt budgets leave too little of a prompt to answer from. */
export const MIN_PROMPT_TOKENS = 32;
export const MAX_NEW_TOKENS_LIMIT = 100_000;
/** When neither a config nor the user says otherwise. */
export const DEFAULT_MAX_NEW_TOKENS = 256;
/** TinyEval's model2maxlen.json value for every model it lists. */
export const TINYEVAL_PROMPT_TOKENS = 2048;

/** What makes a generated answer reusable from the judge cache (with provider, model, prompt). */
export const GENERATE_PROMPT_VERSION = 'generate.prediction@1';

/** Problems with the settings themselves, in plain words; empty when a run can start. */
export function settingsProblems(settings: GenerationSettings): string[] {
  const problems: string[] = [];
  const template = settings.template;
  if (template.trim() === '') {
    problems.push('The prompt template is empty.');
  } else if (/\{\}/u.test(template.replace(/\{\{|\}\}/gu, ''))) {
    problems.push('The prompt template has an empty {} placeholder: name the field ({context}).');
  } else if (templateFields(template.replace(/\{\{|\}\}/gu, '')).length === 0) {
    problems.push(
      'The prompt template names no field ({context}, {input}, …): every row would get the same prompt.',
    );
  }
  if (
    !Number.isInteger(settings.maxNewTokens) ||
    settings.maxNewTokens < 1 ||
    settings.maxNewTokens > MAX_NEW_TOKENS_LIMIT
  ) {
    problems.push(
      `Max new tokens must be a whole number from 1 to ${MAX_NEW_TOKENS_LIMIT.toLocaleString('en-US')}.`,
    );
  }
  if (!Number.isInteger(settings.promptTokens) || settings.promptTokens < MIN_PROMPT_TOKENS) {
    problems.push(
      `The model's prompt length must be a whole number of at least ${MIN_PROMPT_TOKENS} tokens.`,
    );
  }
  return problems;
}

// ---- Templates and configs ----

/** Field names the rows carry for templates, in first-seen order. */
export function fieldsOfRows(rows: Iterable<DatasetRow>): string[] {
  const seen = new Set<string>();
  for (const row of rows) {
    if (row.kind !== 'prediction' && row.kind !== 'sft') continue;
    for (const name of Object.keys(row.input.fields ?? {})) seen.add(name);
  }
  return [...seen];
}

function label(name: string): string {
  const words = name.replace(/_/gu, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A template for rows with these fields when no prompt config names the data set: the SFT shape
 * (instruction, then input, as TinyEval's custom tasks), a reading-comprehension prompt for a
 * context with a question, or each field under its name.
 */
export function genericTemplate(fields: readonly string[]): string {
  const has = (f: string) => fields.includes(f);
  if (has('instruction')) return has('input') ? '{instruction}\n{input}' : '{instruction}';
  if (has('context') && has('input')) {
    return (
      'Read the text below, then answer the question or do the task that follows it. ' +
      'Reply with the answer only.\n\n{context}\n\n{input}\nAnswer:'
    );
  }
  if (has('context')) {
    return 'Read the text below and write what it asks for.\n\n{context}\n\nAnswer:';
  }
  if (fields.length === 1) return `{${fields[0]}}`;
  if (fields.length === 0) return '{input}';
  return `${fields.map((f) => `${label(f)}:\n{${f}}`).join('\n\n')}\n\nAnswer:`;
}

/** The keys a data set may be listed under in TinyEval's configs: its task, then its name. */
export function configKeys(dataset: { task?: string; name: string }): string[] {
  return [...new Set([dataset.task, dataset.name].filter((k): k is string => !!k))];
}

/** What a loaded config file gave for this data set and model. */
export interface ConfigReading {
  /** What the file was read as. */
  kind: 'prompts' | 'max-new-tokens' | 'prompt-lengths';
  template?: string;
  maxNewTokens?: number;
  promptTokens?: number;
  /** One sentence for the UI: what was taken from the file, or why nothing was. */
  message: string;
}

function modelEntry(table: Record<string, number>, model: string): [string, number] | undefined {
  const wanted = model.trim().toLowerCase();
  const entries = Object.entries(table);
  const exact = entries.find(([k]) => k.toLowerCase() === wanted);
  if (exact) return exact;
  // 'qwen2:7b' or 'Qwen/Qwen2-7B-Instruct' against TinyEval's 'Qwen2': the longest key it holds.
  return entries
    .filter(([k]) => k.trim() !== '' && wanted.includes(k.toLowerCase()))
    .sort((a, b) => b[0].length - a[0].length)[0];
}

/**
 * Reads one of TinyEval's config files, telling them apart by content: strings per key are
 * prompt templates (dataset2prompt.json); numbers per key are max new tokens when a key names
 * the data set (dataset2maxlen.json), else the model's prompt length when a key names the model
 * (model2maxlen.json). Throws with a specific message for anything else.
 */
export function readGenerationConfig(
  json: unknown,
  target: { task?: string; name: string; model: string },
): ConfigReading {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new Error('A TinyEval config is a JSON object: {"trec": "…template…"} or {"trec": 64}.');
  }
  const entries = Object.entries(json as Record<string, unknown>);
  if (entries.length === 0) throw new Error('The config file is an empty object.');
  const keys = configKeys(target);
  const listed = entries.map(([k]) => k).join(', ');
  if (entries.every(([, v]) => typeof v === 'string')) {
    const prompts = parsePromptConfig(json);
    const key = keys.find((k) => Object.hasOwn(prompts, k));
    if (key === undefined) {
      return {
        kind: 'prompts',
        message: `The prompt config has no template for ${keys.join(' or ')} (it lists ${listed}).`,
      };
    }
    return { kind: 'prompts', template: prompts[key], message: `Template for ${key} loaded.` };
  }
  const bad = entries.find(([, v]) => typeof v !== 'number' || !Number.isInteger(v) || v <= 0);
  if (bad) {
    throw new Error(
      `Config entry "${bad[0]}" is ${JSON.stringify(bad[1])}: a TinyEval config maps names to templates (text) or to token counts (whole numbers).`,
    );
  }
  const table = Object.fromEntries(entries) as Record<string, number>;
  const key = keys.find((k) => Object.hasOwn(table, k));
  if (key !== undefined) {
    return {
      kind: 'max-new-tokens',
      maxNewTokens: table[key],
      message: `Max new tokens for ${key}: ${table[key]}.`,
    };
  }
  const model = modelEntry(table, target.model);
  if (model) {
    return {
      kind: 'prompt-lengths',
      promptTokens: model[1],
      message: `Prompt length for ${model[0]} (model ${target.model}): ${model[1]} tokens.`,
    };
  }
  throw new Error(
    `This config of token counts lists ${listed}: none is ${keys.join(' or ')} (max new tokens) or the model ${target.model} (prompt length).`,
  );
}

// ---- Prompts ----

export interface BuiltPrompt {
  /** What is sent. */
  text: string;
  /** The middle was cut to fit the prompt length. */
  cut: boolean;
  /** Estimated tokens of `text`. */
  tokens: number;
  /** Estimated tokens before any cut. */
  originalTokens: number;
}

/**
 * The row's prompt: the template filled with its fields, its middle cut when longer than
 * `promptTokens` (head and tail joined without a marker, as pred.py joins its two halves).
 * Throws when the row lacks a field the template names.
 */
export function buildPrompt(
  row: PredictionRow,
  template: string,
  promptTokens: number,
): BuiltPrompt {
  const filled = fillPromptTemplate(template, row.input.fields ?? {});
  const originalTokens = estimateTokens(filled);
  const fitted = fitMiddle(filled, promptTokens, { marker: false });
  return {
    text: fitted.text,
    cut: fitted.cut,
    tokens: fitted.cut ? estimateTokens(fitted.text) : originalTokens,
    originalTokens,
  };
}

/** Greedy decoding of one prompt: one user turn, temperature 0, one sample, capped output. */
export function generationRequest(
  prompt: string,
  maxNewTokens: number,
  signal?: AbortSignal,
): JudgeRequest {
  return {
    messages: [{ role: 'user', content: prompt }],
    temperature: 0,
    n: 1,
    maxTokens: maxNewTokens,
    cacheKey: { prompt: GENERATE_PROMPT_VERSION, text: prompt, maxNewTokens },
    ...(signal ? { signal } : {}),
  };
}

/** Chat framing the provider adds around a message (role markers), in estimated tokens. */
const MESSAGE_OVERHEAD_TOKENS = 4;

// ---- The plan ----

export interface GenerationPlan {
  /** Rows that need a prediction. */
  rows: number;
  /** Of those, rows whose prompt the template can build. */
  ready: number;
  /** Rows whose prompt will lose its middle. */
  cut: number;
  /** Input: the prompts as sent; output: `maxNewTokens` per row, an upper bound. */
  estimatedTokens: { input: number; output: number };
  /** USD; undefined when the price table has no price for the model (never 0 for unknown). */
  estimatedCost: number | undefined;
  /** Rows whose prompt cannot be built, with the reason (the first few). */
  problems: Array<{ row: number; reason: string }>;
  problemCount: number;
  notes: string[];
}

export interface Pricing {
  provider: ProviderKind;
  model: string;
  prices?: PriceTable;
}

const PLAN_PROBLEM_EXAMPLES = 5;

/** What generating these rows will take, before any call: rows, estimated tokens and cost. */
export async function planGeneration(
  rows: AsyncIterable<DatasetRow> | Iterable<DatasetRow>,
  settings: GenerationSettings,
  pricing: Pricing,
): Promise<GenerationPlan> {
  let count = 0;
  let ready = 0;
  let cut = 0;
  let input = 0;
  let problemCount = 0;
  const problems: GenerationPlan['problems'] = [];
  for await (const row of rows) {
    if (!needsPrediction(row)) continue;
    count++;
    try {
      const prompt = buildPrompt(row, settings.template, settings.promptTokens);
      ready++;
      if (prompt.cut) cut++;
      input += prompt.tokens + MESSAGE_OVERHEAD_TOKENS;
    } catch (error) {
      problemCount++;
      if (problems.length < PLAN_PROBLEM_EXAMPLES) {
        problems.push({ row: row.row, reason: messageOf(error) });
      }
    }
  }
  const output = ready * settings.maxNewTokens;
  const estimatedCost = estimateCost(
    { input, output },
    pricing.provider,
    pricing.model,
    pricing.prices,
  );
  const notes = [
    'Token counts are estimated without the model’s tokenizer (about 4 characters per token in English, 1 per CJK character); the provider’s count will differ.',
    `Output is counted at its most (${settings.maxNewTokens} new tokens per row); answers that stop earlier cost less, and answers already in the cache cost nothing.`,
  ];
  if (cut > 0) {
    notes.push(
      `${cut} prompt${cut === 1 ? ' is' : 's are'} longer than the prompt length (${settings.promptTokens} tokens) and will lose ${cut === 1 ? 'its' : 'their'} middle, as TinyEval does.`,
    );
  }
  if (estimatedCost === undefined) {
    notes.push(
      `No price for ${pricing.provider}/${pricing.model} in the price table: the cost is unknown.`,
    );
  }
  return {
    rows: count,
    ready,
    cut,
    estimatedTokens: { input, output },
    estimatedCost,
    problems,
    problemCount,
    notes,
  };
}

// ---- The runner ----

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

// ---- Stored data sets ----

/** The IndexedDB store of one data set's predictions. */
export function indexedDbPredictionStore(datasetId: string): PredictionStore {
  return {
    put: (row, prediction, generation) =>
      storeGeneratedPrediction(datasetId, row, prediction, generation),
    fail: (row, generation) => storeGenerationFailure(datasetId, row, generation),
  };
}

export type StoredGenerateOptions = Omit<GenerateOptions, 'rows' | 'total' | 'store'> & {
  store?: PredictionStore;
};

/**
 * Generates the missing predictions of a stored data set: the rows still without one, each
 * stored as it arrives. The same call after a reload or a stop goes on where it stopped. One
 * tab at a time per data set (a Web Lock), so two tabs never pay for the same rows.
 */
export async function generateStoredPredictions(
  datasetId: string,
  options: StoredGenerateOptions,
): Promise<GenerationOutcome> {
  const run = async (): Promise<GenerationOutcome> => {
    const total = await recountMissingPredictions(datasetId);
    return generatePredictions({
      ...options,
      rows: rowsNeedingPrediction(datasetId),
      total,
      store: options.store ?? indexedDbPredictionStore(datasetId),
    });
  };
  return exclusively(
    `sumlens-generate:${datasetId}`,
    'Predictions for this data set are being generated in another tab or window: pause or close it there first.',
    run,
  );
}
