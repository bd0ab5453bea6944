import { describe, expect, it } from 'vitest';
import { runJudgeMetrics, type JudgeProgress } from '../../../src/lib/metrics/judge/run.ts';
import { defaultJudgeMetrics, planJudgeRun } from '../../../src/lib/metrics/judge/plan.ts';
import { scoredAs } from '../metrics/scored.ts';
import { loadWords } from '../../../src/lib/datasets/export/words.ts';
import {
  DEFAULT_JUDGE_SETTINGS,
  judgeSettingsSchema,
  type JudgeSettings,
} from '../../../src/lib/metrics/judge/settings.ts';
import { canonicalJson } from '../../../src/lib/llm/cache.ts';
import type { TokenLogprob } from '../../../src/lib/llm/types.ts';
import type { CaseInput, JudgeMetricId, MetricResult } from '../../../src/lib/metrics/types.ts';
import {
  LOGPROB_CAPS,
  NO_LOGPROB_CAPS,
  ScriptedJudge,
  blocks,
  formReply,
  oracle,
  promptOf,
  type Responder,
} from './scripted-judge.ts';

const SOURCE =
  'The city council voted to close the old bridge on Monday. Repairs would cost 4 million euros. ' +
  'Engineers found cracks in two pillars last year. A ferry will carry commuters until a new bridge ' +
  'opens in 2027. Local shops fear losing customers.';
const SUMMARY =
  'The city council voted to close the old bridge on Monday. A ferry will carry commuters until a new ' +
  'bridge opens in 2027. The article discusses the reactions of shop owners.';
const CASE: CaseInput = { source: SOURCE, summary: SUMMARY };

const ALL: JudgeMetricId[] = [
  'summarization',
  'alignment',
  'coverage',
  'vagueness',
  'repetitiveness',
  'geval-coherence',
  'geval-consistency',
  'geval-fluency',
  'geval-relevance',
  'geval-custom',
  'ccai-accuracy',
  'ccai-adherence',
  'ccai-completeness',
];

function settings(patch: Partial<JudgeSettings> = {}): JudgeSettings {
  return judgeSettingsSchema.parse({ ...DEFAULT_JUDGE_SETTINGS, ...patch });
}

async function run(
  judge: ScriptedJudge,
  input: CaseInput = CASE,
  metrics: JudgeMetricId[] = ALL,
  s: JudgeSettings = settings(),
  extra: { signal?: AbortSignal; onProgress?: (p: JudgeProgress) => void } = {},
) {
  const results: MetricResult[] = [];
  const summary = await runJudgeMetrics(input, {
    metrics,
    settings: s,
    judge,
    onResult: (r) => results.push(r),
    ...extra,
  });
  const byId = (id: JudgeMetricId) => {
    const r = results.find((x) => x.id === id);
    if (!r) throw new Error(`no result for ${id}`);
    return r;
  };
  return { results, summary, byId };
}

const ru = await loadWords('ru');

