import { describe, expect, it } from 'vitest';
import {
  bestHumanRef,
  defaultAxes,
  defaultCompareColumn,
  humanRefs,
  ratingOf,
  ratingValues,
} from '../../../src/lib/datasets/human-ratings.ts';

const SUMMEVAL = [
  'expert_coherence',
  'expert_consistency',
  'expert_fluency',
  'expert_relevance',
  'turker_coherence',
  'turker_consistency',
];

describe('human references', () => {
  it("offers every column and each group's mean, and picks the first group's mean on SummEval", () => {
    const refs = humanRefs(SUMMEVAL);
    expect(refs.map((r) => r.key)).toEqual([
      ...SUMMEVAL.map((c) => `human:${c}`),
      'mean:expert_',
      'mean:turker_',
    ]);
    expect(bestHumanRef(SUMMEVAL)).toEqual({
      key: 'mean:expert_',
      columns: SUMMEVAL.slice(0, 4),
      group: 'expert',
    });
  });

  it('prefers an overall column, and takes the only column where there is one', () => {
    expect(bestHumanRef(['coherence', 'overall', 'fluency'])?.key).toBe('human:overall');
    expect(bestHumanRef(['rated_quality'])?.key).toBe('human:rated_quality');
    expect(bestHumanRef(['coherence'])?.key).toBe('human:coherence');
    // Columns without a shared prefix form one group.
    expect(bestHumanRef(['coherence', 'fluency'])).toMatchObject({
      key: 'mean:',
      columns: ['coherence', 'fluency'],
    });
    expect(bestHumanRef([])).toBeUndefined();
  });

  it('reads a mean over the dimensions a row has', () => {
    const ref = bestHumanRef(SUMMEVAL)!;
    expect(ratingOf(ref, { expert_coherence: 2, expert_fluency: 5 })).toBe(3.5);
    expect(ratingOf(ref, { turker_coherence: 2 })).toBeNaN();
    const ratings = new Map([
      ['expert_coherence', Float64Array.from([1, Number.NaN, Number.NaN])],
      ['expert_fluency', Float64Array.from([3, 4, Number.NaN])],
    ]);
    expect(Array.from(ratingValues(ref, ratings, 3))).toEqual([2, 4, Number.NaN]);
  });
});

describe('what the views open on', () => {
  const columns = ['entity-density', 'coherence', 'rouge-l', 'quality-offline'];

  it('puts the quality estimate against the best human rating', () => {
    expect(defaultAxes(columns, SUMMEVAL)).toEqual({
      metric: 'quality-offline',
      against: 'mean:expert_',
    });
  });

  it('without ratings, the quality estimate against the next column; else the first column', () => {
    expect(defaultAxes(columns, [])).toEqual({
      metric: 'quality-offline',
      against: 'entity-density',
    });
    expect(defaultAxes(['rouge-l', 'bleu'], [])).toEqual({
      metric: 'rouge-l',
      against: 'bleu',
    });
    expect(defaultAxes([], SUMMEVAL)).toBeUndefined();
  });

  it("keeps the user's choice where the run still offers it", () => {
    expect(
      defaultAxes(columns, SUMMEVAL, { metric: 'rouge-l', against: 'human:expert_fluency' }),
    ).toEqual({ metric: 'rouge-l', against: 'human:expert_fluency' });
    expect(defaultAxes(columns, SUMMEVAL, { metric: 'bleu', against: 'coherence' })).toEqual({
      metric: 'quality-offline',
      against: 'coherence',
    });
    expect(defaultAxes(columns, [], { against: 'human:expert_fluency' })?.against).toBe(
      'entity-density',
    );
  });

  it('opens a comparison on the quality estimate where it compares', () => {
    const m = (column: string, comparable = true, n = 5) => ({ column, comparable, n });
    expect(defaultCompareColumn([m('entity-density'), m('quality-offline')])).toBe(
      'quality-offline',
    );
    expect(defaultCompareColumn([m('entity-density'), m('quality-offline', false)])).toBe(
      'entity-density',
    );
    expect(
      defaultCompareColumn([m('entity-density'), m('quality-offline')], 'entity-density'),
    ).toBe('entity-density');
    expect(defaultCompareColumn([m('bleu', false)], 'gone')).toBe('bleu');
    expect(defaultCompareColumn([])).toBeUndefined();
  });
});
