import { describe, expect, it } from 'vitest';
import type { EntityRecognizer } from '../../../../src/lib/metrics/semantic/backends.ts';
import { CompromiseRecognizer } from '../../../../src/lib/metrics/semantic/compromise-ner.ts';
import {
  densityScore,
  scoreEntityDensity,
} from '../../../../src/lib/metrics/semantic/entity-density/entity-density.ts';
import { splitTokens, splitWords } from '../../../../src/lib/metrics/text/tokenize.ts';
import type { TextSpan } from '../../../../src/lib/metrics/types.ts';
import { readJsonl } from '../../../helpers/shared.ts';
import { scored } from '../scored.ts';

const compromise = new CompromiseRecognizer();

/** A recogniser that returns fixed spans and says nothing about languages. */
function stub(spans: TextSpan[], backend = 'stub'): EntityRecognizer {
  return { backend, recognize: () => Promise.resolve(spans) };
}

function span(text: string, sub: string, label: string): TextSpan {
  const start = text.indexOf(sub);
  return { start, end: start + sub.length, text: sub, label };
}

// 23 tokens (the final full stop is one); 4 entities.
const NEAR =
  'John Smith flew to Paris on Tuesday to meet the board about the new budget and the plans for the coming year.';
// 19 tokens; 1 entity.
const SPARSE =
  'The company said on Tuesday that it would review the plan and report back to its staff soon.';
// 23 tokens ("Inc" "." "$" "2.6" … "20" "%" …); 7 entities.
const DENSE =
  'Apple Inc. paid $2.6 million to John Smith in Paris on Tuesday, a 20% rise from April 2014.';

describe('densityScore', () => {
  it('is 1 at the target and falls linearly to 0 at target ± width', () => {
    expect(densityScore(0.15, 0.15, 0.15)).toBe(1);
    expect(densityScore(0.075, 0.15, 0.15)).toBeCloseTo(0.5, 12);
    expect(densityScore(0.225, 0.15, 0.15)).toBeCloseTo(0.5, 12);
    expect(densityScore(0, 0.15, 0.15)).toBe(0);
    expect(densityScore(0.4, 0.15, 0.15)).toBe(0);
  });
});