describe('runJudgeMetrics: a full evaluation', () => {
  it('scores every metric in at most 3 sequential rounds, with auditable details', async () => {
    const judge = new ScriptedJudge(oracle(), { caps: NO_LOGPROB_CAPS });
    const progress: JudgeProgress[] = [];
    const { results, summary, byId } = await run(judge, CASE, ALL, settings(), {
      onProgress: (p) => progress.push(p),
    });

    // Rounds: the recorded call order has depth 3, the run says 3, progress went 1 → 2 → 3.
    expect(judge.sequentialDepth()).toBe(3);
    expect(summary.rounds).toBe(3);
    expect([...new Set(progress.map((p) => p.round))]).toEqual([1, 2, 3]);
    for (const round of [1, 2, 3]) {
      const last = progress.filter((p) => p.round === round).at(-1)!;
      expect(last.done).toBe(last.total);
    }

    // One claims extraction and ONE verdict call, shared by alignment, accuracy and the F1 card.
    expect(judge.calls.filter((c) => c.prompt === 'summarization.claims@1')).toHaveLength(1);
    expect(judge.calls.filter((c) => c.prompt === 'summarization.verdicts@1')).toHaveLength(1);
    expect(summary.calls).toBe(judge.calls.length);
    expect(summary.httpCalls).toBe(judge.httpCalls);
    expect(summary.usage.input).toBeGreaterThan(0);

    const alignment = scoredAs(byId('alignment'), 'alignment');
    expect(alignment.status).toBe('ok');
    expect(alignment.score).toBeCloseTo(2 / 3, 12);
    expect(alignment.backend).toBe('judge:openai/scripted-1');
    expect(alignment.details.claims.map((c) => c.verdict)).toEqual([
      'supported',
      'supported',
      'unsupported',
    ]);
    const first = alignment.details.claims[0];
    expect(SOURCE.slice(first.sourceSpan!.start, first.sourceSpan!.end)).toBe(first.claim);
    expect(alignment.details.claims[2].sourceSpan).toBeNull();
    expect(alignment.details.audit.calls.map((c) => [c.round, c.purpose])).toEqual([
      [1, 'alignment: extract the summary claims'],
      [2, 'alignment: judge every claim against the full source'],
    ]);
    const verdictCall = alignment.details.audit.calls[1];
    expect(verdictCall.messages[1].content).toContain(SOURCE);
    expect(verdictCall.responses[0]).toMatch(/"verdicts"/u);
    expect(verdictCall.fromCache).toBe(false);

    // Coverage: 5 source sentences → 5 questions (importance 1..5); the summary answers 1–3.
    const coverage = scoredAs(byId('coverage'), 'coverage');
    expect(coverage.details.questions.map((q) => q.importance)).toEqual([1, 2, 3, 4, 5]);
    expect(coverage.details.questions.map((q) => q.idk)).toEqual([false, false, false, true, true]);
    expect(coverage.details.questions.map((q) => q.grade)).toEqual([5, 5, 5, 0, 0]);
    expect(coverage.score).toBeCloseTo((1 + 2 + 3) / 15, 12);
    const q1 = coverage.details.questions[0];
    expect(SOURCE.slice(q1.sourceSpan!.start, q1.sourceSpan!.end)).toBe(q1.sourceAnswer);

    const card = scoredAs(byId('summarization'), 'summarization');
    // F1 of 2/3 and 0.4 = 2·(4/15) / (16/15) = 0.5; min = 0.4.
    expect(card.score).toBeCloseTo(0.5, 12);
    expect(card.details.min).toBeCloseTo(0.4, 12);
    expect(card.details.claims).toHaveLength(3);
    expect(card.details.questions).toHaveLength(5);
    expect(card.explanation).toMatch(/^F1 of alignment 0\.67 and coverage 0\.40 is 0\.50/u);

    const vagueness = scoredAs(byId('vagueness'), 'vagueness');
    expect(vagueness.score).toBeCloseTo(2 / 3, 12);
    const vague = vagueness.details.sentences.find((s) => s.vague)!;
    expect(SUMMARY.slice(vague.start, vague.end)).toBe(
      'The article discusses the reactions of shop owners.',
    );

    const accuracy = scoredAs(byId('ccai-accuracy'), 'ccai-accuracy');
    expect(accuracy.score).toBeCloseTo(2 / 3, 12);
    expect(accuracy.details.reusesAlignment).toBe(true);
    expect(accuracy.details.points.map((p) => p.isAccurate)).toEqual([true, true, false]);

    // G-Eval without logprobs: 20 samples at temperature 1 (paper: n = 20, temperature 1).
    const coherence = scoredAs(byId('geval-coherence'), 'geval-coherence');
    expect(coherence.status).toBe('ok');
    expect(coherence.score).toBe(4);
    expect(coherence.backend).toBe('judge:openai/scripted-1 (sampling)');
    expect(coherence.details).toMatchObject({
      method: 'sampling',
      std: 0,
      scale: [1, 5],
      allowedScores: [1, 2, 3, 4, 5],
    });
    // The criterion is named in the reader's language, on the card and in its explanation.
    expect(coherence.details.criterion).toBe('Coherence');
    expect(ru(coherence.details.criterionRef!.key)).toBe('Связность');
    expect(ru(coherence.explanationRef!.key, coherence.explanationRef!.values)).toMatch(
      /^Судья оценивает Связность/u,
    );
    expect(coherence.details.rawReplies).toHaveLength(20);
    expect(coherence.details.steps).toEqual([
      'Read the source.',
      'Read the summary.',
      'Pick the score.',
    ]);
    const form = judge.calls.find((c) => c.prompt === 'g-eval.form@1')!;
    expect(form.request).toMatchObject({ n: 20, temperature: 1 });
    const fluency = byId('geval-fluency');
    expect(fluency.details).toMatchObject({ scale: [1, 3] });
    // The oracle's "Final score: 4" is outside fluency's 1–3 scale: an error for fluency only.
    expect(fluency.status).toBe('error');
    expect(fluency.reason).toMatch(/None of the 20 sampled replies gives a score from 1 to 3/u);

    // No instructions and no custom criteria: n/a without a call.
    expect(byId('ccai-adherence').status).toBe('n/a');
    expect(byId('ccai-completeness').status).toBe('n/a');
    expect(byId('geval-custom').status).toBe('n/a');
    expect(judge.calls.some((c) => c.prompt.startsWith('ccai.'))).toBe(false);

    expect(results.map((r) => r.id).sort()).toEqual([...ALL].sort());
  });

  it('reports a result as soon as its metric is done (vagueness before round 2 starts)', async () => {
    const judge = new ScriptedJudge(oracle());
    const timeline: string[] = [];
    await runJudgeMetrics(CASE, {
      metrics: ['vagueness', 'coverage'],
      settings: settings(),
      judge,
      onResult: (r) => timeline.push(`result:${r.id}`),
      onProgress: (p) => timeline.push(`round:${p.round}`),
    });
    expect(timeline.indexOf('result:vagueness')).toBeLessThan(timeline.indexOf('round:2'));
    expect(timeline.at(-1)).toBe('result:coverage');
  });

  it('a summary identical to its source scores alignment 1.0', async () => {
    const judge = new ScriptedJudge(oracle());
    const { byId } = await run(judge, { source: SOURCE, summary: SOURCE }, [
      'alignment',
      'ccai-accuracy',
    ]);
    const alignment = scoredAs(byId('alignment'), 'alignment');
    expect(alignment.score).toBe(1);
    expect(alignment.details.claims).toHaveLength(5);
    for (const c of alignment.details.claims) {
      expect(c.verdict).toBe('supported');
      expect(SOURCE.slice(c.sourceSpan!.start, c.sourceSpan!.end)).toBe(c.claim);
    }
    expect(byId('ccai-accuracy').score).toBe(1);
  });

  it('beta and the unsupported switch change the math, not the calls', async () => {
    const judge = new ScriptedJudge(oracle());
    const s = settings({ beta: 0.5, unsupportedCountsAgainst: false });
    const { byId } = await run(judge, CASE, ['summarization', 'ccai-accuracy'], s);
    const card = scoredAs(byId('summarization'), 'summarization');
    // Unsupported neutral: alignment 2/2 = 1; coverage 0.4; F0.5 = 1.25·0.4 / (0.25 + 0.4).
    expect(card.details.alignment).toBe(1);
    expect(card.score).toBeCloseTo(0.5 / 0.65, 12);
    expect(card.explanation).toMatch(/^F-beta \(β = 0\.5\)/u);
    const accuracy = scoredAs(byId('ccai-accuracy'), 'ccai-accuracy');
    expect(accuracy.details.points.map((p) => p.isAccurate)).toEqual([true, true, null]);
    expect(accuracy.score).toBe(1);
  });
});

