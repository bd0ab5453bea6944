/** A full judge run over the scripted judge: rounds, results as they come, cache keys, failures kept with their metric, cancelling. */
import { describe, expect, it } from 'vitest';
import { runJudgeMetrics, type JudgeProgress } from '../../../src/lib/metrics/judge/run.ts';
import { scoredAs } from '../metrics/scored.ts';
import { loadWords } from '../../../src/lib/datasets/export/words.ts';
import { type JudgeSettings } from '../../../src/lib/metrics/judge/settings.ts';
import { canonicalJson } from '../../../src/lib/llm/cache.ts';
import type { CaseInput, MetricResult } from '../../../src/lib/metrics/types.ts';
import {
  NO_LOGPROB_CAPS,
  ScriptedJudge,
  oracle,
  promptOf,
  type Responder,
} from './scripted-judge.ts';
import { ALL, CASE, SOURCE, SUMMARY, run, settings } from './judge-run-case.ts';

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
