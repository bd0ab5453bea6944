/**
 * What a generation sends: the settings and their checks, the template and the generation config
 * read from TinyEval's files, and one row's prompt (cut in the middle to fit) as a greedy request.
 */
import { englishRef, ref, type MessageRef, type MessageValue } from '../../i18n/message.ts';
import { SaidError } from '../../i18n/said-error.ts';
import { estimateTokens, fitMiddle } from '../../metrics/judge/context.ts';
import type { JudgeRequest } from '../../llm/types.ts';
import type { DatasetRow, PredictionRow } from '../../rows/formats.ts';
import { fillPromptTemplate, parsePromptConfig, templateFields } from '../tinyeval.ts';

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
  /** One sentence for the UI: what was taken from the file, or why nothing was (English). */
  message: string;
  /** The same sentence for the page to word in the reader's language. */
  messageRef: MessageRef;
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
/** "a or b or c", each language joining it its own way. */
function orList(keys: readonly string[]): MessageValue {
  const [a = '', ...rest] = keys;
  return rest.length === 0 ? a : ref('datasets.generate.config.or', { a, b: orList(rest) });
}

export function readGenerationConfig(
  json: unknown,
  target: { task?: string; name: string; model: string },
): ConfigReading {
  const C = 'datasets.generate.config';
  const read = (reading: Omit<ConfigReading, 'message'>): ConfigReading => ({
    ...reading,
    message: englishRef(reading.messageRef),
  });
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new SaidError(ref(`${C}.notObject`));
  }
  const entries = Object.entries(json as Record<string, unknown>);
  if (entries.length === 0) throw new SaidError(ref(`${C}.empty`));
  const keys = configKeys(target);
  const wanted = orList(keys);
  const listed = entries.map(([k]) => k).join(', ');
  if (entries.every(([, v]) => typeof v === 'string')) {
    const prompts = parsePromptConfig(json);
    const key = keys.find((k) => Object.hasOwn(prompts, k));
    if (key === undefined) {
      return read({
        kind: 'prompts',
        messageRef: ref(`${C}.noTemplate`, { keys: wanted, listed }),
      });
    }
    return read({
      kind: 'prompts',
      template: prompts[key],
      messageRef: ref(`${C}.templateLoaded`, { key }),
    });
  }
  const bad = entries.find(([, v]) => typeof v !== 'number' || !Number.isInteger(v) || v <= 0);
  if (bad) {
    throw new SaidError(ref(`${C}.badEntry`, { key: bad[0], value: JSON.stringify(bad[1]) }));
  }
  const table = Object.fromEntries(entries) as Record<string, number>;
  const key = keys.find((k) => Object.hasOwn(table, k));
  if (key !== undefined) {
    return read({
      kind: 'max-new-tokens',
      maxNewTokens: table[key],
      messageRef: ref(`${C}.maxNewTokens`, { key, count: String(table[key]) }),
    });
  }
  const model = modelEntry(table, target.model);
  if (model) {
    return read({
      kind: 'prompt-lengths',
      promptTokens: model[1],
      messageRef: ref(`${C}.promptLength`, {
        key: model[0],
        model: target.model,
        count: String(model[1]),
      }),
    });
  }
  throw new SaidError(ref(`${C}.noMatch`, { listed, keys: wanted, model: target.model }));
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
