/**
 * What each provider+model accepts by the static table (PROVIDERS.md §0, §12.3): the server
 * family a base URL points at, the traits the client and the wire formats need, and the context
 * window. The table is a prior that ages quickly; probe.ts corrects it at run time.
 */
import { baseUrlOf, isLocalHost } from './base-url.ts';
import type { Capabilities, ProviderConfig } from './types.ts';

export type Flavor =
  | 'openai'
  | 'azure'
  | 'anthropic'
  | 'gemini'
  | 'openrouter'
  | 'groq'
  | 'mistral'
  | 'deepseek'
  | 'ollama'
  | 'lmstudio'
  | 'llamacpp'
  | 'vllm'
  /** Some other server on loopback or the LAN. */
  | 'local'
  /** Some other OpenAI-compatible host on the internet. */
  | 'custom';

/** Everything the client and the wire formats need to know about one provider+model. */
export interface Traits {
  flavor: Flavor;
  /** For messages: "OpenAI", "Groq", "the server at localhost:11434". */
  name: string;
  /** Loopback or LAN: no account, CORS is the usual failure. */
  local: boolean;
  /** Prior belief (or probe result) that token logprobs come back. */
  logprobs: boolean;
  /** False where §12.3 says never to bother (Anthropic, Groq, Mistral, LM Studio, DeepSeek). */
  probe: boolean;
  maxTopLogprobs: number;
  /** Choices one call may return (1: no `n`, K calls instead). */
  maxN: number;
  /** 'schema': structured outputs; 'object': JSON mode without schema; 'text': JSON in the prompt. */
  json: 'schema' | 'object' | 'text';
  temperature: 'any' | 'default-only';
  tokenParam: 'max_completion_tokens' | 'max_tokens';
  /** OpenRouter: route only to upstreams that honour every parameter sent. */
  requireParameters: boolean;
  /** Gemini: send a thinkingConfig (disable thinking, or bound it). */
  thinkingConfig: boolean;
  source: 'table' | 'probe';
}

