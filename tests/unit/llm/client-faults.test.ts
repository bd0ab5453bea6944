/**
 * The client under the faults a data-set run meets (issue: fault injection): what a failed call
 * cost is reported, bodies cut off in transit are named as such and asked again once, replies the
 * caller cannot use are never cached, and a run's judge stops sending once the key is dead.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryResponseCache } from '../../../src/lib/llm/cache.ts';
import { createJudge, DEFAULT_MAX_ATTEMPTS } from '../../../src/lib/llm/client.ts';
import type { JudgeRequest, ProviderConfig } from '../../../src/lib/llm/types.ts';
import { fakeError, openaiSuccess } from '../../helpers/fake-llm.ts';
import { KEYS, recordingSleep, rejection, resetLlmState, scriptedFetch } from './_support.ts';

const OPENAI: ProviderConfig = { kind: 'openai', model: 'gpt-4.1-mini', apiKey: KEYS.openai };
const ASK: JudgeRequest = { messages: [{ role: 'user', content: 'Score this.' }] };

/** A fetch whose first `cut` answers send the status and headers, then drop the body. */
function cuttingFetch(cut: number) {
  let calls = 0;
  const fetchFn = (async () => {
    calls++;
    if (calls <= cut) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"id":"chatcmpl-1","choi'));
          controller.error(new TypeError('terminated'));
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    }
    return new Response(JSON.stringify(openaiSuccess({ text: '4' })), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof fetch;
  return { fetch: fetchFn, calls: () => calls };
}

beforeEach(resetLlmState);

describe('what a failed call cost', () => {
  it('counts every attempt of a call that gave up', async () => {
    const { fetch, calls } = scriptedFetch([fakeError('openai', 'server') as never]);
    const { sleep } = recordingSleep();
    const err = await rejection(createJudge(OPENAI, { fetch, sleep }).complete(ASK));
    expect(err.kind).toBe('server');
    expect(calls).toHaveLength(DEFAULT_MAX_ATTEMPTS);
    expect(err.spent).toEqual({ httpCalls: DEFAULT_MAX_ATTEMPTS, usage: { input: 0, output: 0 } });
  });

  it('counts a refused key as the one request it was', async () => {
    const { fetch } = scriptedFetch([fakeError('openai', 'bad-key') as never]);
    const err = await rejection(createJudge(OPENAI, { fetch }).complete(ASK));
    expect(err.kind).toBe('auth');
    expect(err.spent?.httpCalls).toBe(1);
  });

  it('keeps the tokens of a paid answer whose repair then failed', async () => {
    const { fetch, calls } = scriptedFetch([
      { body: openaiSuccess({ text: 'not json', usage: { input: 100, output: 7 } }) },
      fakeError('openai', 'bad-key') as never,
    ]);
    const { z } = await import('zod');
    const err = await rejection(
      createJudge(OPENAI, { fetch }).completeJson({
        ...ASK,
        json: { name: 'v', schema: z.object({ score: z.number() }) },
      }),
    );
    expect(calls).toHaveLength(2);
    expect(err.spent?.httpCalls).toBe(2);
    expect(err.spent?.usage).toEqual({ input: 100, output: 7 });
  });
});

describe('bodies cut off or garbled in transit', () => {
  it('a body cut mid-transfer is named as such, asked again once, then succeeds', async () => {
    const { fetch, calls } = cuttingFetch(1);
    const { sleep } = recordingSleep();
    const res = await createJudge(OPENAI, { fetch, sleep }).complete(ASK);
    expect(res.choices[0].text).toBe('4');
    expect(calls()).toBe(2);
  });

  it('twice cut: fails with that reason, not "could not reach" or the base URL', async () => {
    const { fetch, calls } = cuttingFetch(5);
    const { sleep } = recordingSleep();
    const err = await rejection(createJudge(OPENAI, { fetch, sleep }).complete(ASK));
    expect(calls()).toBe(2);
    expect(err.message).toMatch(/cut off mid-transfer \(HTTP 200/u);
    expect(err.message).not.toMatch(/Could not reach|base URL|CORS/u);
    expect(err.spent?.httpCalls).toBe(2);
  });

  it('truncated JSON is retried once and named; an HTML page still points at the base URL', async () => {
    const truncated = { body: '{"id":"chatcmpl-1","choices":[{"mess' };
    const { fetch, calls } = scriptedFetch([truncated, { body: openaiSuccess({ text: '4' }) }]);
    const { sleep } = recordingSleep();
    expect((await createJudge(OPENAI, { fetch, sleep }).complete(ASK)).calls).toBe(2);
    expect(calls).toHaveLength(2);

    resetLlmState();
    const always = scriptedFetch([truncated]);
    const err = await rejection(createJudge(OPENAI, { fetch: always.fetch, sleep }).complete(ASK));
    expect(always.calls).toHaveLength(2);
    expect(err.kind).toBe('server');
    expect(err.message).toMatch(/breaks off or is garbled/u);

    resetLlmState();
    const html = scriptedFetch([{ body: '<html><body>Sign in</body></html>' }]);
    const page = await rejection(createJudge(OPENAI, { fetch: html.fetch, sleep }).complete(ASK));
    expect(html.calls).toHaveLength(1);
    expect(page.message).toMatch(/not an API response .*Check the base URL/u);
  });
});

describe('replies the caller cannot use', () => {
  const noScore = (r: { choices: { text: string }[] }) =>
    /\d/u.test(r.choices[0]?.text ?? '') ? undefined : 'The reply gives no score.';

  it('are errors, never cached: the provider is asked again once it recovers', async () => {
    const cache = new MemoryResponseCache();
    const { fetch, calls } = scriptedFetch([
      { body: openaiSuccess({ text: 'I would rather not say.' }) },
      { body: openaiSuccess({ text: '4' }) },
    ]);
    const judge = createJudge(OPENAI, { fetch, cache });
    const request = { ...ASK, cacheKey: 'case-1', accept: noScore };
    const err = await rejection(judge.complete(request));
    expect(err.kind).toBe('malformed-output');
    expect(err.message).toBe('The reply gives no score.');
    expect(cache.size).toBe(0);
    const res = await judge.complete(request);
    expect(res.choices[0].text).toBe('4');
    expect(calls).toHaveLength(2);
    // The good answer is cached: a third ask sends nothing.
    expect((await judge.complete(request)).fromCache).toBe(true);
    expect(calls).toHaveLength(2);
  });

  it('a cached reply the check refuses is asked again; forget drops an entry', async () => {
    const cache = new MemoryResponseCache();
    const { fetch, calls } = scriptedFetch([{ body: openaiSuccess({ text: 'no digits' }) }]);
    const judge = createJudge(OPENAI, { fetch, cache });
    await judge.complete({ ...ASK, cacheKey: 'k' });
    expect(cache.size).toBe(1);
    await rejection(judge.complete({ ...ASK, cacheKey: 'k', accept: noScore }));
    expect(calls).toHaveLength(2);
    await judge.forget?.({ cacheKey: 'k' });
    expect(cache.size).toBe(0);
  });
});

describe("a run's judge (stopOnFatal)", () => {
  it('after a dead key, later calls fail at once without a request', async () => {
    const { fetch, calls } = scriptedFetch([fakeError('openai', 'bad-key') as never]);
    const judge = createJudge(OPENAI, { fetch, stopOnFatal: true });
    expect((await rejection(judge.complete(ASK))).kind).toBe('auth');
    const again = await rejection(judge.complete(ASK));
    expect(again.kind).toBe('auth');
    expect(calls).toHaveLength(1);
  });

  it('an exhausted quota latches too; a context error does not (it is about one prompt)', async () => {
    const quota = scriptedFetch([fakeError('openai', 'quota') as never]);
    const judge = createJudge(OPENAI, { fetch: quota.fetch, stopOnFatal: true });
    await rejection(judge.complete(ASK));
    await rejection(judge.complete(ASK));
    expect(quota.calls).toHaveLength(1);

    resetLlmState();
    const context = scriptedFetch([
      fakeError('openai', 'context-length') as never,
      { body: openaiSuccess({ text: '4' }) },
    ]);
    const other = createJudge(OPENAI, { fetch: context.fetch, stopOnFatal: true });
    expect((await rejection(other.complete(ASK))).kind).toBe('context-too-long');
    expect((await other.complete(ASK)).choices[0].text).toBe('4');
  });

  it('without the option (a single case) every call is still tried', async () => {
    const { fetch, calls } = scriptedFetch([fakeError('openai', 'bad-key') as never]);
    const judge = createJudge(OPENAI, { fetch });
    await rejection(judge.complete(ASK));
    await rejection(judge.complete(ASK));
    expect(calls).toHaveLength(2);
  });
});

describe('the timeout setting', () => {
  it('timeoutSec on the provider bounds one request', async () => {
    const hung = (async (_input: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () =>
          reject(new DOMException('The operation was aborted.', 'AbortError')),
        );
      })) as typeof fetch;
    const err = await rejection(
      createJudge({ ...OPENAI, timeoutSec: 0.05 }, { fetch: hung, maxAttempts: 1 }).complete(ASK),
    );
    expect(err.kind).toBe('timeout');
    expect(err.message).toMatch(/did not answer within 0 s|within \d+ s/u);
  });
});

describe('one request per answer', () => {
  it('callers asking for the same cached answer at once share one request', async () => {
    const cache = new MemoryResponseCache();
    const { fetch, calls } = scriptedFetch([{ body: openaiSuccess({ text: 'steps' }) }]);
    const judge = createJudge(OPENAI, { fetch, cache });
    const request = { ...ASK, cacheKey: { prompt: 'g-eval.steps@1', criterion: 'coherence' } };
    const answers = await Promise.all([1, 2, 3, 4].map(() => judge.complete(request)));
    expect(calls).toHaveLength(1);
    // Which caller asks first depends on whose cache key is hashed first; exactly one does.
    expect(answers.map((a) => a.fromCache).sort()).toEqual([false, true, true, true]);
    expect(answers.every((a) => a.choices[0].text === 'steps')).toBe(true);
  });

  it('when the first caller fails, the next one asks itself', async () => {
    const cache = new MemoryResponseCache();
    const { fetch, calls } = scriptedFetch([
      fakeError('openai', 'bad-request') as never,
      { body: openaiSuccess({ text: '4' }) },
    ]);
    const judge = createJudge(OPENAI, { fetch, cache });
    const request = { ...ASK, cacheKey: 'same' };
    const settled = await Promise.allSettled([judge.complete(request), judge.complete(request)]);
    // Which caller reaches the request first depends on when its cache key's digest resolves
    // (WebCrypto runs off the thread): the one that fetched first fails, the other asks itself.
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
    const answered = settled.find((s) => s.status === 'fulfilled');
    expect(answered?.status === 'fulfilled' && answered.value.choices[0].text).toBe('4');
    expect(answered?.status === 'fulfilled' && answered.value.fromCache).toBe(false);
    expect(calls).toHaveLength(2);
  });
});
