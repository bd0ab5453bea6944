/** G-Eval in a judge run: the scoring methods and the repetitiveness criterion. */
import { describe, expect, it } from 'vitest';
import { scoredAs } from '../metrics/scored.ts';
import type { TokenLogprob } from '../../../src/lib/llm/types.ts';
import {
  LOGPROB_CAPS,
  NO_LOGPROB_CAPS,
  ScriptedJudge,
  blocks,
  formReply,
  oracle,
  promptOf,
} from './scripted-judge.ts';
import { CASE, SOURCE, run, settings } from './judge-run-case.ts';

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
