/**
 * The tiny generated models (`npm run models:test`) loaded with transformers.js in Node, the way
 * the workers load them in the browser. Fails loudly when they were not generated: `npm test`
 * always generates them first, so a missing model is a broken set-up, not a reason to skip.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { env, pipeline } from '@huggingface/transformers';
import { repoRoot } from './shared.ts';
import type {
  FeatureExtractionPipelineLike,
  TokenClassificationPipelineLike,
} from '../../src/lib/metrics/semantic/transformers-adapters.ts';

export const TINY_MODEL_ROOT = resolve(repoRoot, 'tests/fixtures/models');
export const TINY_EMBEDDING = 'sumlens-test/tiny-embedding';
export const TINY_NER = 'sumlens-test/tiny-ner';

function useLocalModels(): void {
  for (const id of [TINY_EMBEDDING, TINY_NER]) {
    if (!existsSync(resolve(TINY_MODEL_ROOT, id, 'onnx/model.onnx'))) {
      throw new Error(
        `The generated test model ${id} is missing under ${TINY_MODEL_ROOT}: run \`npm run models:test\` (needs Debian's python3-onnx and python3-numpy).`,
      );
    }
  }
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = `${TINY_MODEL_ROOT}/`;
}

export async function tinyEmbeddingPipeline(
  dtype: 'fp32' | 'q8' = 'fp32',
): Promise<FeatureExtractionPipelineLike & { dispose(): Promise<void> }> {
  useLocalModels();
  return (await pipeline('feature-extraction', TINY_EMBEDDING, { dtype })) as never;
}

export async function tinyNerPipeline(
  dtype: 'fp32' | 'q8' = 'fp32',
): Promise<TokenClassificationPipelineLike & { dispose(): Promise<void> }> {
  useLocalModels();
  return (await pipeline('token-classification', TINY_NER, { dtype })) as never;
}
