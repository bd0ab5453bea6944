/**
 * The loopback fake itself: real paths, CORS preflights, request-shape checks with the providers'
 * own error bodies, credentials redacted in the record, and every client speaking to it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJudge } from '../../../src/lib/llm/client.ts';
import type { ProviderConfig } from '../../../src/lib/llm/types.ts';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.ts';
import { KEYS, resetLlmState } from './_support.ts';

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  resetLlmState();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

describe('fake LLM server', () => {
  it('answers CORS preflights for every header the clients send', async () => {
    const res = await fetch(`${fake.url}/v1/messages`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = res.headers.get('access-control-allow-headers')!;
    for (const h of [
      'authorization',
      'x-api-key',
      'anthropic-version',
      'anthropic-dangerous-direct-browser-access',
      'x-goog-api-key',
      'content-type',
    ]) {
      expect(allowed).toContain(h);
    }
    expect(fake.preflights).toBe(1);
    expect(fake.requests).toHaveLength(0);
  });

  it('rejects malformed requests with the provider’s own error shape', async () => {
    const noKey = await post('/v1/chat/completions', {
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.message).toMatch(/didn't provide an API key/);

    const anthropicHeaders = {
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      'anthropic-dangerous-direct-browser-access': 'true',
    };
    const noMax = await post(
      '/v1/messages',
      { model: 'c', messages: [{ role: 'user', content: 'x' }] },
      anthropicHeaders,
    );
    expect(noMax).toMatchObject({
      status: 400,
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
      },
    });
    const noBrowser = await post(
      '/v1/messages',
      { model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
      { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    );
    expect(noBrowser.status).toBe(401);

    const inQuery = await post(
      '/v1beta/models/gemini-2.0-flash:generateContent?key=AIzaLeakyLeakyLeaky',
      { contents: [{ parts: [{ text: 'x' }] }] },
    );
    expect(inQuery).toMatchObject({ status: 400, body: { error: { status: 'INVALID_ARGUMENT' } } });
    expect(fake.requests.at(-1)!.query).toBe('key=<redacted>');

    const notJson = await post('/v1beta/models/gemini-2.0-flash:generateContent', '{oops', {
      'x-goog-api-key': 'k',
    });
    expect(notJson.status).toBe(400);
    expect((await post('/v1/nothing', {})).status).toBe(404);
  });

  it('records requests with credentials redacted', async () => {
    await createJudge({
      kind: 'anthropic',
      model: 'claude-haiku-4-5',
      apiKey: KEYS.anthropic,
      baseUrl: fake.url,
    }).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    const [req] = fake.requests;
    expect(req).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      wire: 'anthropic',
      authorized: true,
      authHeader: 'x-api-key',
      model: 'claude-haiku-4-5',
    });
    expect(req.headers['x-api-key']).toBe('<redacted>');
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(JSON.stringify(fake.requests)).not.toContain(KEYS.anthropic);
  });

  it.each([
    [
      'openai',
      { kind: 'openai', model: 'gpt-4o-mini', apiKey: KEYS.openai },
      '/v1/chat/completions',
      'authorization',
    ],
    [
      'anthropic',
      { kind: 'anthropic', model: 'claude-haiku-4-5', apiKey: KEYS.anthropic },
      '/v1/messages',
      'x-api-key',
    ],
    [
      'gemini',
      { kind: 'gemini', model: 'gemini-2.0-flash', apiKey: KEYS.gemini },
      '/v1beta/models/gemini-2.0-flash:generateContent',
      'x-goog-api-key',
    ],
    [
      'keyless local server',
      { kind: 'openai-compatible', model: 'llama3.2' },
      '/v1/chat/completions',
      undefined,
    ],
  ] as Array<[string, Omit<ProviderConfig, 'baseUrl'>, string, string | undefined]>)(
    '%s client passes the shape checks',
    async (_name, config, path, authHeader) => {
      const local = await startFakeLlm({ requireOpenAiKey: authHeader !== undefined });
      try {
        const res = await createJudge({ ...config, baseUrl: local.url } as ProviderConfig).complete(
          {
            messages: [
              { role: 'system', content: 's' },
              { role: 'user', content: 'x' },
            ],
            maxTokens: 3,
          },
        );
        expect(res.choices[0].text).toBe('7');
        expect(local.requests[0].path).toBe(path);
        expect(local.requests[0].authHeader).toBe(authHeader);
        expect(local.requests[0].query).toBe('');
      } finally {
        await local.close();
      }
    },
  );
});
