/**
 * Google Gemini `generateContent` (PROVIDERS.md §6). The key travels in `x-goog-api-key`, never
 * in `?key=` (URLs end up in history and logs). Thinking is switched off or bounded, because
 * thinking tokens count against `maxOutputTokens` and a small judge budget would otherwise end
 * in MAX_TOKENS with no text at all (§6.3).
 */
import {
  classify,
  isRecord,
  parseDuration,
  str,
  unreadableBody,
  type ErrorContext,
  type ErrorDetails,
  wordedError,
} from '../errors.ts';
import { tokenLogprob, topLogprob } from '../logprobs.ts';
import type { JudgeChoice, TokenLogprob, TokenUsage } from '../types.ts';
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

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

/** Extra output budget for models whose thinking cannot be switched off. */
const THINKING_HEADROOM: Record<string, number> = { pro25: 128, v3: 1024 };

function modelId(model: string): string {
  return model.replace(/^models\//, '');
}

/** How to keep thinking out of the answer budget for this model, if it thinks. */
export function thinkingPlan(
  model: string,
): { config: Record<string, unknown>; headroom: number } | undefined {
  const m = modelId(model).toLowerCase();
  if (/^gemini-2\.5-flash/.test(m)) return { config: { thinkingBudget: 0 }, headroom: 0 };
  // 2.5 Pro cannot stop thinking; 128 is its smallest budget.
  if (/^gemini-2\.5-pro/.test(m))
    return { config: { thinkingBudget: 128 }, headroom: THINKING_HEADROOM.pro25 };
  // Gemini 3 takes a level, not a budget, and always thinks a little [unverified: levels per model].
  if (/^gemini-3/.test(m))
    return { config: { thinkingLevel: 'low' }, headroom: THINKING_HEADROOM.v3 };
  return undefined;
}

const FINISH_REASONS: FinishWords = [
  ['stop', ['STOP']],
  ['length', ['MAX_TOKENS']],
  [
    'content_filter',
    ['SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'RECITATION', 'IMAGE_SAFETY'],
  ],
];

function readLogprobs(raw: unknown): TokenLogprob[] | undefined {
  if (!isRecord(raw) || !Array.isArray(raw.chosenCandidates)) return undefined;
  const tops = Array.isArray(raw.topCandidates) ? raw.topCandidates : [];
  // Both arrays have one entry per decoding step (§6.2): zip them.
  return raw.chosenCandidates.filter(isRecord).map((chosen, i) => {
    const step = tops[i];
    const alternatives =
      isRecord(step) && Array.isArray(step.candidates)
        ? step.candidates.filter(isRecord).map((c) => topLogprob(c.token, c.logProbability))
        : [];
    return tokenLogprob(chosen.token, chosen.logProbability, alternatives);
  });
}

export function geminiUsage(raw: unknown): TokenUsage {
  if (!isRecord(raw)) return { input: 0, output: 0 };
  // Thinking tokens are billed as output (§6.5).
  const out: TokenUsage = {
    input: num(raw.promptTokenCount),
    output: num(raw.candidatesTokenCount) + num(raw.thoughtsTokenCount),
  };
  if (num(raw.cachedContentTokenCount)) out.cachedInput = num(raw.cachedContentTokenCount);
  return out;
}

export function geminiErrorDetails(body: unknown, rawText: string): ErrorDetails {
  if (!isRecord(body) || !isRecord(body.error)) return plainErrorDetails(rawText);
  const e = body.error;
  const details = Array.isArray(e.details) ? e.details.filter(isRecord) : [];
  const reasons: string[] = [];
  const quotaIds: string[] = [];
  let retryAfterMs: number | undefined;
  for (const d of details) {
    const type = str(d['@type']) ?? '';
    if (typeof d.reason === 'string') reasons.push(d.reason);
    if (type.endsWith('QuotaFailure') && Array.isArray(d.violations)) {
      for (const v of d.violations.filter(isRecord)) {
        const id = str(v.quotaId) ?? str(v.quotaMetric);
        if (id) quotaIds.push(id);
      }
    }
    if (type.endsWith('RetryInfo') && typeof d.retryDelay === 'string') {
      retryAfterMs = parseDuration(d.retryDelay);
    }
  }
  return {
    message: str(e.message) ?? '',
    canonical: str(e.status),
    reasons,
    quotaIds,
    retryAfterMs,
  };
}

export const geminiAdapter: ProviderAdapter = {
  buildRequest(call: WireCall, config, traits): HttpRequest {
    const contents = call.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({
        role: m.role === 'assistant' ? 'model' : 'user',
        parts: [{ text: m.content }],
      }));
    const generationConfig: Record<string, unknown> = {};
    if (call.temperature !== undefined) generationConfig.temperature = call.temperature;
    const plan = traits.thinkingConfig ? thinkingPlan(config.model) : undefined;
    if (call.maxTokens !== undefined)
      generationConfig.maxOutputTokens = call.maxTokens + (plan?.headroom ?? 0);
    if (call.n > 1) generationConfig.candidateCount = call.n;
    if (call.topLogprobs !== undefined) {
      generationConfig.responseLogprobs = true;
      generationConfig.logprobs = call.topLogprobs;
    }
    if (call.json) {
      generationConfig.responseMimeType = 'application/json';
      if (call.json.mode === 'schema') generationConfig.responseJsonSchema = call.json.schema;
    }
    if (plan) generationConfig.thinkingConfig = plan.config;
    const body: Record<string, unknown> = { contents, generationConfig };
    const system = systemText(call.messages);
    if (system) body.systemInstruction = { parts: [{ text: system }] };
    return {
      url: joinUrl(
        config.baseUrl ?? GEMINI_BASE_URL,
        'v1beta',
        `models/${encodeURIComponent(modelId(config.model))}:generateContent`,
      ),
      headers: { 'content-type': 'application/json', 'x-goog-api-key': config.apiKey ?? '' },
      body,
    };
  },

  parseResponse(body: unknown, _call: WireCall, ctx: ErrorContext): ParsedCompletion {
    if (!isRecord(body)) throw unreadableBody(ctx, 200);
    if (isRecord(body.error))
      throw classify(num(body.error.code) || 500, geminiErrorDetails(body, ''), ctx);
    const candidates = Array.isArray(body.candidates) ? body.candidates.filter(isRecord) : [];
    if (candidates.length === 0) {
      const feedback = isRecord(body.promptFeedback) ? body.promptFeedback : {};
      const reason = str(feedback.blockReason);
      if (reason) {
        throw wordedError(
          'content-filter',
          'llm.error.geminiBlocked',
          { reason },
          { provider: ctx.provider, status: 200 },
        );
      }
      throw wordedError('malformed-output', 'llm.error.geminiNoAnswer', undefined, {
        provider: ctx.provider,
        status: 200,
      });
    }
    const choices: JudgeChoice[] = candidates
      .sort((a, b) => num(a.index) - num(b.index))
      .map((c) => {
        const content = isRecord(c.content) ? c.content : {};
        const parts = Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];
        const text = parts
          .filter((p) => p.thought !== true && typeof p.text === 'string')
          .map((p) => p.text as string)
          .join('');
        const choice: JudgeChoice = {
          text,
          finishReason: finishReasonOf(FINISH_REASONS, c.finishReason, 'stop'),
        };
        const logprobs = readLogprobs(c.logprobsResult);
        if (logprobs) choice.logprobs = logprobs;
        return choice;
      });
    return { choices, usage: geminiUsage(body.usageMetadata), model: str(body.modelVersion) };
  },

  classifyError: errorClassifier(geminiErrorDetails),
};
