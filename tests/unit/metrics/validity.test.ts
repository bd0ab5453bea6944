/**
 * The validity report (`npm run validity`): the stored figures the cards show equal a fresh run on
 * SummEval dev, docs/validity.md's table is the one rendered from them, the offline repetition score
 * meets its bar (summary-level Spearman ≥ 0.30 with expert coherence), and each metric's one-line
 * meaning claims no more than its row shows.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeValidity, ENCODER_METRIC_IDS } from '../../../src/lib/node/validity/compute.ts';
import { findModels } from '../../../src/lib/node/validity/models.ts';
import {
  VALIDITY_PAGE,
  readmeWithTable,
  TABLE_END,
  TABLE_START,
} from '../../../src/lib/node/validity/report-files.ts';
import { recordedRating } from '../../../src/lib/node/validity/summeval.ts';
import { metricInfo, OFFLINE_METRIC_IDS } from '../../../src/lib/metrics/registry.ts';
import {
  agreementOf,
  agreementSummary,
  HUMAN_DIMENSIONS,
  strongest,
  VALIDITY,
  validityMarkdown,
  validityRowFor,
  validityRows,
  type ValidityReport,
} from '../../../src/lib/metrics/validity.ts';
import qualityWeights from '../../../src/lib/metrics/lexical/quality-offline/quality-weights.json';
import { repoRoot } from '../../helpers/shared.ts';

const FIXTURE_MODELS = resolve(repoRoot, 'tests/fixtures/models');

function row(key: string) {
  const found = VALIDITY.rows.find((r) => r.key === key);
  if (!found) throw new Error(`no validity row ${key}`);
  return found;
}

describe('the stored validity report', () => {
  let fresh: ValidityReport;
  beforeAll(async () => {
    fresh = await computeValidity({ modelsDir: null });
    // A clean clone has no vector cache yet: USE-lite embeds ~4,000 SummEval sentences on one WASM
    // thread (minutes on a 2-core machine); later runs read them from node_modules/.cache.
  }, 1_200_000);

  it('equals a fresh run of every offline metric on SummEval dev (npm run validity -- --write)', () => {
    expect(fresh.dataset).toEqual(VALIDITY.dataset);
    // Rows measured with models someone had under public/models may be stored too; the built-in
    // ones must all be there and match.
    const stored = VALIDITY.rows.filter((r) => !r.backend.startsWith('transformers.js'));
    expect(stored.map((r) => r.key)).toEqual(fresh.rows.map((r) => r.key));
    for (const [i, r] of fresh.rows.entries()) {
      expect(stored[i].backend).toBe(r.backend);
      expect(stored[i].scored).toBe(r.scored);
      for (const d of HUMAN_DIMENSIONS) {
        const [a, b] = [stored[i].cells[d], r.cells[d]];
        expect(a.articles).toBe(b.articles);
        for (const k of ['summarySpearman', 'summaryKendall', 'pooledSpearman'] as const) {
          expect(a[k], `${r.key} ${d} ${k}`).toBeCloseTo(b[k] ?? Number.NaN, 5);
        }
      }
    }
  });

  it('has a row for every offline metric, all 600 summaries and 50 articles', () => {
    expect(VALIDITY.dataset.summaries).toBe(600);
    expect(VALIDITY.dataset.articles).toBe(50);
    for (const id of OFFLINE_METRIC_IDS) expect(validityRows(id).length).toBeGreaterThan(0);
  });

  it('the offline repetition score tracks expert coherence at summary-level Spearman ≥ 0.30', () => {
    const rep = fresh.rows.find((r) => r.key === 'repetition-offline-lexical')!;
    expect(rep.cells.coherence.summarySpearman).toBeGreaterThanOrEqual(0.3);
    expect(rep.cells.coherence.articles).toBe(50);
    expect(rep.scored).toBe(600);
  });

  it('reports the quality estimate held out, as the fit script stored it, apart from in-sample rows', () => {
    const cv = fresh.rows.find((r) => r.key === 'quality-offline-lexical-cv')!;
    expect(cv.fit).toBe('cross-validated');
    // Each column is the estimate of the dimension it rates, as stored with the weights.
    const stored = (dimension: 'faithfulness' | 'coherence' | 'coverage', against: string) =>
      qualityWeights.dimensions[dimension].heldOut.find(
        (h) => h.against === against && h.dataset.startsWith('summeval-dev'),
      )!.value;
    expect(cv.cells.coherence.summarySpearman).toBeCloseTo(stored('coherence', 'coherence'), 5);
    expect(cv.cells.consistency.summarySpearman).toBeCloseTo(
      stored('faithfulness', 'consistency'),
      5,
    );
    expect(cv.cells.relevance.summarySpearman).toBeCloseTo(stored('coverage', 'relevance'), 5);
    const inSample = fresh.rows.filter((r) => r.fit === 'in-sample').map((r) => r.key);
    expect(inSample).toEqual([
      'repetition-offline-lexical',
      'source-coverage-lexical',
      'quality-offline-lexical',
    ]);
    // The source-only metrics of the lexical worker are not reference metrics.
    expect(fresh.rows.find((r) => r.key === 'extractiveness-lexical')?.kind).toBe('offline');
  });

  it('is the table in docs/validity.md, between its markers', () => {
    const readme = readFileSync(VALIDITY_PAGE, 'utf8');
    const block = readme.slice(readme.indexOf(TABLE_START), readme.indexOf(TABLE_END));
    expect(block).toContain(validityMarkdown(VALIDITY));
    expect(readmeWithTable(readme, validityMarkdown(VALIDITY))).toBe(readme);
  });
});

describe('honest labels', () => {
  it('the repetition meaning quotes the measured coherence and fluency figures', () => {
    const rep = row('repetition-offline-lexical');
    const meaning = metricInfo('repetition-offline').meaning;
    expect(meaning).toContain(
      `coherence at summary-level Spearman ${rep.cells.coherence.summarySpearman!.toFixed(2)}`,
    );
    expect(meaning).toContain(`fluency at ${rep.cells.fluency.summarySpearman!.toFixed(2)}`);
  });

  it('the quality estimate says it ranks, not grades, and rewards no copying', () => {
    const meaning = metricInfo('quality-offline').meaning;
    expect(meaning).toMatch(/It ranks summaries of one source; it does not grade/u);
    expect(meaning).toMatch(/no ingredient rewards copying/u);
  });

  it('local coherence with the default encoder is near zero, and its card line and meaning say so', () => {
    const coherence = row('coherence-use-lite');
    expect(agreementOf(coherence)).toBe('near-zero');
    expect(agreementSummary(coherence)).toMatch(/^Near zero agreement with people/u);
    expect(metricInfo('coherence').meaning).toMatch(/does not track expert coherence/u);
    // The GloVe order model's strongest figure is a weak, inverse one (about −0.1): no better.
    expect(['near-zero', 'weak']).toContain(agreementOf(row('coherence-glove')));
  });

  it('a negative strongest figure is named as such', () => {
    const density = row('entity-density-compromise');
    // Measured: denser summaries were rated less consistent (−0.17), a weak, inverse figure.
    expect(strongest(density)).toEqual({
      dimension: 'consistency',
      value: density.cells.consistency.summarySpearman,
    });
    expect(agreementOf(density)).toBe('weak');
    expect(agreementSummary(density)).toContain('higher scores went with lower ratings');
  });

  it('no row that is near zero or weak is described as tracking people', () => {
    for (const r of VALIDITY.rows) {
      if (agreementOf(r) === 'near-zero' || agreementOf(r) === 'weak') {
        expect(agreementSummary(r)).not.toMatch(/it reaches/u);
      }
    }
  });
});

describe('matching a result to its row', () => {
  it('matches the exact backend, or a transformer backend on another device', () => {
    const glove = row('coherence-glove');
    expect(validityRowFor('coherence', glove.backend)).toBe(glove);
    expect(validityRowFor('coherence', 'provider:openai/text-embedding-3-small')).toBeUndefined();
    // ROUGE without the stemmer was not measured: no row claims to describe it.
    expect(validityRowFor('rouge-1', 'rouge_score-0.1.2')).toBeUndefined();
  });

  it('an int8 USE-lite result quotes the row measured on int8, an fp32 one the fp32 row', () => {
    // The page's default encoder is int8; its figures differ from fp32's by up to ~0.02
    // (npm run int8:agreement), so its cards must not quote the fp32 rows.
    expect(ENCODER_METRIC_IDS).toEqual(['coherence', 'source-order', 'support', 'redundancy']);
    for (const id of ENCODER_METRIC_IDS) {
      const int8 = row(`${id}-use-lite-int8`);
      expect(int8.backend).toBe('use-lite int8 · WASM');
      expect(validityRowFor(id, 'use-lite int8 · WASM')).toBe(int8);
      expect(validityRowFor(id, 'use-lite int8 · WebGPU')).toBe(int8);
      expect(validityRowFor(id, 'use-lite · WASM')).toBe(row(`${id}-use-lite`));
    }
  });

  it('quotes a fit’s held-out row, not its in-sample one, where both were measured', () => {
    const inSample = row('quality-offline-lexical');
    expect(inSample.fit).toBe('in-sample');
    expect(validityRowFor('quality-offline', inSample.backend)?.key).toBe(
      'quality-offline-lexical-cv',
    );
    // A metric measured in-sample only keeps its own row.
    const repetition = row('repetition-offline-lexical');
    expect(validityRowFor('repetition-offline', repetition.backend)).toBe(repetition);
  });

  it('a transformer row measured in Node serves the same model and dtype on WASM or WebGPU', () => {
    const measured = {
      ...row('coherence-glove'),
      key: 'coherence-xenova-all-minilm-l6-v2',
      backend: 'transformers.js Xenova/all-MiniLM-L6-v2 · q8 · CPU (onnxruntime-node)',
    };
    const rows = [row('coherence-glove'), measured];
    const on = (backend: string) => validityRowFor('coherence', backend, rows)?.key;
    expect(on('transformers.js Xenova/all-MiniLM-L6-v2 · q8 · WASM')).toBe(measured.key);
    expect(on('transformers.js Xenova/all-MiniLM-L6-v2 · q8 · WebGPU (software adapter)')).toBe(
      measured.key,
    );
    // Another dtype computes other numbers: not measured.
    expect(on('transformers.js Xenova/all-MiniLM-L6-v2 · fp32 · WASM')).toBeUndefined();
  });

  it('the recorded judge row serves the four G-Eval criteria, never other judge metrics', () => {
    for (const d of HUMAN_DIMENSIONS) {
      expect(validityRows(`geval-${d}`).map((r) => r.key)).toEqual(['geval-recorded-gpt4']);
    }
    expect(validityRows('alignment')).toEqual([]);
  });
});

describe('the validity script', () => {
  it('reads a recorded reply’s final rating', () => {
    expect(recordedRating('Flows well. Final score: 4.')).toBe(4);
    expect(recordedRating('I would rate it 3/5.')).toBe(3);
    expect(recordedRating('Score: 2 out of 5')).toBe(2);
    expect(recordedRating('No rating here.')).toBeNull();
  });

  it('finds transformer models and tells embedding from NER by their architecture', () => {
    expect(findModels(FIXTURE_MODELS)).toEqual([
      { id: 'sumlens-test/tiny-embedding', task: 'feature-extraction', dtype: 'q8' },
      { id: 'sumlens-test/tiny-ner', task: 'token-classification', dtype: 'q8' },
    ]);
    expect(findModels(resolve(repoRoot, 'no-such-dir'))).toEqual([]);
  });

  it('adds rows for the transformer backends it finds', async () => {
    const report = await computeValidity({
      modelsDir: FIXTURE_MODELS,
      articles: 3,
      withoutJudge: true,
    });
    expect(report.dataset.summaries).toBe(36);
    expect(report.dataset.articles).toBe(3);
    const keys = report.rows.map((r) => r.key);
    expect(keys).toContain('coherence-sumlens-test-tiny-embedding');
    expect(keys).toContain('entity-density-sumlens-test-tiny-ner');
    const tiny = report.rows.find((r) => r.key === 'coherence-sumlens-test-tiny-embedding')!;
    expect(tiny.backend).toBe(
      'transformers.js sumlens-test/tiny-embedding · q8 · CPU (onnxruntime-node)',
    );
    expect(tiny.scored).toBeGreaterThan(0);
    expect(tiny.cells.coherence.articles).toBeGreaterThan(0);
  }, 120_000);
});
