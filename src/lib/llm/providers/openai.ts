/**
 * OpenAI Chat Completions (PROVIDERS.md §2). The OpenAI-compatible adapter reuses the body
 * builder and the readers below: the servers that copy this wire format differ in what they
 * accept, not in how it is spelled.
 */
import {
  classify,
  isRecord,
  str,
  unreadableBody,
  type ErrorContext,
  type ErrorDetails,
  type ErrorHooks,
  wordedError,
} from '../errors.ts';
import { tokenLogprob, topLogprob } from '../logprobs.ts';
import type { Traits } from '../capabilities.ts';
import {
  type JudgeChoice,
  type ProviderConfig,
  type TokenLogprob,
  type TokenUsage,
} from '../types.ts';
import {
  errorClassifier,
  finishReasonOf,
  joinUrl,
  num,
  plainErrorDetails,
  type FinishWords,
  type HttpRequest,
  type ParsedCompletion,
  type ProviderAdapter,
  type WireCall,
} from './shared.ts';

export const OPENAI_BASE_URL = 'https://api.openai.com';

/** OpenAI words an exhausted quota as a 429 that waiting will not clear (§2.5). */
const OPENAI_ERROR_HOOKS: ErrorHooks = { quotaOn429: /exceeded your current quota/i };

export function chatCompletionsUrl(base: string): string {
  const b = base.trim().replace(/\/+$/, '');
  if (/\/chat\/completions$/.test(b)) return b;
  return joinUrl(b, 'v1', 'chat/completions');
}

/** The JSON body shared by OpenAI and the compatible servers. */
export function chatBody(
  call: WireCall,
  config: ProviderConfig,
  traits: Traits,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: config.model,
    messages: call.messages.map((m) => ({ role: m.role, content: m.content })),
  };
  if (call.temperature !== undefined) body.temperature = call.temperature;
  if (call.maxTokens !== undefined) body[traits.tokenParam] = call.maxTokens;
  if (call.n > 1) body.n = call.n;
  if (call.topLogprobs !== undefined) {
    body.logprobs = true;
    body.top_logprobs = call.topLogprobs;
  }
  if (call.json?.mode === 'schema') {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: call.json.name, schema: call.json.schema, strict: call.json.strict },
    };
  } else if (call.json?.mode === 'object') {
    body.response_format = { type: 'json_object' };
  }
  if (traits.requireParameters && (call.topLogprobs !== undefined || call.json)) {
    // Without this OpenRouter may route to an upstream that silently drops logprobs or the schema.
    body.provider = { require_parameters: true };
  }
  return body;
}

// 'error' never gets here: parseChatCompletion throws for it.
const FINISH_REASONS: FinishWords = [
  ['stop', ['stop', 'eos', 'end_turn', 'tool_calls', 'function_call']],
  ['length', ['length', 'model_length']],
  ['content_filter', ['content_filter']],
  ['refusal', ['refusal']],
];

/** `content` is a string, or (Mistral reasoning models, some gateways) an array of parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : '',
      )
      .join('');
  }
  return '';
}

/** Local reasoning models (Qwen3, DeepSeek-R1 on Ollama/llama.cpp) put their thinking inline. */
function stripThinking(text: string): string {
  return text.replace(/^\s*<think>[\s\S]*?<\/think>\s*/, '');
}

function readLogprobs(raw: unknown): TokenLogprob[] | undefined {
  if (!isRecord(raw) || !Array.isArray(raw.content)) return undefined;
  return raw.content
    .filter(isRecord)
    .map((t) =>
      tokenLogprob(
        t.token,
        t.logprob,
        Array.isArray(t.top_logprobs)
          ? t.top_logprobs.filter(isRecord).map((a) => topLogprob(a.token, a.logprob))
          : [],
      ),
    );
}

