/**
 * The app's USE-lite (the shared core: Google's tokenizer, the TF.js graph runner, batching sorted by
 * length) gives Google's reference `UniversalSentenceEncoder.embed` vectors, within 1e-4 per
 * dimension, on real news sentences.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUseLiteEmbedder, type NodeUseLiteEmbedder } from '../../../src/lib/node/load-use.ts';
import { USE_LITE_WINDOW } from '../../../src/lib/metrics/semantic/use-lite.ts';
import {
  maxAbsDifference,
  referenceEncoder,
  summevalSentences,
} from '../../helpers/use-reference.ts';

describe('USE-lite in Node against the reference encoder', () => {
  let reference: Awaited<ReturnType<typeof referenceEncoder>>;
  let app: NodeUseLiteEmbedder;
  let sentences: string[];

  beforeAll(async () => {
    app = await loadUseLiteEmbedder();
    reference = await referenceEncoder();
    // Sentences longer than the window are averaged over windows by design (tested with a fake
    // graph in use-lite.test.ts), which the reference does not do.
    sentences = summevalSentences(230).filter((s) => reference.tokenCount(s) <= USE_LITE_WINDOW);
  }, 60_000);
  afterAll(() => reference?.close());

  it('agrees within 1e-4 per dimension', async () => {
    expect(sentences.length).toBeGreaterThanOrEqual(200);
    const [ours, theirs] = [await app.embed(sentences), await reference.embed(sentences)];
    expect(ours).toHaveLength(sentences.length);
    expect(maxAbsDifference(ours, theirs)).toBeLessThan(1e-4);
    // Not trivially equal: the vectors differ between sentences.
    expect(maxAbsDifference([ours[0]], [ours[1]])).toBeGreaterThan(0.05);
  }, 240_000);
});