describe('cache keys', () => {
  async function keys(s: JudgeSettings, input: CaseInput = CASE): Promise<Map<string, string>> {
    const judge = new ScriptedJudge(oracle(), { cache: false });
    await run(judge, input, ALL, s);
    const out = new Map<string, string>();
    for (const c of judge.calls) {
      const id = `${c.prompt}|${(c.request.cacheKey as { criterion?: { name: string } }).criterion?.name ?? ''}`;
      out.set(id, canonicalJson(c.request.cacheKey));
    }
    return out;
  }

  it('same inputs → same keys; settings that matter → different keys; beta → none', async () => {
    const a = await keys(settings());
    const b = await keys(settings());
    expect([...a.entries()]).toEqual([...b.entries()]);

    const fewer = await keys(settings({ coverageQuestions: 5 }));
    expect(fewer.get('summarization.questions@1|')).not.toBe(a.get('summarization.questions@1|'));
    expect(fewer.get('summarization.claims@1|')).toBe(a.get('summarization.claims@1|'));

    const oneSample = await keys(settings({ gevalSamples: 1 }));
    expect(oneSample.get('g-eval.form@1|Coherence')).not.toBe(a.get('g-eval.form@1|Coherence'));
    expect(oneSample.get('g-eval.steps@1|Coherence')).toBe(a.get('g-eval.steps@1|Coherence'));

    const beta = await keys(settings({ beta: 2, unsupportedCountsAgainst: false }));
    expect([...beta.entries()]).toEqual([...a.entries()]);

    const small = await keys(settings({ contextTokens: 6600 }), {
      source: SOURCE.repeat(40),
      summary: SUMMARY,
    });
    const big = await keys(settings(), { source: SOURCE.repeat(40), summary: SUMMARY });
    expect(small.get('summarization.verdicts@1|')).not.toBe(big.get('summarization.verdicts@1|'));
  });

  it('keys hold the logical inputs only: no API key, no nonce, no messages', async () => {
    const a = await keys(settings());
    for (const key of a.values()) {
      expect(key).not.toMatch(/s_[0-9a-f]{6}/u);
      expect(key).not.toMatch(/apiKey|sk-|"messages"/u);
      expect(JSON.parse(key).prompt).toMatch(/@\d+$/u);
    }
  });

  it('scoring the same case again costs zero calls; G-Eval steps are shared across cases', async () => {
    const judge = new ScriptedJudge(oracle());
    const first = await run(judge);
    const live = judge.httpCalls;
    expect(live).toBeGreaterThan(0);
    const second = await run(judge);
    expect(judge.httpCalls).toBe(live);
    expect(second.summary.httpCalls).toBe(0);
    expect(second.summary.cachedCalls).toBe(second.summary.calls);
    expect(second.results.map((r) => [r.id, r.score])).toEqual(
      first.results.map((r) => [r.id, r.score]),
    );
    const coherence = scoredAs(second.byId('geval-coherence'), 'geval-coherence');
    expect(coherence.details.audit.calls.every((c) => c.fromCache && c.httpCalls === 0)).toBe(true);

    // Another case: new claims, but the evaluation steps come from the cache.
    const before = judge.calls.length;
    await run(judge, { source: SOURCE, summary: 'Repairs would cost 4 million euros.' }, [
      'geval-coherence',
    ]);
    const steps = judge.calls.slice(before).find((c) => c.prompt === 'g-eval.steps@1')!;
    expect(steps.fromCache).toBe(true);
  });
});

