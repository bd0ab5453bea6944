/**
 * Answers delivered just before a reload are not bought again (issue 27): every HTTP answer is in
 * the IndexedDB judge cache as soon as it arrives, before its call (here: 8 G-Eval samples, which
 * Anthropic answers one request each) is done, and the resumed row reads it back instead of
 * sending its request again. Kept only while the call is unfinished.
 */
import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createJudge } from '../../../src/lib/llm/client.ts';
import type { ProviderConfig } from '../../../src/lib/llm/types.ts';
import { runJudgeMetrics } from '../../../src/lib/metrics/judge/run.ts';
import {
  DEFAULT_JUDGE_SETTINGS,
  type JudgeSettings,
} from '../../../src/lib/metrics/judge/settings.ts';
import type { CaseInput, MetricResult } from '../../../src/lib/metrics/types.ts';
import { db } from '../../../src/lib/storage/db.ts';
import {
  clearJudgeCache,
  judgeAnswerCache,
  judgeCacheSize,
} from '../../../src/lib/storage/judge-cache.ts';
import type { RecordedRequest } from '../../helpers/fake-llm.ts';
import { oracleHandler, promptOfWire } from '../../helpers/judge-oracle.ts';
import { resetLlmState } from '../llm/_support.ts';

const CONFIG: ProviderConfig = {
  kind: 'anthropic',
  model: 'claude-haiku-4-5',
  apiKey: 'sk-ant-test-arrivals',
  baseUrl: 'http://127.0.0.1:9',
};
const INPUT: CaseInput = {
  source: 'The council closed the old bridge on Monday. A ferry will carry commuters until 2027.',
  summary: 'The council closed the bridge. A ferry runs until 2027.',
};
const SAMPLES = 8;
const SETTINGS: JudgeSettings = {
  ...DEFAULT_JUDGE_SETTINGS,
  gevalMethod: 'sampling',
  gevalSamples: SAMPLES,
};

/**
 * One page's view of the provider: the oracle's answers in Anthropic's shape, except that the
 * G-Eval form requests past the first `formAnswers` never come back (the page goes first).
 */
function provider(formAnswers = Infinity) {
  const oracle = oracleHandler(4);
  const asked: string[] = [];
  let delivered = 0;
  const fetchFn = (async (_input: RequestInfo | URL, init?: RequestInit) => {
    const req = { wire: 'anthropic', body: JSON.parse(String(init?.body)) } as RecordedRequest;
    const prompt = promptOfWire(req) ?? 'probe';
    asked.push(prompt);
    if (prompt === 'g-eval.form@1' && asked.filter((p) => p === prompt).length > formAnswers) {
      return new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new DOMException('', 'AbortError'))),
      );
    }
    const reply = await oracle(req);
    if (prompt === 'g-eval.form@1') delivered++;
    return new Response(JSON.stringify(reply.body), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof fetch;
  return {
    fetch: fetchFn,
    asked,
    get delivered() {
      return delivered;
    },
  };
}

function score(fetchFn: typeof fetch, signal?: AbortSignal) {
  const results: MetricResult[] = [];
  const judge = createJudge(CONFIG, { cache: judgeAnswerCache(), fetch: fetchFn });
  const done = runJudgeMetrics(INPUT, {
    metrics: ['geval-coherence'],
    settings: SETTINGS,
    judge,
    onResult: (r) => results.push(r),
    ...(signal ? { signal } : {}),
  });
  return { done, results };
}

/** Until the cache stops growing: the writes a page made before it went are all in. */
async function quiet(): Promise<void> {
  let before = -1;
  for (let i = 0; i < 50; i++) {
    const now = await judgeCacheSize();
    if (now === before) return;
    before = now;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('judge answers kept as they arrive', () => {
  beforeEach(async () => {
    resetLlmState();
    await clearJudgeCache();
  });

  it('three samples delivered before the page went are read back, not bought again', async () => {
    // The first page: the steps, then 3 of the 8 samples answered; the rest are on the wire.
    const first = provider(3);
    const gone = new AbortController();
    const unfinished = score(first.fetch, gone.signal);
    void unfinished.done.catch(() => undefined);
    await vi.waitFor(() => expect(first.delivered).toBe(3));
    await quiet();

    // The reload: new module state, the same IndexedDB; the row is scored again.
    resetLlmState();
    const second = provider();
    const resumed = score(second.fetch);
    await resumed.done;
    gone.abort();

    expect(second.asked).toEqual(Array(SAMPLES - 3).fill('g-eval.form@1'));
    const [result] = resumed.results;
    expect(result?.status).toBe('ok');
    expect(result?.score).toBe(4);
    // The finished call's answer is cached whole; its single arrivals are let go.
    expect(await judgeCacheSize()).toBe(2);
  });

  it('an answer the caller rejects is not kept: the next call asks again', async () => {
    const seen = provider();
    const judge = createJudge(CONFIG, { cache: judgeAnswerCache(), fetch: seen.fetch });
    const request = {
      messages: [{ role: 'user' as const, content: 'Rate it.' }],
      cacheKey: { test: 'rejected' },
      accept: () => 'no score in the reply',
    };
    await expect(judge.complete(request)).rejects.toThrow(/no score/u);
    expect(await (await db()).getAllKeys('judge-cache')).toEqual([]);
    await expect(judge.complete(request)).rejects.toThrow(/no score/u);
    expect(seen.asked).toHaveLength(2);
  });
});
