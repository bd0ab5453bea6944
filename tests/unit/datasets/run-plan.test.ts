/**
 * The plan's arithmetic: requests per row per metric and the run's total, with and without the
 * model's log-probabilities (G-Eval's fallback of n samples is n requests per form, even where the
 * provider takes `n`: a short answer is topped up one request per missing sample), shared calls
 * counted once, and the small default judge set.
 */
import { describe, expect, it } from 'vitest';
import { planBatch } from '../../../src/lib/datasets/batch-plan.ts';
import {
  callsPerMetric,
  defaultJudgeMetrics,
  planJudgeRun,
} from '../../../src/lib/metrics/judge/plan.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import { JUDGE_METRIC_IDS } from '../../../src/lib/metrics/registry.ts';
import type { JudgeMetricId } from '../../../src/lib/metrics/types.ts';
import type { Capabilities } from '../../../src/lib/llm/types.ts';

const INPUT = {
  source:
    'The council closed the old bridge on Monday. Repairs would cost 4 million euros. A ferry carries commuters until 2027.',
  summary: 'The council closed the bridge; a ferry runs until 2027.',
};

const LOGPROBS: Capabilities = {
  logprobs: true,
  maxTopLogprobs: 20,
  n: true,
  jsonSchema: true,
  temperature: 'any',
  source: 'probe',
};
const NO_LOGPROBS: Capabilities = { ...LOGPROBS, logprobs: false, maxTopLogprobs: 0 };
const ROWS = 20;

function batch(metrics: JudgeMetricId[], capabilities: Capabilities | undefined) {
  const plan = planJudgeRun(metrics, INPUT, DEFAULT_JUDGE_SETTINGS, capabilities);
  return planBatch(ROWS, metrics, {
    plan,
    provider: 'openai',
    model: 'gpt-4o-mini',
    capabilities: capabilities ? 'probe' : 'worst-case',
  });
}

describe('the plan counts what will be sent', () => {
  it('G-Eval with logprobs: one request per form per row, the steps once per run', () => {
    const plan = batch(['geval-consistency'], LOGPROBS);
    expect(plan.gevalMethod).toEqual({ method: 'logprobs', samples: 1 });
    expect(plan.perMetric).toEqual([
      expect.objectContaining({
        metric: 'geval-consistency',
        requestsPerRow: 1,
        requestsPerRun: 1,
      }),
    ]);
    expect(plan.llmCalls).toBe(1 + ROWS * 1);
  });

  it('G-Eval without logprobs: the 20-sample fallback is 20 requests per form per row', () => {
    const plan = batch(['geval-consistency'], NO_LOGPROBS);
    expect(plan.gevalMethod).toEqual({ method: 'sampling', samples: 20 });
    expect(plan.perMetric[0]).toMatchObject({ requestsPerRow: 20, requestsPerRun: 1 });
    // The run: 41 planned, 358 sent. Now the plan is the upper bound.
    expect(plan.llmCalls).toBe(1 + ROWS * 20);
    expect(plan.notes.join(' ')).toMatch(/counted as 20 requests/u);
  });

  it('not probed (the probe failed): the costliest fallback, as without logprobs', () => {
    expect(batch(['geval-consistency'], undefined).llmCalls).toBe(1 + ROWS * 20);
  });

  it('the sample count follows the setting', () => {
    const settings = { ...DEFAULT_JUDGE_SETTINGS, gevalSamples: 5 };
    const plan = planJudgeRun(['geval-fluency'], INPUT, settings, NO_LOGPROBS);
    expect(callsPerMetric(plan, ['geval-fluency'])[0]!.requests).toBe(1 + 5);
  });

  it('metrics sharing calls each show them, the total counts them once', () => {
    const metrics: JudgeMetricId[] = ['summarization', 'alignment', 'coverage'];
    const plan = batch(metrics, LOGPROBS);
    const byMetric = Object.fromEntries(plan.perMetric.map((l) => [l.metric, l]));
    expect(byMetric.alignment!.sharesWith).toContain('summarization');
    expect(byMetric.coverage!.sharesWith).toContain('summarization');
    const summarization = byMetric.summarization!.requestsPerRow;
    expect(summarization).toBe(
      byMetric.alignment!.requestsPerRow + byMetric.coverage!.requestsPerRow,
    );
    // The three metrics cost what the summarization card alone costs.
    expect(plan.llmCalls).toBe(batch(['summarization'], LOGPROBS).llmCalls);
  });

  it('prices each metric per row where the model has a price', () => {
    const plan = batch(['vagueness', 'geval-consistency'], NO_LOGPROBS);
    for (const line of plan.perMetric) expect(line.costPerRow).toBeGreaterThan(0);
    const local = planBatch(ROWS, ['vagueness'], {
      plan: planJudgeRun(['vagueness'], INPUT, DEFAULT_JUDGE_SETTINGS, NO_LOGPROBS),
      provider: 'openai-compatible',
      model: 'llama3.1',
    });
    expect(local.perMetric[0]!.costPerRow).toBeUndefined();
    expect(local.costKnown).toBe(false);
  });
});

describe('the default judge set', () => {
  it('is small: the summarization trio (shared calls) and one G-Eval dimension', () => {
    const ids = defaultJudgeMetrics(DEFAULT_JUDGE_SETTINGS);
    expect(ids).toEqual(['summarization', 'alignment', 'coverage', 'geval-consistency']);
    expect(ids.filter((id) => id.startsWith('geval-')).length).toBeLessThanOrEqual(1);
    expect(ids.length).toBeLessThan(JUDGE_METRIC_IDS.length);
    const all = planJudgeRun([...JUDGE_METRIC_IDS], INPUT, DEFAULT_JUDGE_SETTINGS, NO_LOGPROBS);
    const small = planJudgeRun(ids, INPUT, DEFAULT_JUDGE_SETTINGS, NO_LOGPROBS);
    expect(small.totalCalls).toBeLessThan(all.totalCalls / 3);
  });

  it('leaves out a G-Eval criterion switched off in the settings', () => {
    const settings = { ...DEFAULT_JUDGE_SETTINGS, gevalCriteria: ['coherence' as const] };
    expect(defaultJudgeMetrics(settings)).toEqual(['summarization', 'alignment', 'coverage']);
  });
});
