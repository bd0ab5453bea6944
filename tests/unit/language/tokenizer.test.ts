import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../../src/lib/metrics/offline.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import type { CaseInput, MetricId, MetricResult } from '../../../src/lib/metrics/types.ts';
import { intlWordSegmenter } from '../../../src/lib/metrics/lexical/cjk-words.ts';
import { caseTokenizer } from '../../../src/lib/metrics/text/case-tokenizer.ts';
import { normalizeZhAnswer } from '../../../src/lib/metrics/lexical/reference/token-f1.ts';

const LEXICAL: MetricId[] = [
  'rouge-1',
  'bleu',
  'token-f1',
  'repetition-offline',
  'extractiveness',
  'source-coverage',
];

const zh: CaseInput = {
  language: 'zh',
  source:
    '研究人员周二表示，这种新型电池可以在十分钟内充满电。该电池由浙江大学的团队开发，预计明年投入生产。',
  // Names ICU splits into single characters (郗|鉴, 织|田|信|长) and the Chinese word segmenter
  // joins: a metric on plain ICU words would count more words than the others.
  summary:
    '郗鉴和织田信长都说，浙江大学的团队开发了一种新型电池，可以在十分钟内充满电，预计明年投入生产。',
  reference: '浙江大学团队开发的新型电池十分钟即可充满，明年量产。',
};

const ja: CaseInput = {
  language: 'ja',
  source:
    '研究者たちは火曜日、この新しい電池は十分で満充電できると発表した。電池は東京大学のチームが開発した。',
  summary: '東京大学のチームが新しい電池を開発し、十分で満充電できると発表した。',
  reference: '東京大学が十分で充電できる新しい電池を開発した。',
};

async function run(input: CaseInput): Promise<Record<string, MetricResult>> {
  const out: MetricResult[] = [];
  await computeMetrics(LEXICAL, input, DEFAULT_SETTINGS, {}, (r) => out.push(r));
  return Object.fromEntries(out.map((r) => [r.id, r]));
}

/** Summary word count as each metric's details report it. */
function summaryWords(r: Record<string, MetricResult>): Record<string, number> {
  const d = (id: string) => r[id].details as Record<string, number>;
  return {
    rouge: d('rouge-1').summaryTokens,
    tokenF1: d('token-f1').summaryTokens,
    repetition: d('repetition-offline').words,
    extractiveness: d('extractiveness').summaryWords,
  };
}

describe.each([
  ['zh', zh],
  ['ja', ja],
])('one tokenizer for a %s case', (_name, input) => {
  it('gives the same summary word count in every lexical metric', async () => {
    const r = await run(input);
    for (const id of LEXICAL) expect(r[id].status, id).toBe('ok');
    const counts = summaryWords(r);
    const tokenizer = caseTokenizer(input.language ?? 'en', intlWordSegmenter);
    // Token F1 drops tokens that are only punctuation after normalisation; words never are.
    const words = tokenizer.words(input.summary).filter((w) => normalizeZhAnswer(w.text) !== '');
    expect(counts).toEqual({
      rouge: words.length,
      tokenF1: words.length,
      repetition: words.length,
      extractiveness: words.length,
    });
  });

  it('names the same tokenizer in every detail and backend line', async () => {
    const r = await run(input);
    const names = LEXICAL.map((id) => (r[id].details as { caseTokenizer?: string }).caseTokenizer);
    expect(new Set(names)).toEqual(new Set(['intl-segmenter']));
    for (const id of LEXICAL) expect(r[id].backend, id).toContain('intl-segmenter');
  });
});

describe('a Chinese case with jieba', () => {
  const fakeJieba = {
    name: 'jieba' as const,
    // A stand-in with jieba's name: the point is that every metric uses the one segmenter.
    cut: (text: string) => intlWordSegmenter.cut(text),
  };

  it('loads the segmenter once per case and names it everywhere', async () => {
    let loads = 0;
    const out: MetricResult[] = [];
    await computeMetrics(
      LEXICAL,
      zh,
      DEFAULT_SETTINGS,
      {
        wordSegmenter: async () => {
          loads++;
          return fakeJieba;
        },
      },
      (r) => out.push(r),
    );
    expect(loads).toBe(1);
    for (const r of out) {
      const name = (r.details as { caseTokenizer?: string }).caseTokenizer;
      expect(name, r.id).toBe('jieba');
      expect(r.backend, r.id).toContain('jieba');
    }
  });

  it('falls back to the labelled Intl stand-in everywhere when jieba fails', async () => {
    const out: MetricResult[] = [];
    await computeMetrics(
      LEXICAL,
      zh,
      DEFAULT_SETTINGS,
      { wordSegmenter: () => Promise.reject(new Error('HTTP 404')) },
      (r) => out.push(r),
    );
    for (const r of out) {
      expect((r.details as { caseTokenizer?: string }).caseTokenizer, r.id).toBe(
        'intl-segmenter, jieba unavailable',
      );
      expect(r.backend, r.id).toContain('intl-segmenter, jieba unavailable');
    }
  });
});

describe('an English case', () => {
  it('keeps the reference tools’ own backends', async () => {
    const r = await run({
      language: 'en',
      source: 'The cat sat on the mat. It was warm.',
      summary: 'The cat sat on a warm mat.',
      reference: 'A cat sat on the mat.',
    });
    expect(r['rouge-1'].backend).toBe('rouge_score-0.1.2 (porter)');
    expect(r.bleu.backend).toBe('sacrebleu-13a');
    expect(r['token-f1'].backend).toBe('squad-f1');
    expect(r['repetition-offline'].backend).toBe('lexical repeats (Intl.Segmenter words)');
    expect(r.extractiveness.backend).toBe('lexical fragments (Grusky et al. 2018 greedy)');
  });
});