export function flavorOf(config: ProviderConfig): Flavor {
  if (config.kind !== 'openai-compatible') return config.kind;
  let url: URL;
  try {
    url = new URL(baseUrlOf(config));
  } catch {
    return 'custom';
  }
  const host = url.hostname.toLowerCase();
  if (host === 'api.openai.com') return 'openai';
  if (/\.(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/.test(host)) {
    return 'azure';
  }
  if (host === 'openrouter.ai' || host.endsWith('.openrouter.ai')) return 'openrouter';
  if (host === 'api.groq.com') return 'groq';
  if (host === 'api.mistral.ai') return 'mistral';
  if (host === 'api.deepseek.com') return 'deepseek';
  if (isLocalHost(host)) {
    // Default ports are the only hint a bare loopback URL gives.
    const byPort: Record<string, Flavor> = {
      '11434': 'ollama',
      '1234': 'lmstudio',
      '8080': 'llamacpp',
      '8000': 'vllm',
    };
    return byPort[url.port] ?? 'local';
  }
  return 'custom';
}

const NAMES: Partial<Record<Flavor, string>> = {
  openai: 'OpenAI',
  azure: 'Azure OpenAI',
  anthropic: 'Anthropic',
  gemini: 'Google Gemini',
  openrouter: 'OpenRouter',
  groq: 'Groq',
  mistral: 'Mistral',
  deepseek: 'DeepSeek',
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
  llamacpp: 'llama.cpp server',
  vllm: 'vLLM',
};

/** The model name without an OpenRouter-style vendor prefix or a fine-tune prefix. */
function bareModel(model: string): string {
  return model
    .toLowerCase()
    .replace(/^ft:/, '')
    .replace(/^[\w.-]+\//, '');
}

/** OpenAI reasoning models: no logprobs, default temperature only (§2.2–2.3). */
export function isOpenAiReasoning(model: string): boolean {
  const m = bareModel(model);
  return /^(o\d)(\b|-)/.test(m) || (/^gpt-5/.test(m) && !/-chat/.test(m));
}

/** Claude models released after Opus 4.6 reject temperature other than 1 (§5.2). */
function claudeTakesTemperature(model: string): boolean {
  const m = bareModel(model);
  return (
    /^claude-(instant|2|3)/.test(m) ||
    /^claude-(opus|sonnet|haiku)-4(-[0-6])?(-\d{8})?(-latest)?$/.test(m) ||
    /^claude-(opus|sonnet|haiku)-4-[0-6]\b/.test(m)
  );
}

function openAiTraits(model: string): Partial<Traits> {
  const m = bareModel(model);
  if (/^gpt-5\.4(?!-(mini|nano))/.test(m)) {
    return { logprobs: true, maxTopLogprobs: 5, temperature: 'default-only' };
  }
  if (isOpenAiReasoning(m)) return { logprobs: false, temperature: 'default-only' };
  if (/^(gpt-4o|gpt-4\.1|gpt-4|gpt-3\.5|chatgpt-4o)/.test(m)) return { logprobs: true };
  return { logprobs: false };
}

function geminiTraits(model: string): Partial<Traits> {
  const m = bareModel(model).replace(/^models\//, '');
  if (/^gemini-(1\.5|2\.0)/.test(m)) return { logprobs: true, maxN: 8 };
  if (/^gemini-2\.5/.test(m)) return { logprobs: false, maxN: 8 };
  return { logprobs: false, maxN: 1 };
}

/** The static table (§0). */
export function tableTraits(config: ProviderConfig): Traits {
  const flavor = flavorOf(config);
  let host: string;
  let hostname: string;
  try {
    const url = new URL(baseUrlOf(config));
    host = url.host;
    hostname = url.hostname;
  } catch {
    host = hostname = config.baseUrl ?? '';
  }
  const local = flavor === 'local' || isLocalHost(hostname);
  const t: Traits = {
    flavor,
    name: NAMES[flavor] ?? `the server at ${host}`,
    local,
    logprobs: false,
    probe: true,
    maxTopLogprobs: 20,
    maxN: 1,
    json: 'schema',
    temperature: 'any',
    tokenParam: config.kind === 'openai' ? 'max_completion_tokens' : 'max_tokens',
    requireParameters: false,
    thinkingConfig: flavor === 'gemini',
    source: 'table',
  };
  const never = { logprobs: false, probe: false, maxTopLogprobs: 0 };
  switch (flavor) {
    case 'openai':
    case 'azure':
      return { ...t, maxN: 128, ...openAiTraits(config.model) };
    case 'anthropic':
      return {
        ...t,
        ...never,
        temperature: claudeTakesTemperature(config.model) ? 'any' : 'default-only',
      };
    case 'gemini':
      return { ...t, ...geminiTraits(config.model) };
    case 'openrouter':
      // Logprobs come back as a silent null from many upstreams: only the probe can tell.
      return {
        ...t,
        requireParameters: true,
        ...(isOpenAiReasoning(config.model) ? { temperature: 'default-only' } : {}),
      };
    case 'groq':
    case 'lmstudio':
      return { ...t, ...never };
    case 'mistral':
      return { ...t, ...never, maxN: 8 };
    case 'deepseek':
      return { ...t, ...never, json: 'object' };
    case 'ollama':
    case 'llamacpp':
      return { ...t, logprobs: true };
    case 'vllm':
      return { ...t, logprobs: true, maxN: 8 };
    default:
      return t;
  }
}

export function capabilitiesFromTraits(t: Traits): Capabilities {
  return {
    logprobs: t.logprobs,
    maxTopLogprobs: t.logprobs ? t.maxTopLogprobs : 0,
    n: t.maxN > 1,
    jsonSchema: t.json === 'schema',
    temperature: t.temperature,
    source: t.source,
  };
}

/** Table capabilities without any network call. */
export function staticCapabilities(config: ProviderConfig): Capabilities {
  return capabilitiesFromTraits(tableTraits(config));
}

// --- context windows -------------------------------------------------------------------------

const CONTEXT: Array<[RegExp, number]> = [
  [/^gpt-4\.1/, 1_047_576],
  [/^(gpt-4o|chatgpt-4o|gpt-4-turbo|gpt-4-\d{4}-preview)/, 128_000],
  [/^gpt-4-32k/, 32_768],
  [/^gpt-4\b/, 8_192],
  [/^gpt-3\.5/, 16_385],
  [/^gpt-5/, 400_000],
  [/^o\d/, 200_000],
  [/^claude/, 200_000],
  [/^gemini-1\.5-pro/, 2_097_152],
  [/^gemini/, 1_048_576],
  [/^deepseek/, 128_000],
  [/^(mistral-(large|medium|small)|ministral|magistral|pixtral|open-mistral-nemo)/, 128_000],
  [/^codestral/, 256_000],
  [/^(llama-3\.[1-3]|llama-4|meta-llama-3\.[1-3]|llama3\.[1-3])/, 131_072],
  [/^(qwen\/)?qwen3/, 32_768],
  [/^gemma-?3/, 131_072],
];

const LOCAL_DEFAULT_CONTEXT = 8_192;
/** Ollama runs models with a 4096-token context unless the user raises num_ctx, and silently
 * drops the start of longer prompts, so the table value would mislead. */
const OLLAMA_DEFAULT_CONTEXT = 4_096;

/** Tokens the model can read, for prompt-size checks before a run. */
export function contextWindow(config: ProviderConfig): number {
  const flavor = flavorOf(config);
  if (flavor === 'ollama') return OLLAMA_DEFAULT_CONTEXT;
  if (['lmstudio', 'llamacpp', 'vllm', 'local'].includes(flavor)) return LOCAL_DEFAULT_CONTEXT;
  const m = bareModel(config.model).replace(/^models\//, '');
  for (const [re, tokens] of CONTEXT) if (re.test(m)) return tokens;
  if (flavor === 'openai' || flavor === 'azure') return 128_000;
  if (flavor === 'anthropic') return 200_000;
  if (flavor === 'gemini') return 1_048_576;
  return 32_768;
}
