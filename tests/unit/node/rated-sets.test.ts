/**
 * The rated-set loader reads every vendored human-rated data set (tests/fixtures/external/SOURCES.md)
 * into one shape: counts per set, groups, scales, and values checked against the upstream files.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/shared.ts';
import {
  RATED_SET_INFO,
  RESERVED_SUMMEDITS_DOMAINS,
  qagsScore,
  readRatedSets,
  summEditsSeed,
  type RatedSummary,
} from '../../../src/lib/node/validity/rated-sets.ts';

const all = readRatedSets();
const bySet = (dataset: string): RatedSummary[] => all.filter((r) => r.dataset === dataset);
const groups = (rows: RatedSummary[]): Set<string> => new Set(rows.map((r) => r.group));

/** summaries, groups (sources or seeds) and consistent (label 1) summaries per SummEdits domain */
const SUMMEDITS: Record<string, [number, number, number]> = {
  ectsum: [668, 22, 242],
  news: [819, 25, 321],
  podcast: [500, 21, 163],
  qmsumm: [431, 17, 183],
  sales_call: [520, 18, 173],
  sales_email: [613, 21, 179],
  scitldr: [466, 17, 145],
};

describe('readRatedSets', () => {
  it('reads every data set named in RATED_SET_INFO, with the expected counts', () => {
    expect(new Set(all.map((r) => r.dataset))).toEqual(new Set(Object.keys(RATED_SET_INFO)));
    const counts = Object.fromEntries(
      Object.keys(RATED_SET_INFO).map((d) => [d, [bySet(d).length, groups(bySet(d)).size]]),
    );
    expect(counts).toEqual({
      'summeval-dev': [600, 50],
      'qags-cnndm': [235, 235],
      'qags-xsum': [239, 239],
      ...Object.fromEntries(
        Object.entries(SUMMEDITS).map(([d, [n, g]]) => [`summedits-${d}`, [n, g]]),
      ),
    });
    expect(all).toHaveLength(600 + 235 + 239 + 4017);
    for (const row of all) expect(row.family).toBe(RATED_SET_INFO[row.dataset].family);
  });

  it('reads nothing reserved for checking the project: no SAMSum dialogue (Yale-LILY/ROSE)', () => {
    expect(RESERVED_SUMMEDITS_DOMAINS.has('samsum')).toBe(true);
    expect(all.some((r) => r.dataset === 'summedits-samsum')).toBe(false);
    // Not in the vendored copy either, so a test or script reading the files directly cannot meet it.
    const vendored = readFileSync(
      resolve(repoRoot, 'tests/fixtures/external/data/summedits/summaries.jsonl'),
      'utf8',
    );
    expect(vendored).not.toMatch(/"domain": "samsum"/u);
    // Only the families the fit may use.
    expect(new Set(all.map((r) => r.family))).toEqual(new Set(['summeval', 'qags', 'summedits']));
  });

  it('gives every row a source, a summary and a faithfulness rating on its scale', () => {
    for (const row of all) {
      expect(row.source.trim(), row.dataset).not.toBe('');
      expect(row.summary.trim(), row.dataset).not.toBe('');
      expect(row.group, row.dataset).not.toBe('');
      const f = row.human.faithfulness;
      expect(f, row.dataset).toBeTypeOf('number');
      if (row.binary.includes('faithfulness')) expect([0, 1]).toContain(f);
      else if (row.family === 'summeval') expect(f).toBeGreaterThanOrEqual(1);
      else expect(f).toBeGreaterThanOrEqual(0);
    }
    expect(bySet('summeval-dev').every((r) => r.binary.length === 0)).toBe(true);
    expect(bySet('qags-cnndm').every((r) => r.binary.length === 0)).toBe(true);
    expect(bySet('qags-xsum').every((r) => r.binary[0] === 'faithfulness')).toBe(true);
    for (const [domain, [, , consistent]] of Object.entries(SUMMEDITS)) {
      const rows = bySet(`summedits-${domain}`);
      expect(rows.filter((r) => r.human.faithfulness === 1)).toHaveLength(consistent);
    }
  });

  it('groups summaries by source: one source per group', () => {
    const sourceOf = new Map<string, string>();
    for (const row of all) {
      const key = `${row.dataset}|${row.group}`;
      expect(sourceOf.get(key) ?? row.source).toBe(row.source);
      sourceOf.set(key, row.source);
    }
    // SummEval: 12 systems per article; SummEdits: each seed has its unedited summary (`_og`).
    for (const g of groups(bySet('summeval-dev'))) {
      expect(bySet('summeval-dev').filter((r) => r.group === g)).toHaveLength(12);
    }
    // Two QMSum seeds summarise the same meeting: 17 groups, 16 distinct sources.
    expect(new Set(bySet('summedits-qmsumm').map((r) => r.source)).size).toBe(16);
    expect(summEditsSeed('63f9455b8d931ba6e664fb84_og')).toBe('63f9455b8d931ba6e664fb84');
    expect(summEditsSeed('ectsum_OXY_q4_2021_0')).toBe('ectsum_OXY_q4_2021');
  });

  it('matches values read from the upstream files', () => {
    // SummEval dev line 2: expert consistency 5, 5, 5; coherence 2, 1, 3; relevance 2, 2, 4.
    const se = bySet('summeval-dev')[1];
    expect(se.group).toBe('dm-test-9afda3cde191a883d8c166ceb5765eb53205d8f4');
    expect(se.system).toBe('M10');
    expect(se.human).toEqual({ faithfulness: 5, coherence: 2, coverage: 8 / 3, fluency: 5 });

    // QAGS CNN/DM line 3: sentence votes yes/yes/yes, no/no/yes, yes/yes/yes → 2 of 3 consistent.
    const qags = bySet('qags-cnndm');
    expect(qags[2].group).toBe('cnndm:3');
    expect(qags[2].human.faithfulness).toBeCloseTo(2 / 3, 12);
    expect(qags[0].summary.startsWith('` the typical western diet is heavily processed')).toBe(
      true,
    );
    expect(qags[0].summary.endsWith('Ms flower believes we are still not doing enough.')).toBe(
      true,
    );
    expect(bySet('qags-xsum')[0].summary).toBe(
      'Two security guards have been threatened during a robbery at a bank in edinburgh.',
    );

    // summedits_news.json, first sample: the seed summary, consistent.
    const news = bySet('summedits-news')[0];
    expect(news.group).toBe('63f9455b8d931ba6e664fb84');
    expect(news.summary).toBe(
      "On the eve of the one-year anniversary of Russia's invasion of Ukraine, U.K. activists dumped gallons of yellow and blue paint on the road in front of the London Russian embassy.",
    );
    expect(
      news.source.startsWith('Send this page to someone via email\n\nActivists in London'),
    ).toBe(true);
    expect(news.human.faithfulness).toBe(1);
    // summedits_ectsum.json, second sample (ectsum_OXY_q4_2021_0): an inconsistent edit of the first
    // ($0.13 → $0.15 dividend).
    const [seed, ect] = bySet('summedits-ectsum');
    expect(seed.human.faithfulness).toBe(1);
    expect(
      seed.summary.startsWith('The company is increasing its dividend to $0.13 per share'),
    ).toBe(true);
    expect(ect.source).toBe(seed.source);
    expect(ect.group).toBe('ectsum_OXY_q4_2021');
    expect(ect.human.faithfulness).toBe(0);
    expect(ect.summary).toBe(
      'The company is increasing its dividend to $0.15 per share and implementing a framework focused on returning capital to shareholders, excluding a share repurchase program and reducing net debt below $25 billion.',
    );
  });

  it('filters by family and keeps whole groups under limitPerSet', () => {
    const qags = readRatedSets({ families: ['qags'] });
    expect(qags).toHaveLength(474);
    const few = readRatedSets({ families: ['summeval', 'summedits'], limitPerSet: 2 });
    expect(few.filter((r) => r.dataset === 'summeval-dev')).toHaveLength(24);
    for (const d of Object.keys(SUMMEDITS)) {
      const full = bySet(`summedits-${d}`);
      const firstTwo = new Set([...groups(full)].slice(0, 2));
      const rows = few.filter((r) => r.dataset === `summedits-${d}`);
      expect(rows).toEqual(full.filter((r) => firstTwo.has(r.group)));
      expect(groups(rows).size).toBe(2);
    }
    expect(() => readRatedSets({ families: ['frank'] })).toThrow(/Unknown rated-set family/u);
  });

  it('scores a QAGS summary by sentence majorities', () => {
    const votes = (...v: string[]) => v.map((response, worker_id) => ({ worker_id, response }));
    expect(
      qagsScore([
        { sentence: 'a', responses: votes('yes', 'yes', 'no') },
        { sentence: 'b', responses: votes('no', 'no', 'yes') },
      ]),
    ).toBe(0.5);
  });
});
