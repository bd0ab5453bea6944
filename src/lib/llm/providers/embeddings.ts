/**
 * The two embedding wire formats (provider embeddings, src/lib/metrics/semantic/provider-embedder.ts):
 * OpenAI's `/v1/embeddings`, which the OpenAI-compatible servers copy, and Gemini's
 * `batchEmbedContents`. Same key headers as the chat adapters; only the key header a request
 * needs, so a compatible server's CORS preflight has nothing optional to allow.
 */
import { isRecord } from '../errors.ts';
import type { EmbeddingsApi } from './record.ts';

/** Both APIs accept at least 100 inputs per request; summaries rarely have more sentences. */
const BATCH = 96;

function numbers(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'number') ? value : undefined;
}

export function openAiEmbeddings(defaultModel: string): EmbeddingsApi {
  return {
    defaultModel,
    batchSize: BATCH,
    request(config, baseUrl, model, texts) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
      return {
        url: `${baseUrl.replace(/\/+$/u, '')}/v1/embeddings`,
        headers,
        body: { model, input: texts },
      };
    },
    vectors(body) {
      const data = isRecord(body) && Array.isArray(body.data) ? body.data.filter(isRecord) : [];
      return data
        .map((d) => ({
          index: typeof d.index === 'number' ? d.index : 0,
          vector: numbers(d.embedding),
        }))
        .sort((a, b) => a.index - b.index)
        .flatMap((d) => (d.vector ? [d.vector] : []));
    },
  };
}

export function geminiEmbeddings(defaultModel: string): EmbeddingsApi {
  return {
    defaultModel,
    batchSize: BATCH,
    request(config, baseUrl, model, texts) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (config.apiKey) headers['x-goog-api-key'] = config.apiKey;
      return {
        url: `${baseUrl.replace(/\/+$/u, '')}/v1beta/models/${encodeURIComponent(model)}:batchEmbedContents`,
        headers,
        body: {
          requests: texts.map((text) => ({
            model: `models/${model}`,
            content: { parts: [{ text }] },
          })),
        },
      };
    },
    vectors(body) {
      const rows =
        isRecord(body) && Array.isArray(body.embeddings) ? body.embeddings.filter(isRecord) : [];
      return rows.flatMap((e) => {
        const vector = numbers(e.values);
        return vector ? [vector] : [];
      });
    },
  };
}
