/**
 * The whole judge evaluation through the real client (`createJudge`) and the loopback fake
 * provider, on the OpenAI and Anthropic wires: our zod schemas go through structured outputs /
 * forced tool use, replies come back parsed, a second run with the response cache sends nothing,
 * and no key reaches a recorded request body.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryResponseCache } from '../../../src/lib/llm/cache.ts';
import { createJudge } from '../../../src/lib/llm/client.ts';
import type { ProviderConfig } from '../../../src/lib/llm/types.ts';
import { runJudgeMetrics } from '../../../src/lib/metrics/judge/run.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import type { JudgeMetricId, MetricResult } from '../../../src/lib/metrics/types.ts';
import { startFakeLlm, textReply, type FakeLlm } from '../../helpers/fake-llm.ts';
import { oracleHandler } from '../../helpers/judge-oracle.ts';
import { resetCapabilityCache } from '../../../src/lib/llm/capabilities.ts';
import { resetLimiters } from '../../../src/lib/llm/limiter.ts';

const SOURCE =
  'The city council voted to close the old bridge on Monday. Repairs would cost 4 million euros. ' +
  'Engineers found cracks in two pillars last year. A ferry will carry commuters until a new bridge ' +
  'opens in 2027. Local shops fear losing customers.';
const SUMMARY =
  'The city council voted to close the old bridge on Monday. A ferry will carry commuters until a new ' +
  'bridge opens in 2027. The article discusses the reactions of shop owners.';
const INPUT = {
  source: SOURCE,
  summary: SUMMARY,
  instructions: [
    { name: 'Decision', instruction: 'State what was decided.' },
    { name: 'Mood', instruction: 'Overall mood.', categories: ['calm', 'worried'] },
  ],
};
const METRICS: JudgeMetricId[] = [
  'summarization',
  'alignment',
  'coverage',
  'vagueness',
  'repetitiveness',
  'geval-coherence',
  'geval-fluency',
  'ccai-accuracy',
  'ccai-adherence',
  'ccai-completeness',
];

describe('the judge metrics over the real client and the fake provider', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    resetCapabilityCache();
    resetLimiters();
    fake.reset();
    fake.setHandler(oracleHandler(4));
  });

  const configs: ProviderConfig[] = [
    { kind: 'openai', model: 'gpt-4.1-mini', apiKey: 'sk-test-flow-openai' },
    { kind: 'anthropic', model: 'claude-haiku-4-5', apiKey: 'sk-ant-test-flow' },
    { kind: 'gemini', model: 'gemini-2.0-flash', apiKey: 'AIza-test-flow-gemini' },
    { kind: 'openai-compatible', model: 'llama3.1', apiKey: 'sk-local-server-token' },
  ];

  it.each(configs)('$kind: every metric scores, and a second run sends nothing', async (config) => {
    const cache = new MemoryResponseCache();
    const judge = createJudge({ ...config, baseUrl: fake.url }, { cache });
    const settings = { ...DEFAULT_JUDGE_SETTINGS, gevalSamples: 3, fluencyScale: '1-5' as const };
    const results: MetricResult[] = [];
    const first = await runJudgeMetrics(INPUT, {
      metrics: METRICS,
      settings,
      judge,
      onResult: (r) => results.push(r),
    });
    const errors = results.filter((r) => r.status !== 'ok').map((r) => `${r.id}: ${r.reason}`);
    expect(errors).toEqual([]);
    const byId = (id: JudgeMetricId) => results.find((r) => r.id === id)!;
    expect(byId('alignment').score).toBeCloseTo(2 / 3, 12);
    expect(byId('summarization').score).toBeCloseTo(0.5, 12);
    expect(byId('ccai-adherence').score).toBe(1);
    expect(byId('geval-coherence').score).toBe(4);
    expect(byId('geval-coherence').backend).toMatch(
      new RegExp(`^judge:${config.kind}/${config.model} \\((logprobs|sampling)\\)$`, 'u'),
    );
    expect(first.rounds).toBe(3);
    expect(first.httpCalls).toBeGreaterThan(0);

    const sent = fake.requests.length;
    const again: MetricResult[] = [];
    const second = await runJudgeMetrics(INPUT, {
      metrics: METRICS,
      settings,
      judge,
      onResult: (r) => again.push(r),
    });
    expect(fake.requests.length).toBe(sent);
    expect(second.httpCalls).toBe(0);
    expect(again.map((r) => [r.id, r.score])).toEqual(results.map((r) => [r.id, r.score]));

    // Keys travel in headers (redacted in the recording), never in a body.
    for (const r of fake.requests) expect(JSON.stringify(r.body)).not.toContain(config.apiKey!);
  });

  it('a reply no metric can use is never cached: once the provider recovers it is asked again', async () => {
    const cache = new MemoryResponseCache();
    const judge = createJudge(
      { kind: 'openai', model: 'gpt-4.1-mini', apiKey: 'sk-test-flow-openai', baseUrl: fake.url },
      { cache },
    );
    const settings = { ...DEFAULT_JUDGE_SETTINGS, gevalMethod: 'greedy' as const };
    const oracle = oracleHandler(4);
    let broken = true;
    // While broken: the G-Eval form gets prose with no score, the vagueness verdicts come back
    // for one sentence of three (valid JSON, incomplete list).
    fake.setHandler(async (req) => {
      const text = JSON.stringify(req.body);
      const form =
        !/evaluation procedures/u.test(text) &&
        /rate the summary on one criterion|rate it on one criterion/u.test(text);
      if (broken && form) {
        return textReply(req, 'The summary is rather good, all in all.');
      }
      if (broken && /sentences of a summary for vagueness/u.test(text)) {
        return textReply(
          req,
          JSON.stringify({ sentences: [{ index: 1, vague: false, reason: 'ok' }] }),
        );
      }
      return oracle(req);
    });
    const run = async () => {
      const results: MetricResult[] = [];
      const summary = await runJudgeMetrics(INPUT, {
        metrics: ['geval-coherence', 'vagueness'],
        settings,
        judge,
        onResult: (r) => results.push(r),
      });
      return { results, summary };
    };
    const first = await run();
    expect(first.results.map((r) => r.status)).toEqual(['error', 'error']);
    expect(first.summary.failures.map((f) => f.kind).sort()).toEqual([
      'malformed-output',
      'malformed-output',
    ]);
    expect(first.results.find((r) => r.id === 'geval-coherence')!.reason).toMatch(
      /gives no score from 1 to 5/u,
    );

    broken = false;
    const sent = fake.requests.length;
    const second = await run();
    expect(second.results.every((r) => r.status === 'ok')).toBe(true);
    // Both unusable replies were asked again (the G-Eval steps came from the cache).
    const asked = fake.requests.slice(sent).map((r) => JSON.stringify(r.body));
    expect(asked.some((t) => /one criterion/u.test(t))).toBe(true);
    expect(asked.some((t) => /for vagueness/u.test(t))).toBe(true);
    expect(asked.some((t) => /evaluation procedures/u.test(t))).toBe(false);
  });
});
