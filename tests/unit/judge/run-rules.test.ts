/** When judge metrics do not apply, the context cut, the run plan and the settings. */
import { describe, expect, it } from 'vitest';
import { defaultJudgeMetrics, planJudgeRun } from '../../../src/lib/metrics/judge/plan.ts';
import { scoredAs } from '../metrics/scored.ts';
import {
  DEFAULT_JUDGE_SETTINGS,
  judgeSettingsSchema,
} from '../../../src/lib/metrics/judge/settings.ts';
import type { CaseInput } from '../../../src/lib/metrics/types.ts';
import {
  LOGPROB_CAPS,
  NO_LOGPROB_CAPS,
  ScriptedJudge,
  blocks,
  oracle,
  promptOf,
} from './scripted-judge.ts';
import { ALL, CASE, SOURCE, SUMMARY, run, settings } from './judge-run-case.ts';

describe('N/A rules', () => {
  it('empty summary or source: every metric n/a, no call', async () => {
    const judge = new ScriptedJudge(oracle());
    const { results } = await run(judge, { source: SOURCE, summary: '  ' });
    expect(results.every((r) => r.status === 'n/a' && /summary is empty/u.test(r.reason!))).toBe(
      true,
    );
    expect(judge.calls).toHaveLength(0);
  });

  it('no claims → alignment and accuracy n/a; all unsupported and neutral → n/a', async () => {
    const base = oracle();
    const judge = new ScriptedJudge((req, j) =>
      promptOf(req) === 'summarization.claims@1' ? '{"claims": []}' : base(req, j),
    );
    const { byId } = await run(judge, CASE, ['alignment', 'ccai-accuracy', 'summarization']);
    expect(byId('alignment').status).toBe('n/a');
    expect(byId('ccai-accuracy').status).toBe('n/a');
    expect(byId('summarization').reason).toMatch(/^No alignment score/u);
    expect(judge.calls.some((c) => c.prompt === 'summarization.verdicts@1')).toBe(false);

    const invented = { source: SOURCE, summary: 'Aliens landed on the bridge.' };
    const { byId: by2 } = await run(
      new ScriptedJudge(oracle()),
      invented,
      ['alignment'],
      settings({ unsupportedCountsAgainst: false }),
    );
    expect(by2('alignment').status).toBe('n/a');
    const { byId: by3 } = await run(new ScriptedJudge(oracle()), invented, ['alignment']);
    expect(by3('alignment').score).toBe(0);
  });

  it('an all-"idk" summary skips the grading round and scores coverage 0', async () => {
    const base = oracle();
    const judge = new ScriptedJudge((req, j) => {
      if (promptOf(req) !== 'summarization.answers@1') return base(req, j);
      const n = (blocks(req).questions ?? '').split('\n').length;
      return JSON.stringify({
        answers: Array.from({ length: n }, (_, i) => ({ question: i + 1, answer: 'idk' })),
      });
    });
    const { byId, summary } = await run(judge, CASE, ['coverage']);
    expect(byId('coverage').score).toBe(0);
    expect(summary.rounds).toBe(2);
    expect(judge.calls.some((c) => c.prompt === 'summarization.grades@1')).toBe(false);
  });

  const instructions = [
    { name: 'Issue', instruction: 'State the customer issue.' },
    { name: 'Outcome', instruction: 'Was it resolved?', categories: ['resolved', 'unresolved'] },
    { name: 'Next steps', instruction: 'List the agreed next steps.' },
  ];

  it('adherence: one rubric question per instruction; categorical asks for one allowed value', async () => {
    const judge = new ScriptedJudge(oracle());
    const { byId } = await run(judge, { ...CASE, instructions }, ['ccai-adherence']);
    const r = scoredAs(byId('ccai-adherence'), 'ccai-adherence');
    expect(r.status).toBe('ok');
    expect(r.score).toBe(1);
    expect(r.details.questions.map((q) => q.categorical)).toEqual([false, true, false]);
    expect(r.details.questions[1].question).toBe(
      'Does the summary return only one of the allowed values for the section "Outcome" (allowed: "resolved", "unresolved")?',
    );
    expect(r.details.questions[0].question).toMatch(
      /follow the instruction for the section "Issue": "State the customer issue\."/u,
    );
    expect(judge.calls).toHaveLength(1);
  });

  it('completeness: non-categorical sections only; empty ones left out; all categorical → n/a', async () => {
    const base = oracle();
    const judge = new ScriptedJudge((req, j) => {
      if (promptOf(req) !== 'ccai.completeness@1') return base(req, j);
      return JSON.stringify({
        instructions: [
          {
            instruction: 1,
            contents: [
              {
                source_content: 'Repairs would cost 4 million euros.',
                summary_content: '',
                is_covered: false,
              },
              {
                source_content: 'The city council voted to close the old bridge on Monday.',
                summary_content: 'The city council voted to close the old bridge on Monday.',
                is_covered: true,
              },
            ],
          },
          { instruction: 2, contents: [] },
        ],
      });
    });
    const { byId } = await run(judge, { ...CASE, instructions }, ['ccai-completeness']);
    const r = scoredAs(byId('ccai-completeness'), 'ccai-completeness');
    expect(r.status).toBe('ok');
    expect(r.score).toBe(0.5);
    expect(r.details.categoricalSkipped).toEqual(['Outcome']);
    expect(r.details.sections.map((s) => [s.section, s.leftOut])).toEqual([
      ['Issue', false],
      ['Next steps', true],
    ]);
    const covered = r.details.sections[0].contents[1];
    expect(SUMMARY.slice(covered.summarySpan!.start, covered.summarySpan!.end)).toBe(
      covered.summaryContent,
    );
    expect(covered.sourceSpan).toEqual({ start: 0, end: covered.sourceContent.length });
    expect(r.explanation).toMatch(
      /1 instruction with nothing in the source left out, 1 categorical section skipped/u,
    );
    // Only the non-categorical instructions were shown to the judge.
    expect(blocks(judge.calls[0].request).instructions).not.toMatch(/Outcome/u);

    const onlyCategorical = [instructions[1]];
    const { byId: by2 } = await run(
      new ScriptedJudge(oracle()),
      { ...CASE, instructions: onlyCategorical },
      ['ccai-completeness', 'ccai-adherence'],
    );
    expect(by2('ccai-completeness').status).toBe('n/a');
    expect(by2('ccai-completeness').reason).toMatch(/every section here is categorical/u);
    expect(by2('ccai-adherence').status).toBe('ok');
  });

  it('completeness with nothing relevant in the source → n/a', async () => {
    const base = oracle();
    const judge = new ScriptedJudge((req, j) =>
      promptOf(req) === 'ccai.completeness@1'
        ? JSON.stringify({
            instructions: [
              { instruction: 1, contents: [] },
              { instruction: 2, contents: [] },
            ],
          })
        : base(req, j),
    );
    const { byId } = await run(judge, { ...CASE, instructions }, ['ccai-completeness']);
    expect(byId('ccai-completeness').status).toBe('n/a');
    expect(byId('ccai-completeness').reason).toMatch(/holds nothing/u);
  });
});
describe('context cut', () => {
  it('cuts the middle of an over-long source once and says so in each result', async () => {
    const long = `${SOURCE} ${'Filler sentence about nothing much. '.repeat(3000)}The last line matters.`;
    const judge = new ScriptedJudge(oracle());
    const { byId } = await run(
      judge,
      { source: long, summary: SUMMARY },
      ['alignment', 'geval-relevance'],
      settings({ contextTokens: 8000, gevalSamples: 1 }),
    );
    const alignment = scoredAs(byId('alignment'), 'alignment');
    expect(alignment.details.context.cut).toBe(true);
    expect(alignment.notes?.join(' ')).toMatch(/cut from the middle/u);
    const sent = blocks(
      judge.calls.find((c) => c.prompt === 'summarization.verdicts@1')!.request,
    ).source;
    expect(sent.startsWith('The city council')).toBe(true);
    expect(sent.endsWith('The last line matters.')).toBe(true);
    expect(sent).toMatch(/\[… \d+ characters cut …\]/u);
    // Spans still point into the ORIGINAL source.
    const c = alignment.details.claims[0];
    expect(long.slice(c.sourceSpan!.start, c.sourceSpan!.end)).toBe(c.claim);
    expect(scoredAs(byId('geval-relevance'), 'geval-relevance').details.context?.cut).toBe(true);
  });
});

