/**
 * Anthropic Messages (PROVIDERS.md §5). JSON comes through forced tool use (§5.4), which every
 * tool-capable Claude model supports, rather than `output_config.format`, which only 4.5+ models
 * have. No logprobs and no `n`: the client sends K calls.
 */
import {
  classify,
  isRecord,
  str,
  unreadableBody,
  type ErrorContext,
  type ErrorDetails,
} from '../errors.ts';
import type { ChatMessage, JudgeChoice, TokenUsage } from '../types.ts';
import {
  errorClassifier,
  finishReasonOf,
  joinUrl,
  num,
  plainErrorDetails,
  systemText,
  type FinishWords,
  type HttpRequest,
  type ParsedCompletion,
  type ProviderAdapter,
  type WireCall,
} from './shared.ts';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';
/** `max_tokens` is required; judges that do not say get this. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

/** Alternating user/assistant turns, same-role neighbours merged, system text moved out. */
function turns(messages: ChatMessage[]): Array<{ role: 'user' | 'assistant'; content: string }> {
  const out: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const last = out[out.length - 1];
    if (last && last.role === m.role) last.content += `\n\n${m.content}`;
    else out.push({ role: m.role, content: m.content });
  }
  return out;
}

const STOP_REASONS: FinishWords = [
  ['stop', ['end_turn', 'stop_sequence', 'tool_use']],
  ['length', ['max_tokens', 'model_context_window_exceeded']],
  ['refusal', ['refusal']],
];

export function anthropicUsage(raw: unknown): TokenUsage {
  if (!isRecord(raw)) return { input: 0, output: 0 };
  // `input_tokens` excludes cache reads and writes (§5.5): all three are input we paid for.
  const cacheRead = num(raw.cache_read_input_tokens);
  const out: TokenUsage = {
    input: num(raw.input_tokens) + num(raw.cache_creation_input_tokens) + cacheRead,
    output: num(raw.output_tokens),
  };
  if (cacheRead) out.cachedInput = cacheRead;
  return out;
}

export function anthropicErrorDetails(body: unknown, rawText: string): ErrorDetails {
  if (isRecord(body) && isRecord(body.error)) {
    const e = body.error;
    const details = isRecord(e.details) ? e.details : undefined;
    return {
      message: str(e.message) ?? '',
      type: str(e.type),
      code: details ? str(details.error_code) : undefined,
    };
  }
  return plainErrorDetails(rawText);
}

export const anthropicAdapter: ProviderAdapter = {
  buildRequest(call: WireCall, config): HttpRequest {
    const body: Record<string, unknown> = {
      model: config.model,
      max_tokens: call.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: turns(call.messages),
    };
    const system = systemText(call.messages);
    if (system) body.system = system;
    // Claude's range is 0–1; sampling callers ask for 1 anyway.
    if (call.temperature !== undefined)
      body.temperature = Math.min(1, Math.max(0, call.temperature));
    if (call.json) {
      body.tools = [
        {
          name: call.json.name,
          description: 'Record the answer in the required structure.',
          input_schema: call.json.schema,
        },
      ];
      body.tool_choice = { type: 'tool', name: call.json.name };
    }
    return {
      url: joinUrl(config.baseUrl ?? ANTHROPIC_BASE_URL, 'v1', 'messages'),
      headers: {
        'content-type': 'application/json',
        'x-api-key': config.apiKey ?? '',
        'anthropic-version': ANTHROPIC_VERSION,
        // Without it the API refuses every browser (CORS) request (§5.1).
        'anthropic-dangerous-direct-browser-access': 'true',
      },
      body,
    };
  },

  parseResponse(body: unknown, call: WireCall, ctx: ErrorContext): ParsedCompletion {
    if (!isRecord(body)) throw unreadableBody(ctx, 200);
    if (body.type === 'error' && isRecord(body.error)) {
      throw classify(500, anthropicErrorDetails(body, ''), ctx);
    }
    if (!Array.isArray(body.content)) throw unreadableBody(ctx, 200);
    const blocks = body.content.filter(isRecord);
    const tool = call.json
      ? blocks.find((b) => b.type === 'tool_use' && b.name === call.json?.name)
      : undefined;
    const text = tool
      ? JSON.stringify(tool.input ?? {})
      : blocks
          .filter((b) => b.type === 'text' && typeof b.text === 'string')
          .map((b) => b.text as string)
          .join('');
    const choice: JudgeChoice = {
      text,
      finishReason: finishReasonOf(STOP_REASONS, body.stop_reason),
    };
    return { choices: [choice], usage: anthropicUsage(body.usage), model: str(body.model) };
  },

  classifyError: errorClassifier(anthropicErrorDetails),
};
