/**
 * Thin adapters from transformers.js pipelines to the metric backends' interfaces. Kept apart
 * from the worker so Node tests run the very same code on onnxruntime-node.
 *
 * The token-classification adapter calls the pipeline's tokenizer and model directly: the pipeline
 * itself drops 'O' tokens and character offsets, and the recogniser needs every token to place
 * entities exactly in the text.
 */
import type { FeatureExtractor } from './transformer-embedder.ts';
import type { TokenClassifier } from './transformer-ner.ts';

interface TensorLike {
  data: ArrayLike<number>;
  dims: readonly number[];
}

/** The parts of a transformers.js tokenizer used here (structural, to stay version-tolerant). */
interface TokenizerLike {
  (text: string, options: { truncation: boolean }): Record<string, unknown>;
  tokenize(text: string, options: { add_special_tokens: boolean }): string[];
  all_special_tokens: string[];
  unk_token?: string | null;
  model_max_length: number;
  _tokenizerJSON?: {
    model?: { type?: string; continuing_subword_prefix?: string | null };
    pre_tokenizer?: { type?: string; pretokenizers?: Array<{ type?: string }> } | null;
  };
}

interface TokenClassificationModelLike {
  (inputs: Record<string, unknown>): Promise<{ logits: TensorLike }>;
  config: { id2label?: Record<string, string>; max_position_embeddings?: number };
}

export interface TokenClassificationPipelineLike {
  tokenizer: unknown;
  model: unknown;
}

export type FeatureExtractionPipelineLike = (
  texts: string[],
  options: { pooling: 'mean'; normalize: boolean },
) => Promise<TensorLike>;

export function featureExtractor(pipe: FeatureExtractionPipelineLike): FeatureExtractor {
  return async (texts, options) => {
    const tensor = await pipe(texts, options);
    return { data: tensor.data, dims: tensor.dims };
  };
}

/** Which way the tokenizer marks word boundaries, read from its tokenizer.json. */
function wordMarking(tokenizer: TokenizerLike): {
  continuationPrefix?: string;
  wordStartMarker?: string;
} {
  const model = tokenizer._tokenizerJSON?.model;
  if (model?.type === 'WordPiece')
    return { continuationPrefix: model.continuing_subword_prefix ?? '##' };
  const pre = tokenizer._tokenizerJSON?.pre_tokenizer;
  const preTypes = [pre?.type, ...(pre?.pretokenizers ?? []).map((p) => p.type)];
  if (preTypes.includes('ByteLevel')) return { wordStartMarker: 'Ġ' };
  if (model?.type === 'Unigram' || preTypes.includes('Metaspace')) return { wordStartMarker: '▁' };
  // Unknown: assume WordPiece, the format of every BERT NER model.
  return { continuationPrefix: '##' };
}

function softmaxArgmax(row: ArrayLike<number>, offset: number, width: number): [number, number] {
  let best = 0;
  let max = -Infinity;
  for (let k = 0; k < width; k++) {
    const v = row[offset + k]!;
    if (v > max) {
      max = v;
      best = k;
    }
  }
  let sum = 0;
  for (let k = 0; k < width; k++) sum += Math.exp(row[offset + k]! - max);
  return [best, 1 / sum];
}

export function tokenClassifier(pipe: TokenClassificationPipelineLike): TokenClassifier {
  const tokenizer = pipe.tokenizer as TokenizerLike;
  const model = pipe.model as TokenClassificationModelLike;
  const id2label = model.config.id2label ?? {};
  const maxTokens = Math.min(
    Number.isFinite(tokenizer.model_max_length) ? tokenizer.model_max_length : 512,
    model.config.max_position_embeddings ?? 512,
  );
  const entityTypes = [
    ...new Set(
      Object.values(id2label)
        .filter((label) => label !== 'O')
        .map((label) => label.replace(/^[BIES][-_]/u, '')),
    ),
  ];
  return {
    ...wordMarking(tokenizer),
    entityTypes,
    maxTokens,
    specialTokens: new Set(tokenizer.all_special_tokens),
    ...(tokenizer.unk_token ? { unknownToken: tokenizer.unk_token } : {}),
    tokenize: (text) => tokenizer.tokenize(text, { add_special_tokens: true }),
    async classify(text) {
      const inputs = tokenizer(text, { truncation: true });
      const { logits } = await model(inputs);
      const [, length = 0, width = 0] = logits.dims;
      const tokens = tokenizer.tokenize(text, { add_special_tokens: true }).slice(0, length);
      const labels: string[] = [];
      const scores: number[] = [];
      for (let t = 0; t < tokens.length; t++) {
        const [best, probability] = softmaxArgmax(logits.data, t * width, width);
        labels.push(id2label[best] ?? `LABEL_${best}`);
        scores.push(probability);
      }
      return { tokens, labels, scores };
    },
  };
}