describe('failures stay with their metric', () => {
  function breaking(prompt: string, reply: string): Responder {
    const base = oracle();
    return (req, judge) => (promptOf(req) === prompt ? reply : base(req, judge));
  }

  it('a malformed verdict reply errors alignment, accuracy and the F1 card only', async () => {
    const judge = new ScriptedJudge(breaking('summarization.verdicts@1', '{"verdicts": [oops'));
    const { byId } = await run(judge);
    for (const id of ['alignment', 'ccai-accuracy', 'summarization'] as const) {
      expect(byId(id).status).toBe('error');
      expect(byId(id).score).toBeNull();
    }
    expect(byId('alignment').reason).toMatch(/not JSON.*\(alignment: judge every claim/u);
    expect(byId('summarization').reason).toMatch(/^Alignment failed:/u);
    expect(byId('coverage').status).toBe('ok');
    expect(byId('vagueness').status).toBe('ok');
    expect(byId('geval-coherence').status).toBe('ok');
    // The claims the judge did extract stay in the details for the audit.
    // An error result's details are untyped: check the audit's last call through its shape.
    const audit = byId('alignment').details;
    expect(audit).toMatchObject({ audit: { calls: expect.any(Array) } });
    expect(JSON.stringify(audit)).toMatch(/"error":"[^"]*not JSON/u);
  });

  it('a truncated verdict list (fewer verdicts than claims) is an error, not a crash', async () => {
    const reply = JSON.stringify({
      verdicts: [{ claim: 1, verdict: 'supported', reason: 'r', quote: '' }],
    });
    const judge = new ScriptedJudge(breaking('summarization.verdicts@1', reply));
    const { byId } = await run(judge, CASE, ['alignment', 'vagueness']);
    expect(byId('alignment').reason).toMatch(/answered 1 of the 3 claims/u);
    expect(byId('vagueness').status).toBe('ok');
  });

  it('a failed round-1 call stops only its pipeline (coverage questions)', async () => {
    const judge = new ScriptedJudge(breaking('summarization.questions@1', '{"questions": []}'));
    const { byId } = await run(judge);
    expect(byId('coverage').status).toBe('error');
    expect(byId('coverage').reason).toMatch(/no key questions/u);
    // The page words the reason in the reader's language from its ref, nested in the card's.
    expect(byId('coverage').reasonRef?.values?.error).toEqual({
      key: 'judgeMetrics.coverage.noQuestions',
    });
    expect(byId('summarization').status).toBe('error');
    expect(byId('summarization').reasonRef?.key).toBe('judgeMetrics.summarization.coverageFailed');
    expect(judge.calls.some((c) => c.prompt === 'summarization.answers@1')).toBe(false);
    expect(byId('alignment').status).toBe('ok');
  });

  it('a form reply without a score errors that criterion only', async () => {
    const base = oracle();
    const judge = new ScriptedJudge(
      (req, j) =>
        promptOf(req) === 'g-eval.form@1' && /Coherence/u.test(req.messages[0].content)
          ? 'It is fine.'
          : base(req, j),
      { caps: NO_LOGPROB_CAPS },
    );
    const { byId } = await run(
      judge,
      CASE,
      ['geval-coherence', 'geval-relevance'],
      settings({ gevalSamples: 1 }),
    );
    expect(byId('geval-coherence').status).toBe('error');
    expect(byId('geval-coherence').reason).toMatch(/gives no score from 1 to 5 for Coherence/u);
    const reasonRef = byId('geval-coherence').reasonRef!;
    expect(ru(reasonRef.key, reasonRef.values)).toContain('Связность');
    expect(byId('geval-relevance').status).toBe('ok');
  });
});

