/**
 * A G-Eval criterion name over 80 characters (issue 27): its field refuses it as it is typed,
 * with the limit; one that got in anyway (older settings in localStorage, an imported run) stops
 * G-Eval custom alone, never the other LLM metrics, and never costs the other settings.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runJudgeMetrics } from '../../../src/lib/metrics/judge/run.ts';
import { planJudgeRun } from '../../../src/lib/metrics/judge/plan.ts';
import {
  CRITERION_NAME_MAX,
  DEFAULT_JUDGE_SETTINGS,
  withJudgeDefaults,
  type JudgeSettings,
} from '../../../src/lib/metrics/judge/settings.ts';
import type { JudgeMetricId, MetricResult } from '../../../src/lib/metrics/types.ts';
import { JUDGE_PREFS_KEY, JudgeSession } from '../../../src/lib/state/judge.svelte.ts';
import {
  judgeSettingsProblems,
  newCriterionProblems,
} from '../../../src/lib/state/settings-problems.ts';
import { ScriptedJudge, oracle } from '../judge/scripted-judge.ts';

const LONG = 'A'.repeat(CRITERION_NAME_MAX + 1);
const DESCRIPTION = 'How polite the summary sounds to a customer.';

const withLongName = (patch: Partial<JudgeSettings> = {}): JudgeSettings => ({
  ...structuredClone(DEFAULT_JUDGE_SETTINGS),
  customCriteria: [{ name: LONG, description: DESCRIPTION, scale: [1, 5] }],
  ...patch,
});

describe('a criterion being typed in', () => {
  it('refuses a name over 80 characters at its own field, saying the limit', () => {
    expect(
      newCriterionProblems({ name: 'A'.repeat(80), description: DESCRIPTION, scale: [1, 5] }),
    ).toEqual([]);
    const problems = newCriterionProblems({ name: LONG, description: DESCRIPTION, scale: [1, 5] });
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ['name', 'Name must be at most 80 characters.'],
    ]);
    expect(problems[0]?.messageRef.key).toBe('settings.problem.tooLong');
  });

  it('says each other field in words too', () => {
    const problems = newCriterionProblems({ name: ' ', description: 'short', scale: [5, 2] });
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ['name', 'Name must be filled in.'],
      ['description', 'What to rate must be at least 10 characters.'],
      ['scale', 'Scale must have its min below its max.'],
    ]);
  });
});

describe('a criterion name over 80 characters in the settings', () => {
  afterEach(() => {
    globalThis.localStorage?.removeItem(JUDGE_PREFS_KEY);
  });

  it('is a problem of that criterion that stops G-Eval custom only', () => {
    const [problem, ...more] = judgeSettingsProblems(withLongName());
    expect(more).toEqual([]);
    expect(problem).toMatchObject({
      path: 'customCriteria.0.name',
      message: 'Name of your G-Eval criterion 1 must be at most 80 characters.',
      metrics: ['geval-custom'],
    });
  });

  it('leaves the judge able to run, and a data-set run without G-Eval custom able to start', () => {
    const judge = new JudgeSession();
    judge.provider.kind = 'openai-compatible';
    judge.provider.baseUrl = 'http://127.0.0.1:11434/v1';
    judge.settings = withLongName();
    expect(judge.problemRefs()).toEqual([]);
    expect(judge.settingsProblems.map((p) => p.path)).toEqual(['customCriteria.0.name']);
    expect(judge.runProblemRefs(['alignment', 'geval-coherence'])).toEqual([]);
    expect(judge.runProblemRefs(['alignment', 'geval-custom']).map((r) => r.key)).toEqual([
      'settings.problem.tooLong',
    ]);
  });

  it('stored by an older version, keeps the other settings and blocks nothing else', () => {
    const stored = { ...withLongName(), beta: 2, coverageQuestions: 5 };
    const loaded = withJudgeDefaults(stored);
    expect(loaded.beta).toBe(2);
    expect(loaded.coverageQuestions).toBe(5);
    expect(loaded.customCriteria).toEqual(stored.customCriteria);
    expect(judgeSettingsProblems(loaded).flatMap((p) => p.metrics)).toEqual(['geval-custom']);
  });

  it('in a run (an imported one too), fails G-Eval custom with the reason; the others score', async () => {
    const metrics: JudgeMetricId[] = ['alignment', 'vagueness', 'geval-coherence', 'geval-custom'];
    const judge = new ScriptedJudge(oracle());
    const results: MetricResult[] = [];
    await runJudgeMetrics(
      {
        source: 'The council closed the old bridge on Monday. A ferry runs until 2027.',
        summary: 'The council closed the bridge. A ferry runs until 2027.',
      },
      {
        metrics,
        settings: withLongName({ gevalSamples: 1 }),
        judge,
        onResult: (r) => results.push(r),
      },
    );
    const status = Object.fromEntries(results.map((r) => [r.id, r.status]));
    expect(status).toEqual({
      alignment: 'ok',
      vagueness: 'ok',
      'geval-coherence': 'ok',
      'geval-custom': 'error',
    });
    expect(results.find((r) => r.id === 'geval-custom')?.reason).toBe(
      'Not scored: Name of your G-Eval criterion 1 must be at most 80 characters. Fix it under "LLM metrics".',
    );
    // No call was made for the criterion, and none is planned for it.
    expect(judge.calls.some((c) => c.request.messages.some((m) => m.content.includes(LONG)))).toBe(
      false,
    );
    const plan = planJudgeRun(
      ['geval-custom'],
      { source: 'a b c.', summary: 'a b.' },
      withLongName(),
    );
    expect(plan.totalCalls).toBe(0);
  });
});
