import { describe, expect, it } from 'vitest';
import {
  flagCountText,
  flagLabel,
  flagMessage,
  flagShareText,
  flagTallyText,
  qualityFlagsIn,
  qualityFlagsOf,
  tallyQualityFlags,
} from '../../../src/lib/metrics/quality-flags.ts';
import { ref } from '../../../src/lib/i18n/message.ts';
import { fakeResult } from './scored.ts';

const lead = {
  id: 'lead-copy',
  message: 'The first 20 of its 22 words are the source opening.',
  messageRef: ref('lexical.quality.flag.leadCopy', { opening: 20, words: 22 }),
};
const quality = (flags: unknown, status: 'ok' | 'n/a' = 'ok') =>
  fakeResult({
    id: 'quality-offline',
    status,
    score: status === 'ok' ? 0.5 : null,
    details: { kind: 'quality-offline', flags },
  });

describe('qualityFlagsOf', () => {
  it('reads the flags of a scored quality estimate', () => {
    expect(qualityFlagsOf(quality([lead]))).toEqual([lead]);
  });

  it('reads nothing from another metric, an unscored result, or details without flags', () => {
    expect(qualityFlagsOf(undefined)).toEqual([]);
    expect(qualityFlagsOf(quality([lead], 'n/a'))).toEqual([]);
    expect(
      qualityFlagsOf(
        fakeResult({ id: 'rouge-l', status: 'ok', score: 1, details: { flags: [lead] } }),
      ),
    ).toEqual([]);
    expect(qualityFlagsOf(quality(undefined))).toEqual([]);
    expect(qualityFlagsOf(quality('lead-copy'))).toEqual([]);
    expect(qualityFlagsOf(quality([null, 3, { id: '' }, { message: 'x' }]))).toEqual([]);
  });

  it('keeps an id this version does not know, with its id as label and message', () => {
    const [f] = qualityFlagsOf(quality([{ id: 'brand-new' }]));
    expect(f).toEqual({ id: 'brand-new', message: 'brand-new' });
    expect(flagLabel(f!.id)).toBe('brand-new');
    expect(flagMessage(f!)).toBe('brand-new');
  });

  it('finds the quality estimate among a row’s results', () => {
    const rouge = fakeResult({ id: 'rouge-l', status: 'ok', score: 1 });
    expect(qualityFlagsIn([rouge, quality([lead])]).map((f) => f.id)).toEqual(['lead-copy']);
    expect(qualityFlagsIn([rouge])).toEqual([]);
    expect(qualityFlagsIn(undefined)).toEqual([]);
  });

  // Imported here: the helper itself never loads the metric (it reads stored results).
  it('reads the lead-copy flag of a real score of a copied opening', async () => {
    const { scoreQuality } =
      await import('../../../src/lib/metrics/lexical/quality-offline/quality.ts');
    const source =
      'The city council approved a new budget on Tuesday after months of debate. ' +
      'The plan raises spending on schools and roads while cutting administrative costs. ' +
      'Opponents said the tax increase would hurt small businesses. ' +
      'The mayor is expected to sign it next week.';
    const summary =
      'The city council approved a new budget on Tuesday after months of debate. ' +
      'The plan raises spending on schools and roads while cutting administrative costs.';
    const ids = qualityFlagsOf(scoreQuality(source, summary)).map((f) => f.id);
    expect(ids).toContain('lead-copy');
  });
});

describe('flag words', () => {
  it('names a flag shortly and words its sentence from its ref', () => {
    expect(flagLabel('lead-copy')).toBe('lead copy');
    expect(flagMessage(lead)).toMatch(/first 20 of its 22 words/u);
    expect(flagMessage({ id: 'x', message: 'stored English' })).toBe('stored English');
  });

  it('writes counts and shares', () => {
    expect(flagCountText({ id: 'lead-copy', count: 12 }, 50)).toBe('lead copy 12/50');
    expect(flagShareText({ id: 'lead-copy', count: 17 }, 50)).toBe('lead copy 34%');
    expect(flagShareText({ id: 'lead-copy', count: 0 }, 0)).toBe('lead copy 0%');
  });
});

describe('tallyQualityFlags', () => {
  it('counts rows per flag over the rows whose estimate was scored', () => {
    const one = { id: 'one-sentence', message: 'one' };
    const tally = tallyQualityFlags([
      [quality([lead])],
      [quality([lead, one, lead])],
      [quality([])],
      [quality([one], 'n/a')],
      [fakeResult({ id: 'rouge-l', status: 'ok', score: 1 })],
      undefined,
    ]);
    expect(tally).toEqual({
      scored: 3,
      flags: [
        { id: 'lead-copy', count: 2 },
        { id: 'one-sentence', count: 1 },
      ],
    });
    expect(flagTallyText(tally)).toBe('lead copy 2/3; one sentence 1/3');
    expect(flagTallyText(tally, undefined, 'share')).toBe('lead copy 67%; one sentence 33%');
    expect(flagTallyText(undefined)).toBe('');
  });
});
