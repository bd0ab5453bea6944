/**
 * A gateway that echoes the key inside its 200 answers (issue 27): the key, its base64 and its
 * URL-encoded spellings, and another key the page holds, come back in claims, reasons, G-Eval
 * steps and failed batch lines, on every provider kind. None of it may reach the judge cache in
 * IndexedDB, a metric's result, or a later request body (G-Eval's form quotes its steps, the
 * verdicts quote the claims).
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJudge } from '../../../src/lib/llm/client.ts';
import { MemoryBatchJobStore, runBatch } from '../../../src/lib/llm/batch/engine.ts';
import { REDACTED } from '../../../src/lib/llm/redact.ts';
import type { ProviderConfig } from '../../../src/lib/llm/types.ts';
import { runJudgeMetrics } from '../../../src/lib/metrics/judge/run.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import type { CaseInput, JudgeMetricId, MetricResult } from '../../../src/lib/metrics/types.ts';
import { db } from '../../../src/lib/storage/db.ts';
import { clearJudgeCache, judgeAnswerCache } from '../../../src/lib/storage/judge-cache.ts';
import { startFakeBatch, type FakeBatch } from '../../helpers/fake-batch.ts';
import { startFakeLlm, type FakeLlm, type FakeReply } from '../../helpers/fake-llm.ts';
import { oracleHandler } from '../../helpers/judge-oracle.ts';
import { resetLlmState } from './_support.ts';

/** Keys of no known shape: only the literal redaction can find them. */
const CONFIGS: ProviderConfig[] = [
  { kind: 'openai', model: 'gpt-4.1-mini', apiKey: 'canary-OpenAI-4f9d2c7e' },
  { kind: 'anthropic', model: 'claude-haiku-4-5', apiKey: 'canary-Anthropic-8b1e6a30' },
  { kind: 'gemini', model: 'gemini-2.0-flash', apiKey: 'canary-Gemini-1c5f7d92' },
  { kind: 'openai-compatible', model: 'llama3.1', apiKey: 'gw/Canary+Compat=3e7a' },
];
/** A key the page holds for another provider (KeyStore.held()). */
const HELD = 'canary-Held-Other-77aa11';

const INPUT: CaseInput = {
  source:
    'The city council voted to close the old bridge on Monday. Repairs would cost 4 million euros. ' +
    'Engineers found cracks in two pillars last year. A ferry will carry commuters until a new bridge ' +
    'opens in 2027. Local shops fear losing customers.',
  summary:
    'The city council voted to close the old bridge on Monday. A ferry will carry commuters until a new ' +
    'bridge opens in 2027. The article discusses the reactions of shop owners.',
};
const METRICS: JudgeMetricId[] = ['alignment', 'coverage', 'vagueness', 'geval-coherence'];

const base64 = (key: string) => Buffer.from(key).toString('base64');

/** What must never be found: the key, the part of its base64 fed by the key alone, its URL form. */
function spellings(key: string): string[] {
  return [key, base64(key).slice(0, Math.floor((key.length * 8) / 6)), encodeURIComponent(key)];
}

function leaks(text: string, keys: readonly string[]): string[] {
  return keys.flatMap(spellings).filter((s) => text.includes(s));
}

/** The oracle's words with the keys written into them, the way a leaky gateway would. */
function echo(text: string, key: string): string {
  return (
    text
      .replaceAll('Read the summary.', `Read the summary, key ${key}.`)
      .replaceAll('The article discusses', `The article ${key} discusses`)
      .replaceAll('The source states it.', `The source states it (${base64(key)}).`)
      .replaceAll('Reasoning in one sentence.', `Reasoning about ${encodeURIComponent(key)}.`)
      .replaceAll('Checked.', `Checked with ${HELD}.`)
      .replaceAll('Same facts.', `Same facts ${key}.`)
      // A failed batch line's own words (fake-batch.ts), one per wire.
      .replaceAll('Invalid value for max_tokens.', `Invalid key ${key}.`)
      .replaceAll('max_tokens: too large', `bad key ${key}`)
      .replaceAll('Request contains an invalid argument.', `Bad key ${key}.`)
  );
}

async function storedAnswers(): Promise<string> {
  return JSON.stringify(await (await db()).getAll('judge-cache'));
}