describe('cancel', () => {
  it('stops everything: the run rejects, later rounds never start', async () => {
    const controller = new AbortController();
    const judge = new ScriptedJudge(oracle());
    const results: MetricResult[] = [];
    const promise = runJudgeMetrics(CASE, {
      metrics: ALL,
      settings: settings(),
      judge,
      signal: controller.signal,
      onResult: (r) => results.push(r),
      onProgress: (p) => {
        if (p.round === 2 && p.done === 0) controller.abort();
      },
    });
    await expect(promise).rejects.toMatchObject({ name: 'AbortError' });
    expect(judge.calls.some((c) => c.prompt === 'summarization.grades@1')).toBe(false);
    // Every call got the signal.
    expect(judge.calls.every((c) => c.request.signal === controller.signal)).toBe(true);
    // Nothing cancelled was reported as an error.
    expect(results.every((r) => r.status !== 'error')).toBe(true);
  });

  it('an already aborted signal makes no call', async () => {
    const judge = new ScriptedJudge(oracle());
    const controller = new AbortController();
    controller.abort();
    await expect(
      run(judge, CASE, ALL, settings(), { signal: controller.signal }),
    ).rejects.toThrow();
    expect(judge.calls).toHaveLength(0);
  });
});

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

/** A reply "Final score: 4" whose score token carries the given alternatives. */
function logprobReply(top: Array<[string, number]>): { text: string; logprobs: TokenLogprob[] } {
  return {
    text: 'Well organised.\nFinal score: 4',
    logprobs: [
      { token: 'Well', logprob: -0.1, top: [] },
      { token: ' organised', logprob: -0.1, top: [] },
      { token: '.\n', logprob: -0.1, top: [] },
      { token: 'Final', logprob: -0.1, top: [] },
      { token: ' score', logprob: -0.1, top: [] },
      { token: ':', logprob: -0.1, top: [] },
      {
        token: ' 4',
        logprob: Math.log(0.5),
        top: top.map(([token, logprob]) => ({ token, logprob })),
      },
    ],
  };
}