describe('planJudgeRun', () => {
  const withInstructions: CaseInput = {
    ...CASE,
    instructions: [
      { name: 'Issue', instruction: 'State the issue.' },
      { name: 'Outcome', instruction: 'Resolved?', categories: ['yes', 'no'] },
    ],
  };

  it('lists the calls per round; the run makes exactly the logical calls planned', async () => {
    const s = settings();
    const plan = planJudgeRun(ALL, withInstructions, s, NO_LOGPROB_CAPS);
    expect(plan.rounds.map((r) => r.round)).toEqual([1, 2, 3]);
    const purposes = (round: number) =>
      plan.rounds.find((r) => r.round === round)!.calls.map((c) => c.purpose);
    expect(purposes(1)).toContain('alignment: extract the summary claims');
    expect(purposes(1)).toContain('adherence: one rubric question per instruction');
    expect(purposes(1).filter((p) => /evaluation steps/u.test(p))).toHaveLength(5);
    expect(purposes(2).filter((p) => /evaluation form/u.test(p))).toHaveLength(5);
    expect(purposes(3)).toEqual(['coverage: grade the summary answers against the source answers']);
    // No `n` support: 20 samples are 20 requests per form.
    const forms = plan.rounds[1].calls.filter((c) => /form/u.test(c.purpose));
    expect(forms.every((c) => c.httpCalls === 20)).toBe(true);
    expect(plan.totalCalls).toBe(plan.logicalCalls - 5 + 5 * 20);
    expect(plan.gevalMethod?.method).toBe('sampling');
    expect(plan.estimatedTokens.total).toBe(
      plan.estimatedTokens.input + plan.estimatedTokens.output,
    );
    const claims = plan.rounds[0].calls.find((c) => c.purpose.startsWith('alignment'))!;
    expect(claims.serves).toEqual(['alignment', 'ccai-accuracy']);
    expect(claims.estimatedInputTokens).toBeGreaterThan(50);

    const judge = new ScriptedJudge(oracle(), { caps: NO_LOGPROB_CAPS });
    await run(judge, withInstructions, ALL, s);
    expect(judge.calls).toHaveLength(plan.logicalCalls);
  });

  it('plans logprobs as one request per form, and says when the model is not probed', () => {
    const withCaps = planJudgeRun(['geval-coherence'], CASE, settings(), LOGPROB_CAPS);
    expect(withCaps.gevalMethod?.method).toBe('logprobs');
    expect(withCaps.totalCalls).toBe(2);
    const unprobed = planJudgeRun(['geval-coherence'], CASE, settings());
    expect(unprobed.totalCalls).toBe(21);
    expect(unprobed.notes.join(' ')).toMatch(/not been probed/u);
    expect(unprobed.noteRefs.map((n) => n.key)).toContain('judgeMetrics.plan.notProbed');
    expect(planJudgeRun(['vagueness'], CASE, settings()).gevalMethod).toBeNull();
  });

  it('plans no calls for metrics that are n/a', () => {
    const plan = planJudgeRun(
      ['ccai-adherence', 'ccai-completeness', 'geval-custom'],
      CASE,
      settings(),
    );
    expect(plan.totalCalls).toBe(0);
    expect(plan.rounds).toEqual([]);
  });
});

describe('settings', () => {
  it('defaults follow the spec and validate', () => {
    expect(judgeSettingsSchema.parse(DEFAULT_JUDGE_SETTINGS)).toEqual(DEFAULT_JUDGE_SETTINGS);
    expect(DEFAULT_JUDGE_SETTINGS).toMatchObject({
      beta: 1,
      unsupportedCountsAgainst: true,
      coverageQuestions: 8,
      gevalSamples: 20,
      gevalCriteria: ['coherence', 'consistency', 'fluency', 'relevance'],
    });
    expect(defaultJudgeMetrics(DEFAULT_JUDGE_SETTINGS)).not.toContain('geval-custom');
  });

  it('rejects multi-digit or inverted custom scales', () => {
    const bad = (scale: [number, number]) =>
      judgeSettingsSchema.safeParse({
        ...DEFAULT_JUDGE_SETTINGS,
        customCriteria: [{ name: 'X', description: 'A long enough description.', scale }],
      }).success;
    expect(bad([1, 10])).toBe(false);
    expect(bad([3, 3])).toBe(false);
    expect(bad([0, 9])).toBe(true);
  });
});