describe('a gateway echoing the key in its answers, interactive', () => {
  let fake: FakeLlm;
  const rawBodies: string[] = [];
  beforeAll(async () => {
    fake = await startFakeLlm({ inspect: (raw) => rawBodies.push(raw.body) });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    resetLlmState();
    fake.reset();
    rawBodies.length = 0;
    await clearJudgeCache();
  });

  it.each(CONFIGS)(
    '$kind: the cache, the results and the next request bodies hold no key',
    async (config) => {
      const key = config.apiKey!;
      const oracle = oracleHandler(4);
      let echoed = 0;
      fake.setHandler(async (req): Promise<FakeReply> => {
        const reply = await oracle(req);
        const text = JSON.stringify(reply.body);
        const leaky = echo(text, key);
        if (leaky !== text) echoed++;
        return { ...reply, body: JSON.parse(leaky) };
      });
      const judge = createJudge(
        { ...config, baseUrl: fake.url },
        { cache: judgeAnswerCache(), secrets: () => [key, HELD] },
      );
      const results: MetricResult[] = [];
      await runJudgeMetrics(INPUT, {
        metrics: METRICS,
        settings: { ...DEFAULT_JUDGE_SETTINGS, gevalSamples: 2 },
        judge,
        onResult: (r) => results.push(r),
      });

      expect(echoed).toBeGreaterThan(3);
      expect(Object.fromEntries(results.map((r) => [r.id, r.status]))).toEqual(
        Object.fromEntries(METRICS.map((id) => [id, 'ok'])),
      );
      expect(leaks(await storedAnswers(), [key, HELD])).toEqual([]);
      expect(leaks(JSON.stringify(results), [key, HELD])).toEqual([]);
      for (const body of rawBodies) expect(leaks(body, [key, HELD])).toEqual([]);
      // The echoed steps went back out, redacted: the form quotes them.
      expect(rawBodies.some((b) => b.includes(`Read the summary, key ${REDACTED}.`))).toBe(true);
    },
  );
});

describe.each(['openai', 'anthropic', 'gemini'] as const)(
  'a batch results file echoing the key, %s',
  (wire) => {
    let fake: FakeBatch | undefined;
    beforeEach(async () => {
      resetLlmState();
      await clearJudgeCache();
    });

    it('keeps it out of the cache, the results, the failed lines and the next job', async () => {
      const config = CONFIGS.find((c) => c.kind === wire)!;
      const key = config.apiKey!;
      fake = await startFakeBatch({
        wire,
        lineFault: (_i, body) => (JSON.stringify(body).includes('row-1') ? 'error' : undefined),
      });
      const leaky: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        return new Response(echo(await res.text(), key), {
          status: res.status,
          headers: res.headers,
        });
      };
      const rows = [0, 1, 2].map((i) => ({
        ...INPUT,
        summary: `${INPUT.summary} Report row-${i}.`,
      }));
      try {
        const summary = await runBatch<CaseInput, MetricResult[]>({
          config: { ...config, baseUrl: fake.url },
          cache: judgeAnswerCache(),
          jobs: new MemoryBatchJobStore(),
          rows,
          run: async (input, judge) => {
            const results: MetricResult[] = [];
            await runJudgeMetrics(input, {
              metrics: ['alignment'],
              settings: DEFAULT_JUDGE_SETTINGS,
              judge,
              onResult: (r) => results.push(r),
            });
            return results;
          },
          fetch: leaky,
          pollIntervalMs: 1,
        });

        expect(fake.jobs.length).toBe(2);
        expect(summary.failedRequests).toBe(1);
        expect(summary.outputs[1]![0]!.status).toBe('error');
        expect(leaks(await storedAnswers(), [key])).toEqual([]);
        expect(leaks(JSON.stringify(summary.outputs), [key])).toEqual([]);
        expect(leaks(JSON.stringify([...summary.failures]), [key])).toEqual([]);
        // The verdicts job quotes the claims of the first, which came back with the key.
        const verdicts = JSON.stringify(fake.jobs[1]!.bodies);
        expect(verdicts).toContain(REDACTED);
        expect(leaks(verdicts, [key])).toEqual([]);
      } finally {
        await fake.close();
      }
    });
  },
);