describe('G-Eval methods', () => {
  it('logprobs when the model returns them: top 20 at temperature 0, weighted score', async () => {
    const base = oracle();
    const judge = new ScriptedJudge(
      (req, j) =>
        promptOf(req) === 'g-eval.form@1'
          ? logprobReply([
              [' 4', Math.log(0.5)],
              [' 5', Math.log(0.3)],
              [' 3', Math.log(0.2)],
            ])
          : base(req, j),
      { caps: LOGPROB_CAPS },
    );
    const { byId } = await run(judge, CASE, ['geval-coherence']);
    const r = scoredAs(byId('geval-coherence'), 'geval-coherence');
    expect(r.score).toBeCloseTo(0.5 * 4 + 0.3 * 5 + 0.2 * 3, 12);
    expect(r.raw).toBeCloseTo(4.1, 12);
    expect(r.backend).toBe('judge:openai/scripted-1 (logprobs)');
    expect(r.details.method).toBe('logprobs');
    expect(r.details.coveredMass).toBeCloseTo(1, 12);
    expect(r.details.scoreTokenTop).toHaveLength(3);
    const form = judge.calls.find((c) => c.prompt === 'g-eval.form@1')!.request;
    expect(form).toMatchObject({ topLogprobs: 20, temperature: 0 });
    expect(form.n).toBeUndefined();
    expect(r.explanation).toMatch(
      /4\.10 on its 1–5 scale \(weighted by the score token’s probabilities/u,
    );
  });

  it('logprobs asked but none came back: greedy on the stated score, with a note', async () => {
    const judge = new ScriptedJudge(oracle({ gevalScore: 5 }), { caps: LOGPROB_CAPS });
    const { byId } = await run(judge, CASE, ['geval-relevance']);
    const r = scoredAs(byId('geval-relevance'), 'geval-relevance');
    expect(r.score).toBe(5);
    expect(r.details.method).toBe('greedy');
    expect(r.notes?.join(' ')).toMatch(/No usable score-token probabilities/u);
  });

  it('one sample configured → one greedy reply at temperature 0', async () => {
    const judge = new ScriptedJudge(oracle({ gevalScore: 2 }), { caps: NO_LOGPROB_CAPS });
    const { byId } = await run(judge, CASE, ['geval-consistency'], settings({ gevalSamples: 1 }));
    const r = scoredAs(byId('geval-consistency'), 'geval-consistency');
    expect(r).toMatchObject({ score: 2, backend: 'judge:openai/scripted-1 (greedy)' });
    expect(judge.calls.find((c) => c.prompt === 'g-eval.form@1')!.request).toMatchObject({
      temperature: 0,
    });
  });

  it('sampling: empirical distribution, mean and spread', async () => {
    const base = oracle();
    const judge = new ScriptedJudge(
      (req, j) =>
        promptOf(req) === 'g-eval.form@1'
          ? [formReply(3), formReply(5), formReply(4), formReply(4)]
          : base(req, j),
      { caps: NO_LOGPROB_CAPS },
    );
    const { byId } = await run(judge, CASE, ['geval-coherence'], settings({ gevalSamples: 4 }));
    const r = scoredAs(byId('geval-coherence'), 'geval-coherence');
    expect(r.score).toBe(4);
    expect(r.details.std).toBeCloseTo(Math.sqrt(0.5), 12);
    expect(r.details.samples).toEqual([3, 5, 4, 4]);
    expect(r.details.distribution).toEqual([
      { score: 1, p: 0 },
      { score: 2, p: 0 },
      { score: 3, p: 0.25 },
      { score: 4, p: 0.5 },
      { score: 5, p: 0.25 },
    ]);
  });

  it('custom criteria: one geval-custom result each, scored on [0, 1] with details.criterion', async () => {
    const s = settings({
      customCriteria: [
        {
          name: 'Politeness',
          description: 'How polite the summary sounds to a customer.',
          scale: [0, 3],
        },
        {
          name: 'Brevity',
          description: 'How short the summary is for what it says.',
          scale: [1, 5],
        },
      ],
      gevalSamples: 1,
    });
    const base = oracle();
    const judge = new ScriptedJudge((req, j) =>
      promptOf(req) === 'g-eval.form@1'
        ? formReply(/Politeness/u.test(req.messages[0].content) ? 2 : 5)
        : base(req, j),
    );
    const { results } = await run(judge, CASE, ['geval-custom'], s);
    expect(results).toHaveLength(2);
    const custom = results.map((r) => scoredAs(r, 'geval-custom'));
    const polite = custom.find((r) => r.details.criterion === 'Politeness')!;
    expect(polite).toMatchObject({ id: 'geval-custom', status: 'ok', raw: 2 });
    expect(polite.score).toBeCloseTo(2 / 3, 12);
    expect(polite.details.scale).toEqual([0, 3]);
    const brevity = custom.find((r) => r.details.criterion === 'Brevity')!;
    expect(brevity.score).toBe(1);
  });

  it('SummEval fluency on 1–5 when asked', async () => {
    const judge = new ScriptedJudge(oracle({ gevalScore: 4 }));
    const { byId } = await run(
      judge,
      CASE,
      ['geval-fluency'],
      settings({ fluencyScale: '1-5', gevalSamples: 1 }),
    );
    expect(byId('geval-fluency')).toMatchObject({ status: 'ok', score: 4 });
  });
});

describe('repetitiveness', () => {
  const summary = 'The bridge is closed. The old bridge is closed now. A ferry runs instead.';

  it('maps 1–5 to [0, 1], reports the spread and locates the repeated items', async () => {
    const base = oracle();
    const replies = [
      'Repeated: "bridge is closed"; "closed"\nThe closure is said twice.\nFinal score: 2',
      'Repeated: "bridge is closed"\nSaid twice.\nFinal score: 3',
    ];
    const judge = new ScriptedJudge(
      (req, j) => (promptOf(req) === 'g-eval.form@1' ? replies : base(req, j)),
      { caps: NO_LOGPROB_CAPS },
    );
    const { byId } = await run(
      judge,
      { source: SOURCE, summary },
      ['repetitiveness'],
      settings({ gevalSamples: 2 }),
    );
    const r = scoredAs(byId('repetitiveness'), 'repetitiveness');
    // Mean 2.5 on 1–5 → (2.5 − 1) / 4 = 0.375; std 0.5 → 0.125 on 0–1.
    expect(r.score).toBeCloseTo(0.375, 12);
    expect(r.raw).toBeCloseTo(2.5, 12);
    expect(r.details.std).toBeCloseTo(0.5, 12);
    expect(r.details.normalizedStd).toBeCloseTo(0.125, 12);
    expect(r.details.repeatedItems[0]).toMatchObject({ text: 'bridge is closed', mentions: 2 });
    expect(r.details.repeatedItems[0].spans.map((s) => summary.slice(s.start, s.end))).toEqual([
      'bridge is closed',
      'bridge is closed',
    ]);
    expect(r.explanation).toMatch(/Repeated: “bridge is closed”, “closed”/u);
    // Judged on the summary alone: the form shows no source.
    const form = judge.calls.find((c) => c.prompt === 'g-eval.form@1')!.request;
    expect(blocks(form).source).toBeUndefined();
    expect(blocks(form).summary).toBe(summary);
    expect(r.details.context).toBeNull();
  });

  it('"Repeated: none" and a top score give 1', async () => {
    const base = oracle();
    const judge = new ScriptedJudge((req, j) =>
      promptOf(req) === 'g-eval.form@1'
        ? 'Repeated: none\nNothing repeats.\nFinal score: 5'
        : base(req, j),
    );
    const { byId } = await run(judge, CASE, ['repetitiveness'], settings({ gevalSamples: 1 }));
    const r = scoredAs(byId('repetitiveness'), 'repetitiveness');
    expect(r.score).toBe(1);
    expect(r.details.repeatedItems).toEqual([]);
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
