/** The model catalogue, backend labels, label-coverage notes and cache bookkeeping. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_NER_MODEL,
  MODEL_CATALOG,
  catalogModel,
  downloadBytes,
  isValidModelId,
  modelsFor,
} from '../../../src/lib/models/catalog.ts';
import { shortBackend } from '../../../src/lib/ui/format.ts';
import { labelCoverageNote } from '../../../src/lib/metrics/semantic/transformer-ner.ts';
import { modelIdFromUrl } from '../../../src/lib/models/model-cache.ts';

describe('model catalogue', () => {
  it('offers the defaults and a multilingual option for each task, with sizes', () => {
    expect(catalogModel(DEFAULT_EMBEDDING_MODEL)?.task).toBe('feature-extraction');
    expect(catalogModel(DEFAULT_NER_MODEL)?.labels).toEqual(['PER', 'ORG', 'LOC', 'MISC']);
    for (const task of ['feature-extraction', 'token-classification'] as const) {
      const real = modelsFor(task).filter((m) => !m.testOnly);
      expect(real.some((m) => m.languages === 'English')).toBe(true);
      expect(real.some((m) => m.languages === 'multilingual')).toBe(true);
    }
    for (const m of MODEL_CATALOG) {
      expect(isValidModelId(m.id), m.id).toBe(true);
      expect(m.sizes.fp32 ?? m.sizes.q8, m.id).toBeGreaterThan(0);
    }
    expect(downloadBytes(DEFAULT_EMBEDDING_MODEL, 'q8')).toBeCloseTo(23.7e6, -5);
    expect(downloadBytes('someone/unknown', 'q8')).toBeUndefined();
  });

  it('accepts hub-style ids only', () => {
    expect(isValidModelId('Xenova/all-MiniLM-L6-v2')).toBe(true);
    expect(isValidModelId('sumlens-test/tiny-ner')).toBe(true);
    for (const bad of [
      'all-MiniLM',
      '../x/y',
      'a/../b',
      '/abs/path',
      'a/b/c',
      'a/.hidden',
      'a b/c',
    ]) {
      expect(isValidModelId(bad), bad).toBe(false);
    }
  });
});

describe('backend labels', () => {
  it('keeps model, dtype and device in the history chip', () => {
    expect(shortBackend('transformers.js Xenova/all-MiniLM-L6-v2 · q8 · WASM')).toBe(
      'all-MiniLM-L6-v2 q8 WASM',
    );
    expect(
      shortBackend('transformers.js sumlens-test/tiny-ner · fp32 · WebGPU (software adapter)'),
    ).toBe('tiny-ner fp32 WebGPU');
    expect(shortBackend('compromise-14.17 (+dates)')).toBe('compromise-14.17');
  });

  it('warns that a names-only NER model finds fewer entities than the target assumes', () => {
    expect(labelCoverageNote(['PER', 'ORG', 'LOC', 'MISC'])).toMatch(
      /PERSON, ORG, PLACE, MISC only \(no date, cardinal, money, percent\)/u,
    );
    expect(labelCoverageNote(['PER', 'DATE', 'CARDINAL', 'MONEY', 'PERCENT'])).toBeUndefined();
  });
});

describe('model cache bookkeeping', () => {
  it('recognises hub and self-hosted model URLs', () => {
    expect(
      modelIdFromUrl('https://huggingface.co/Xenova/bert-base-NER/resolve/main/onnx/model.onnx'),
    ).toBe('Xenova/bert-base-NER');
    expect(modelIdFromUrl('http://127.0.0.1:4173/models/sumlens-test/tiny-ner/config.json')).toBe(
      'sumlens-test/tiny-ner',
    );
    expect(modelIdFromUrl('http://127.0.0.1:4173/vendor/ort/x.wasm')).toBeUndefined();
  });
});