export function chatUsage(raw: unknown): TokenUsage {
  if (!isRecord(raw)) return { input: 0, output: 0 };
  const usage: TokenUsage = { input: num(raw.prompt_tokens), output: num(raw.completion_tokens) };
  const details = isRecord(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const cached = num(details.cached_tokens) || num(raw.prompt_cache_hit_tokens);
  if (cached) usage.cachedInput = cached;
  return usage;
}

/** Error fields from the many shapes OpenAI-style servers use (§2.5, §7, §9, §11). */
export function chatErrorDetails(body: unknown, rawText: string): ErrorDetails {
  if (isRecord(body)) {
    const e = body.error;
    if (typeof e === 'string') return { message: e };
    if (isRecord(e)) {
      const extra: string[] = [];
      if (e.metadata !== undefined) extra.push(JSON.stringify(e.metadata));
      if (isRecord(e.innererror)) extra.push(str(e.innererror.code) ?? '');
      if (e.param) extra.push(`param ${str(e.param) ?? ''}`);
      return {
        message: str(e.message) ?? '',
        code: str(e.code),
        type: str(e.type),
        extra: extra.join(' ') || undefined,
      };
    }
    if (typeof body.message === 'string') {
      return { message: body.message, code: str(body.code), type: str(body.type) };
    }
    if (Array.isArray(body.detail)) {
      const msg = body.detail
        .filter(isRecord)
        .map((d) => `${Array.isArray(d.loc) ? d.loc.join('.') : ''}: ${str(d.msg) ?? ''}`)
        .join('; ');
      return { message: msg };
    }
    if (typeof body.detail === 'string') return { message: body.detail };
  }
  return plainErrorDetails(rawText);
}

export function parseChatCompletion(
  body: unknown,
  ctx: ErrorContext,
  opts: { stripThinking?: boolean; errorHooks?: ErrorHooks } = {},
): ParsedCompletion {
  if (!isRecord(body)) throw unreadableBody(ctx, 200);
  // OpenRouter reports errors that happen after the response started with HTTP 200 (§7).
  if (body.error !== undefined && body.error !== null) {
    const details = chatErrorDetails(body, '');
    const code =
      isRecord(body.error) && typeof body.error.code === 'number' ? body.error.code : 502;
    throw classify(code, details, ctx, undefined, opts.errorHooks);
  }
  if (!Array.isArray(body.choices)) throw unreadableBody(ctx, 200);
  const choices: JudgeChoice[] = [];
  const raw = body.choices.filter(isRecord).sort((a, b) => num(a.index) - num(b.index));
  for (const c of raw) {
    if (c.finish_reason === 'error') {
      throw wordedError(
        'server',
        'llm.error.generationFailed',
        { who: ctx.name },
        { provider: ctx.provider, status: 200 },
      );
    }
    const message = isRecord(c.message) ? c.message : {};
    let text = contentText(message.content);
    if (opts.stripThinking) text = stripThinking(text);
    const refusal =
      typeof message.refusal === 'string' && message.refusal ? message.refusal : undefined;
    const choice: JudgeChoice = {
      text: refusal && !text ? refusal : text,
      finishReason: refusal ? 'refusal' : finishReasonOf(FINISH_REASONS, c.finish_reason, 'stop'),
    };
    const logprobs = readLogprobs(c.logprobs);
    if (logprobs) choice.logprobs = logprobs;
    choices.push(choice);
  }
  return { choices, usage: chatUsage(body.usage), model: str(body.model) };
}

/** `classifyError` for the Chat Completions error shapes, with the provider's own rules. */
export function chatErrorClassifier(hooks: ErrorHooks): ProviderAdapter['classifyError'] {
  return errorClassifier(chatErrorDetails, hooks);
}

export const openaiAdapter: ProviderAdapter = {
  buildRequest(call, config, traits): HttpRequest {
    return {
      url: chatCompletionsUrl(config.baseUrl ?? OPENAI_BASE_URL),
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${config.apiKey ?? ''}`,
      },
      body: chatBody(call, config, traits),
    };
  },
  parseResponse(body, _call, ctx) {
    return parseChatCompletion(body, ctx, { errorHooks: OPENAI_ERROR_HOOKS });
  },
  classifyError: chatErrorClassifier(OPENAI_ERROR_HOOKS),
};
