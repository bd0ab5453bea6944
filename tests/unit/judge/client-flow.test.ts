/**
 * The whole judge evaluation through the real client (`createJudge`) and the loopback fake
 * provider, on the OpenAI and Anthropic wires: our zod schemas go through structured outputs /
 * forced tool use, replies come back parsed, a second run with the response cache sends nothing,
 * and no key reaches a recorded request body.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryResponseCache } from '../../../src/lib/llm/cache.ts';
import { createJudge } from '../../../src/lib/llm/client.ts';
import type { JudgeRequest, ProviderConfig } from '../../../src/lib/llm/types.ts';
import { runJudgeMetrics } from '../../../src/lib/metrics/judge/run.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import type { JudgeMetricId, MetricResult } from '../../../src/lib/metrics/types.ts';
import {
  startFakeLlm,
  textReply,
  type FakeLlm,
  type RecordedRequest,
} from '../../helpers/fake-llm.ts';
import { resetCapabilityCache } from '../../../src/lib/llm/capabilities.ts';
import { resetLimiters } from '../../../src/lib/llm/limiter.ts';
import { ScriptedJudge, oracle } from './scripted-judge.ts';

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

// Which SumLens prompt a wire request carries, told from its system text (no cacheKey on the wire).
const SIGNATURES: Array<[RegExp, string]> = [
  [/split a summary into atomic factual claims/u, 'summarization.claims@1'],
  [/check claims against a source document/u, 'summarization.verdicts@1'],
  [/key questions that a good summary/u, 'summarization.questions@1'],
  [/answer questions using the text of a summary/u, 'summarization.answers@1'],
  [/grade answers against reference answers/u, 'summarization.grades@1'],
  [/sentences of a summary for vagueness/u, 'vagueness.sentences@1'],
  [/evaluation procedures/u, 'g-eval.steps@1'],
  [/follows the instructions it was written under/u, 'ccai.adherence@1'],
  [/contains what its instructions ask for/u, 'ccai.completeness@1'],
  [/rate the summary on one criterion|rate it on one criterion/u, 'g-eval.form@1'],
];

function wireMessages(req: RecordedRequest): JudgeRequest['messages'] {
  if (req.wire === 'anthropic') {
    const user = (req.body.messages as Array<{ role: string; content: unknown }>).map((m) => ({
      role: m.role as 'user' | 'assistant',
      content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
    }));
    const system =
      typeof req.body.system === 'string' ? req.body.system : JSON.stringify(req.body.system ?? '');
    return [{ role: 'system', content: system }, ...user];
  }
  return req.body.messages;
}

/** The scripted oracle behind the wire: the fake server answers like a sensible judge. */
function oracleHandler(gevalScore: number) {
  const answer = oracle({ gevalScore });
  const judge = new ScriptedJudge(answer);
  return async (req: RecordedRequest) => {
    const messages = wireMessages(req);
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    const prompt = SIGNATURES.find(([re]) => re.test(system))?.[1];
    if (!prompt) return textReply(req, '7'); // the capability probe
    const count = Number(/Write (\d+) open-ended questions/u.exec(system)?.[1] ?? 0);
    const reply = await answer({ messages, cacheKey: { prompt, count } }, judge);
    const first = Array.isArray(reply) ? reply[0] : reply;
    return textReply(req, typeof first === 'string' ? first : first.text);
  };
}

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
});