describe('scoreEntityDensity with a fixed recogniser', () => {
  it('divides entities by word-and-punctuation tokens', async () => {
    const summary = 'Alpha met Beta in Gamma today.'; // 7 tokens
    const spans = [
      span(summary, 'Alpha', 'PERSON'),
      span(summary, 'Beta', 'PERSON'),
      span(summary, 'Gamma', 'PLACE'),
    ];
    const r = scored(await scoreEntityDensity(summary, stub(spans)));
    expect(r.id).toBe('entity-density');
    expect(r.status).toBe('ok');
    expect(r.backend).toBe('stub');
    expect(r.details.tokenCount).toBe(7);
    expect(r.raw).toBeCloseTo(3 / 7, 12);
    // |3/7 − 0.15| / 0.15 > 1 → 0.
    expect(r.score).toBe(0);
    expect(r.details.counts).toEqual({ PERSON: 2, PLACE: 1 });
    expect(r.details.languageSupported).toBeNull();
    expect(r.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('scores 2 entities in 10 tokens as 1 − 0.05/0.15 = 2/3', async () => {
    const summary = 'one two three four five six seven eight nine ten';
    const spans = [span(summary, 'one', 'CARDINAL'), span(summary, 'ten', 'CARDINAL')];
    const r = scored(await scoreEntityDensity(summary, stub(spans)));
    expect(r.details.tokenCount).toBe(10);
    expect(r.raw).toBeCloseTo(0.2, 12);
    expect(r.score).toBeCloseTo(2 / 3, 12);
    expect(r.explanation).toBe(
      '2 entities in 10 tokens: 0.200 per token, above the 0.15 target: crammed with specifics.',
    );
  });

  it('takes target and width options', async () => {
    const summary = 'one two three four five six seven eight nine ten';
    const spans = [span(summary, 'one', 'CARDINAL'), span(summary, 'ten', 'CARDINAL')];
    const r = scored(await scoreEntityDensity(summary, stub(spans), { target: 0.3, width: 0.4 }));
    // 1 − |0.2 − 0.3| / 0.4 = 0.75
    expect(r.score).toBeCloseTo(0.75, 12);
    expect(r.details.target).toBe(0.3);
    expect(r.details.width).toBe(0.4);
    expect(r.explanation).toBe(
      '2 entities in 10 tokens: 0.200 per token, a little below the 0.3 target: slightly sparse.',
    );
    const exact = scored(await scoreEntityDensity(summary, stub(spans), { target: 0.2 }));
    expect(exact.score).toBeCloseTo(1, 12);
    expect(exact.explanation).toBe(
      '2 entities in 10 tokens: 0.200 per token, close to the 0.2 target.',
    );
  });

  it('rejects a width ≤ 0 or a target outside [0, 1] with an error result', async () => {
    for (const options of [{ width: 0 }, { width: -0.1 }, { target: -0.01 }, { target: 1.5 }]) {
      const r = await scoreEntityDensity('John met Mary.', stub([]), options);
      expect(r.status, JSON.stringify(options)).toBe('error');
      expect(r.score).toBeNull();
      expect(r.reason).toMatch(/target|width/);
    }
    const nan = await scoreEntityDensity('John met Mary.', stub([]), { width: Number.NaN });
    expect(nan.status).toBe('error');
  });

  it('returns n/a with a reason for an empty summary', async () => {
    for (const summary of ['', '   \n\t ']) {
      const r = await scoreEntityDensity(summary, compromise);
      expect(r.status).toBe('n/a');
      expect(r.score).toBeNull();
      expect(r.reason).toMatch(/empty/);
      expect(r.details).toHaveProperty('tokenCount', 0);
      expect(r.details).toHaveProperty('entities', []);
    }
  });

  it('scores a summary without entities as density 0', async () => {
    const r = scored(await scoreEntityDensity('it was fine.', stub([])));
    expect(r.raw).toBe(0);
    expect(r.score).toBe(0);
    expect(r.explanation).toBe(
      '0 entities in 4 tokens: 0.000 per token, far below the 0.15 target: a sparse summary with few specifics.',
    );
  });

  it('turns a recogniser failure into an error result, and rethrows a cancel', async () => {
    const broken: EntityRecognizer = {
      backend: 'broken',
      recognize: () => Promise.reject(new Error('model not loaded')),
    };
    const r = await scoreEntityDensity('John met Mary.', broken);
    expect(r.status).toBe('error');
    expect(r.reason).toBe('Entity recognition failed: model not loaded');

    const controller = new AbortController();
    controller.abort();
    await expect(
      scoreEntityDensity('John met Mary.', compromise, {}, controller.signal),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('scoreEntityDensity with compromise', () => {
  it('scores a summary near the target: 4/23, 1 − (4/23 − 0.15)/0.15 = 58/69', async () => {
    expect(splitTokens(NEAR)).toHaveLength(23);
    const r = scored(await scoreEntityDensity(NEAR, compromise));
    expect(r.backend).toBe('compromise-14.17 (+dates)');
    expect(r.details.entities.map((e) => [e.label, e.text])).toEqual([
      ['PERSON', 'John Smith'],
      ['PLACE', 'Paris'],
      ['DATE', 'Tuesday'],
      ['DATE', 'coming year'],
    ]);
    expect(r.details.entityCount).toBe(4);
    expect(r.details.tokenCount).toBe(23);
    expect(r.raw).toBeCloseTo(4 / 23, 12);
    expect(r.details.density).toBeCloseTo(4 / 23, 12);
    expect(r.score).toBeCloseTo(58 / 69, 12);
    expect(r.details.counts).toEqual({ PERSON: 1, PLACE: 1, DATE: 2 });
    expect(r.details.languageSupported).toBe(true);
    expect(r.explanation).toBe(
      '4 entities in 23 tokens: 0.174 per token, close to the 0.15 that people preferred.',
    );
  });

  it('scores a sparse summary: 1/19, 1 − (0.15 − 1/19)/0.15 = 20/57', async () => {
    const r = scored(await scoreEntityDensity(SPARSE, compromise));
    expect(r.details.tokenCount).toBe(19);
    expect(r.details.entities.map((e) => e.text)).toEqual(['Tuesday']);
    expect(r.score).toBeCloseTo(20 / 57, 12);
    expect(r.explanation).toBe(
      '1 entity in 19 tokens: 0.053 per token, below the 0.15 target: a sparse, first-draft-like summary.',
    );
  });

  it('scores a crammed summary: 7/23 is more than one width above the target → 0', async () => {
    const r = scored(await scoreEntityDensity(DENSE, compromise));
    expect(r.details.entityCount).toBe(7);
    expect(r.details.tokenCount).toBe(23);
    expect(r.raw).toBeCloseTo(7 / 23, 12);
    expect(r.score).toBe(0);
    expect(r.details.counts).toEqual({
      ORG: 1,
      MONEY: 1,
      PERSON: 1,
      PLACE: 1,
      DATE: 2,
      PERCENT: 1,
    });
    expect(r.explanation).toMatch(/^7 entities in 23 tokens: 0\.304 per token, far above/);
    // With target 0.3 and width 0.2: 1 − |7/23 − 0.3| / 0.2 = 1 − (1/230)/0.2 = 45/46.
    const wide = scored(await scoreEntityDensity(DENSE, compromise, { target: 0.3, width: 0.2 }));
    expect(wide.score).toBeCloseTo(45 / 46, 12);
  });

  it('returns spans that highlight the right substrings', async () => {
    const r = scored(await scoreEntityDensity(DENSE, compromise));
    for (const e of r.details.entities) expect(DENSE.slice(e.start, e.end)).toBe(e.text);
  });

  it('flags non-English text: Chinese counts digits and dates only', async () => {
    const summary = '阿里巴巴在2014年9月19日于纽约证券交易所上市，融资250亿美元。';
    const r = scored(await scoreEntityDensity(summary, compromise));
    expect(r.status).toBe('ok');
    expect(r.details.languageSupported).toBe(false);
    expect(r.details.languageNote).toMatch(/English only/);
    expect(r.details.entities.map((e) => e.text)).toEqual(['2014年9月19日', '250亿']);
    expect(r.details.tokenCount).toBe(splitTokens(summary).length);
    expect(r.explanation).toMatch(/reads English only .* undercounts\.$/);
  });

  it('runs on a 2,500-word English text (timing printed, not asserted)', async () => {
    const rows = readJsonl<{ id: string; text: string }>('data/summeval/dev.jsonl');
    const articles = [...new Map(rows.map((r) => [r.id, r.text])).values()];
    let text = '';
    for (const a of articles) {
      text = text ? `${text}\n\n${a}` : a;
      if (splitWords(text).length >= 2500) break;
    }
    text = text.slice(0, splitWords(text)[2499].end);
    expect(splitWords(text)).toHaveLength(2500);

    const r = scored(await scoreEntityDensity(text, compromise));
    expect(r.status).toBe('ok');
    expect(r.details.entityCount).toBeGreaterThan(100);
    for (const e of r.details.entities) expect(text.slice(e.start, e.end)).toBe(e.text);

    // Warm up the JIT, then time compromise alone (parse + entity mapping), not its parse cache.
    const parsing = new CompromiseRecognizer({ cacheSize: 0 });
    for (let i = 0; i < 3; i++) await parsing.recognize(text);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await parsing.recognize(text);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(
      `compromise NER on 2,500 words (${text.length} chars, ${r.details.entityCount} entities): ` +
        `median ${times[2].toFixed(0)} ms, min ${times[0].toFixed(0)} ms after warm-up (Node)`,
    );
  });
});
