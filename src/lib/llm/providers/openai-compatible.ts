/**
 * Any server that copies Chat Completions (PROVIDERS.md §7–11): OpenRouter, Groq, Mistral,
 * DeepSeek, Ollama, LM Studio, llama.cpp, vLLM. Same spelling as OpenAI; the differences are in
 * what each accepts, which capabilities.ts decides before a call gets here, plus `max_tokens`
 * (the name every one of them knows) and an optional key (local servers have none).
 */
import { classify, type ErrorContext } from '../errors.ts';
import { baseUrlOf } from '../capabilities.ts';
import { chatBody, chatCompletionsUrl, chatErrorDetails, parseChatCompletion } from './openai.ts';
import type { HttpRequest, ParsedCompletion, ProviderAdapter, WireCall } from './shared.ts';

export const openaiCompatibleAdapter: ProviderAdapter = {
  buildRequest(call, config, traits): HttpRequest {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    // Only the headers the server must allow in its CORS preflight (§1.1): nothing optional.
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    return {
      url: chatCompletionsUrl(baseUrlOf(config)),
      headers,
      body: chatBody(call, config, { ...traits, tokenParam: 'max_tokens' }),
    };
  },
  parseResponse(body: unknown, _call: WireCall, ctx: ErrorContext): ParsedCompletion {
    return parseChatCompletion(body, ctx, { stripThinking: true });
  },
  classifyError(status, bodyText, ctx, headers) {
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      body = undefined;
    }
    return classify(status, chatErrorDetails(body, bodyText), ctx, headers);
  },
};
