/**
 * The provider's embedding API as a coherence backend (SPEC §2, backend 3): OpenAI's
 * `/v1/embeddings` (and any OpenAI-compatible server that has it), Gemini's
 * `batchEmbedContents`. With OpenAI's text-embedding-3-small this reproduces the seed's numbers
 * (≈0.45 for LLM summaries). Anthropic has no embedding API. Uses the judge's key; sentences go to
 * the provider the user chose and nowhere else. The wire formats are the providers' records'
 * (src/lib/llm/providers/embeddings.ts).
 */
import { messageOf } from '../../errors.ts';
import type { SentenceEmbedder } from './backends.ts';
import { throwIfAborted } from './backends.ts';
import { baseUrlOf } from '../../llm/capabilities.ts';
import { PROVIDERS, providerRecords } from '../../llm/providers/registry.ts';
import { redact } from '../../llm/redact.ts';
import { LlmError } from '../../llm/types.ts';
import type { ProviderConfig } from '../../llm/types.ts';

/** "OpenAI, Google Gemini or an OpenAI-compatible server": the providers that embed. */
function embeddingProviders(): string {
  const names = providerRecords().flatMap(([, r]) => (r.embeddings ? [r.name] : []));
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('');
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
  const record = PROVIDERS[config.kind];
  const api = record.embeddings;
  if (!api) {
    throw new LlmError(
      'capability',
      `${record.name} has no embedding API: choose ${embeddingProviders()} for provider embeddings.`,
      { provider: config.kind },
    );
  }
  return {
    backend: `provider:${config.kind}/${model}`,
    // The providers' embedding models (OpenAI, Gemini, Mistral, …) are multilingual.
    languages: 'any',
    async embed(sentences, signal) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < sentences.length; start += api.batchSize) {
        throwIfAborted(signal);
        const batch = sentences.slice(start, start + api.batchSize);
        const { url, headers, body } = api.request(config, baseUrlOf(config), model, batch);
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
        const rows = api.vectors(JSON.parse(text));
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
