/**
 * Any server that copies Chat Completions (PROVIDERS.md §7–11): OpenRouter, Groq, Mistral,
 * DeepSeek, Ollama, LM Studio, llama.cpp, vLLM. Same spelling as OpenAI; the differences are in
 * what each accepts, which capabilities.ts decides before a call gets here, plus `max_tokens`
 * (the name every one of them knows) and an optional key (local servers have none).
 */
import type { ErrorContext, ErrorHooks } from '../errors.ts';
import {
  chatBody,
  chatCompletionsUrl,
  chatErrorClassifier,
  parseChatCompletion,
} from './openai.ts';
import {
  requiredBaseUrl,
  type HttpRequest,
  type ParsedCompletion,
  type ProviderAdapter,
  type WireCall,
} from './shared.ts';

/** A 404 that names no model is a base URL without `/v1` (§7–11). */
const COMPATIBLE_ERROR_HOOKS: ErrorHooks = { missingEndpointOn404: true };

export const openaiCompatibleAdapter: ProviderAdapter = {
  buildRequest(call, config, traits): HttpRequest {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    // Only the headers the server must allow in its CORS preflight (§1.1): nothing optional.
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    return {
      url: chatCompletionsUrl(requiredBaseUrl(config)),
      headers,
      body: chatBody(call, config, { ...traits, tokenParam: 'max_tokens' }),
    };
  },
  parseResponse(body: unknown, _call: WireCall, ctx: ErrorContext): ParsedCompletion {
    return parseChatCompletion(body, ctx, {
      stripThinking: true,
      errorHooks: COMPATIBLE_ERROR_HOOKS,
    });
  },
  classifyError: chatErrorClassifier(COMPATIBLE_ERROR_HOOKS),
};
