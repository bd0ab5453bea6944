/** The provider embedding backend for coherence: wire shapes, order, errors, keys kept out. */
import { describe, expect, it } from 'vitest';
import { createProviderEmbedder } from '../../../../src/lib/metrics/semantic/provider-embedder.ts';
import { scoreCoherence } from '../../../../src/lib/metrics/semantic/coherence/coherence.ts';

type Call = { url: string; init: RequestInit };

function fakeFetch(reply: (call: Call) => Response) {
  const calls: Call[] = [];
  const impl = (async (url: string | URL | Request, init?: RequestInit) => {
    const call = { url: String(url), init: init ?? {} };
    calls.push(call);
    return reply(call);
  }) as typeof fetch;
  return { impl, calls };
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('createProviderEmbedder', () => {
  it('calls OpenAI /v1/embeddings with the key in a header and keeps the index order', async () => {
    const { impl, calls } = fakeFetch((call) => {
      const body = JSON.parse(String(call.init.body)) as { input: string[] };
      // Answer out of order: the client must sort by index.
      return json({
        data: body.input.map((_, i) => ({ index: i, embedding: [i, 1] })).reverse(),
      });
    });
    const embedder = createProviderEmbedder(
      { kind: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-embed-secret-1' },
      'text-embedding-3-small',
      impl,
    );
    const vectors = await embedder.embed(['a', 'b', 'c']);
    expect(vectors.map((v) => [...v])).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
    expect(calls[0]!.url).toBe('https://api.openai.com/v1/embeddings');
    expect((calls[0]!.init.headers as Record<string, string>).authorization).toBe(
      'Bearer sk-embed-secret-1',
    );
    expect(String(calls[0]!.init.body)).not.toContain('sk-embed-secret-1');
    expect(embedder.backend).toBe('provider:openai/text-embedding-3-small');
  });

  it('calls Gemini batchEmbedContents with x-goog-api-key, never ?key=', async () => {
    const { impl, calls } = fakeFetch((call) => {
      const body = JSON.parse(String(call.init.body)) as { requests: unknown[] };
      return json({ embeddings: body.requests.map((_, i) => ({ values: [1, i] })) });
    });
    const embedder = createProviderEmbedder(
      { kind: 'gemini', model: 'gemini-2.0-flash', apiKey: 'AIza-embed-secret' },
      'text-embedding-004',
      impl,
    );
    const summary = 'Rain fell. Rivers rose. Roads closed. Schools shut.';
    const result = await scoreCoherence(summary, embedder);
    expect(result.status).toBe('ok');
    expect(result.backend).toBe('provider:gemini/text-embedding-004');
    expect(calls[0]!.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:batchEmbedContents',
    );
    expect(calls[0]!.url).not.toContain('key=');
    expect((calls[0]!.init.headers as Record<string, string>)['x-goog-api-key']).toBe(
      'AIza-embed-secret',
    );
  });

  it('explains a bad key and an unknown model without echoing the key', async () => {
    const key = 'sk-embed-echoed-secret';
    const bad = fakeFetch(() =>
      json({ error: { message: `Incorrect API key provided: ${key}.` } }, 401),
    );
    const embedder = createProviderEmbedder(
      { kind: 'openai', model: 'm', apiKey: key },
      'e',
      bad.impl,
    );
    const error: unknown = await embedder.embed(['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/rejected the API key/u);
    expect((error as Error).message).not.toContain(key);
    const missing = fakeFetch(() => json({ error: { message: 'model not found' } }, 404));
    await expect(
      createProviderEmbedder(
        { kind: 'openai', model: 'm', apiKey: key },
        'nope',
        missing.impl,
      ).embed(['x']),
    ).rejects.toThrow(/no embedding model "nope"/u);
  });

  it('refuses Anthropic, which has no embedding API', () => {
    expect(() =>
      createProviderEmbedder({ kind: 'anthropic', model: 'claude', apiKey: 'k' }, 'x'),
    ).toThrow(/Anthropic has no embedding API/u);
  });

  it('stops when cancelled', async () => {
    const { impl } = fakeFetch(() => json({ data: [] }));
    const controller = new AbortController();
    controller.abort();
    const embedder = createProviderEmbedder({ kind: 'openai', model: 'm', apiKey: 'k' }, 'e', impl);
    await expect(embedder.embed(['x'], controller.signal)).rejects.toThrow(/cancelled/u);
  });
});
