/**
 * Node-only: the transformer models the validity report adds rows for. Any transformers.js model
 * folder under public/models (or `--models DIR`) becomes one more way of running the model
 * metrics, on CPU through onnxruntime-node, so a model's agreement with people is measured the
 * same way as the built-in backends'.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { repoRoot } from '../external-data.ts';
import type { OfflineBackends } from '../../metrics/offline.ts';
import type { EntityRecognizer, SentenceEmbedder } from '../../metrics/semantic/backends.ts';
import { TransformerEmbedder } from '../../metrics/semantic/transformer-embedder.ts';
import { TransformerRecognizer } from '../../metrics/semantic/transformer-ner.ts';
import {
  featureExtractor,
  tokenClassifier,
  type FeatureExtractionPipelineLike,
  type TokenClassificationPipelineLike,
} from '../../metrics/semantic/transformers-adapters.ts';
import type { MetricId } from '../../metrics/types.ts';

export const DEFAULT_MODELS_DIR = resolve(repoRoot, 'public/models');

/** A transformers.js model folder: `<dir>/<owner>/<name>/config.json` and ONNX weights. */
export interface FoundModel {
  id: string;
  task: 'feature-extraction' | 'token-classification';
  dtype: 'q8' | 'fp32';
}

export function findModels(dir: string): FoundModel[] {
  if (!existsSync(dir)) return [];
  const found: FoundModel[] = [];
  for (const owner of readdirSync(dir, { withFileTypes: true })) {
    if (!owner.isDirectory()) continue;
    for (const name of readdirSync(resolve(dir, owner.name), { withFileTypes: true })) {
      const folder = resolve(dir, owner.name, name.name);
      const config = resolve(folder, 'config.json');
      if (!name.isDirectory() || !existsSync(config)) continue;
      const dtype = existsSync(resolve(folder, 'onnx/model_quantized.onnx'))
        ? 'q8'
        : existsSync(resolve(folder, 'onnx/model.onnx'))
          ? 'fp32'
          : undefined;
      if (!dtype) continue;
      const { architectures = [] } = JSON.parse(readFileSync(config, 'utf8')) as {
        architectures?: string[];
      };
      const task = architectures.some((a) => a.endsWith('ForTokenClassification'))
        ? 'token-classification'
        : 'feature-extraction';
      found.push({ id: `${owner.name}/${name.name}`, task, dtype });
    }
  }
  return found.sort((a, b) => a.id.localeCompare(b.id));
}

/** One way of running the model metrics: the built-in backends, or one transformer model. */
export interface BackendVariant {
  key: string;
  ids: MetricId[];
  backends: OfflineBackends;
}

/** One variant per model found in `dir`: embedders score coherence, recognisers entity density. */
export async function transformerVariants(dir: string): Promise<BackendVariant[]> {
  const models = findModels(dir);
  if (models.length === 0) return [];
  const { env, pipeline } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = `${dir}/`;
  const variants: BackendVariant[] = [];
  for (const model of models) {
    const backend = `transformers.js ${model.id} · ${model.dtype} · CPU (onnxruntime-node)`;
    const slug = model.id.replace(/[^a-z0-9]+/giu, '-').toLowerCase();
    if (model.task === 'feature-extraction') {
      const pipe = (await pipeline('feature-extraction', model.id, {
        dtype: model.dtype,
      })) as unknown as FeatureExtractionPipelineLike;
      const embedder: SentenceEmbedder = new TransformerEmbedder(backend, featureExtractor(pipe));
      variants.push({
        key: slug,
        ids: ['coherence'],
        backends: { embedder: async () => embedder },
      });
    } else {
      const pipe = (await pipeline('token-classification', model.id, {
        dtype: model.dtype,
      })) as unknown as TokenClassificationPipelineLike;
      const recognizer: EntityRecognizer = new TransformerRecognizer(
        backend,
        tokenClassifier(pipe),
      );
      variants.push({
        key: slug,
        ids: ['entity-density'],
        backends: { recognizer: async () => recognizer },
      });
    }
  }
  return variants;
}
