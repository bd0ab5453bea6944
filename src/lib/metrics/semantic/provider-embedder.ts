/**
 * The provider's embedding API as a coherence backend (SPEC §2, backend 3): OpenAI's
 * `/v1/embeddings` (and any OpenAI-compatible server that has it), Gemini's
 * `batchEmbedContents`. With OpenAI's text-embedding-3-small this reproduces the seed's numbers
 * (≈0.45 for LLM summaries). Anthropic has no embedding API. Uses the judge's key; sentences go to
 * the provider the user chose and nowhere else.
 */
import { messageOf } from '../../errors.ts';
import type { SentenceEmbedder } from './backends.ts';
import { throwIfAborted } from './backends.ts';
import { baseUrlOf } from '../../llm/capabilities.ts';
import { redact } from '../../llm/redact.ts';
import { LlmError } from '../../llm/types.ts';
import type { ProviderConfig, ProviderKind } from '../../llm/types.ts';

export const DEFAULT_EMBEDDING_MODELS: Partial<Record<ProviderKind, string>> = {
  openai: 'text-embedding-3-small',
  gemini: 'text-embedding-004',
  'openai-compatible': 'nomic-embed-text',
};

/** Inputs per request: both APIs accept at least 100; summaries rarely have more sentences. */
const BATCH = 96;

function endpoint(
  config: ProviderConfig,
  model: string,
): { url: string; headers: Record<string, string> } {
  const base = baseUrlOf(config).replace(/\/+$/u, '');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.kind === 'gemini') {
    if (config.apiKey) headers['x-goog-api-key'] = config.apiKey;
    return {
      url: `${base}/v1beta/models/${encodeURIComponent(model)}:batchEmbedContents`,
      headers,
    };
  }
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  return { url: `${base}/v1/embeddings`, headers };
}

function describeFailure(
  status: number,
  body: string,
  config: ProviderConfig,
  model: string,
): LlmError {
  let message = body.slice(0, 300);
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string };
    message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? message);
  } catch {
    // not JSON: keep the start of the text
  }
  message = redact(message, [config.apiKey]);
  const host = new URL(baseUrlOf(config)).host;
  if (status === 401 || (status === 400 && /API_KEY_INVALID|api key/iu.test(message))) {
    return new LlmError('auth', `${host} rejected the API key for embeddings (${message}).`, {
      status,
      provider: config.kind,
    });
  }
  if (status === 404) {
    return new LlmError(
      'model-not-found',
      `${host} has no embedding model "${model}" (${message}).`,
      { status, provider: config.kind },
    );
  }
  if (status === 429) {
    return new LlmError('rate-limit', `${host} is rate-limiting embedding requests (${message}).`, {
      status,
      provider: config.kind,
    });
  }
  return new LlmError(
    status >= 500 ? 'server' : 'bad-request',
    `${host} could not embed the sentences: HTTP ${status} (${message}).`,
    { status, provider: config.kind },
  );
}

export function createProviderEmbedder(
  config: ProviderConfig,
  model: string,
  fetchImpl: typeof fetch = globalThis.fetch.bind(globalThis),
): SentenceEmbedder {
  if (config.kind === 'anthropic') {
    throw new LlmError(
      'capability',
      'Anthropic has no embedding API: choose OpenAI, Gemini or an OpenAI-compatible server for provider embeddings.',
      { provider: config.kind },
    );
  }
  return {
    backend: `provider:${config.kind}/${model}`,
    async embed(sentences, signal) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < sentences.length; start += BATCH) {
        throwIfAborted(signal);
        const batch = sentences.slice(start, start + BATCH);
        const { url, headers } = endpoint(config, model);
        const body =
          config.kind === 'gemini'
            ? {
                requests: batch.map((text) => ({
                  model: `models/${model}`,
                  content: { parts: [{ text }] },
                })),
              }
            : { model, input: batch };
        let response: Response;
        try {
          response = await fetchImpl(url, {
            method: 'POST',
            headers,
            body: JSON.stringify(body),
            ...(signal ? { signal } : {}),
          });
        } catch (error) {
          if (signal?.aborted) throw new DOMException('The operation was cancelled.', 'AbortError');
          throw new LlmError(
            'network',
            `Could not reach ${new URL(url).host} for embeddings: ${redact(messageOf(error), [config.apiKey])}.`,
            { provider: config.kind },
          );
        }
        const text = await response.text();
        if (!response.ok) throw describeFailure(response.status, text, config, model);
        const parsed = JSON.parse(text) as {
          data?: { index?: number; embedding: number[] }[];
          embeddings?: { values: number[] }[];
        };
        const rows =
          config.kind === 'gemini'
            ? (parsed.embeddings ?? []).map((e) => e.values)
            : [...(parsed.data ?? [])]
                .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
                .map((d) => d.embedding);
        if (rows.length !== batch.length) {
          throw new LlmError(
            'malformed-output',
            `The embedding API returned ${rows.length} vectors for ${batch.length} sentences.`,
            { provider: config.kind },
          );
        }
        for (const row of rows) vectors.push(Float32Array.from(row));
      }
      return vectors;
    },
  };
}
