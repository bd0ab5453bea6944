/**
 * Generate, then evaluate (TinyEval's two stages, its pred.py then eval.py): for prediction rows
 * that have their inputs but no prediction, a model writes the predictions first, the way
 * TinyEval's `get_pred` does:
 *
 * - the prompt is the data set's template filled with the row's fields (`dataset2prompt.json`,
 *   Python `str.format`: `fillPromptTemplate`);
 * - a prompt longer than the model's prompt length (`model2maxlen.json`) loses its MIDDLE: the
 *   first and last halves of the budget are kept and joined, since the instructions sit at the
 *   start and the question at the end. TinyEval counts tokens with the model's tokenizer; the
 *   page has none, so tokens are estimated (`estimateTokens`: about 4 characters per token in
 *   English, one per CJK character, erring long) and the UI says so;
 * - greedy decoding: temperature 0, one sample, at most `maxNewTokens` new tokens
 *   (`dataset2maxlen.json`); the prompt goes as one user turn (the provider applies the model's
 *   chat template, as pred.py's `build_chat` does).
 *
 * Each prediction is stored with its row as soon as it arrives (storage/predictions.ts), with the
 * provider, model and whether the prompt was cut. Rows that already have one are skipped, so a
 * reload or a stop resumes where it stopped and nothing is generated twice. A row whose call
 * fails keeps its reason and stays without a prediction (a later start retries it); errors that
 * every other row would hit too (a bad key, no quota, an unknown model, an unreachable server)
 * stop the run with the provider's message instead of failing every row.
 *
 * Framework-free: the page drives it (`generateStoredPredictions`), tests pass a scripted judge
 * and an in-memory store (`generatePredictions`).
 *
 * Prompts and settings live in prompt.ts, the plan in plan.ts, the runner in runner.ts; this
 * module adds the stored data sets' side.
 */
import {
  recountMissingPredictions,
  rowsNeedingPrediction,
  storeGeneratedPrediction,
  storeGenerationFailure,
} from '../../storage/predictions.ts';
import { exclusively } from '../lanes.ts';
import {
  generatePredictions,
  type GenerateOptions,
  type GenerationOutcome,
  type PredictionStore,
} from './runner.ts';

/** The IndexedDB store of one data set's predictions. */
export function indexedDbPredictionStore(datasetId: string): PredictionStore {
  return {
    put: (row, prediction, generation) =>
      storeGeneratedPrediction(datasetId, row, prediction, generation),
    fail: (row, generation) => storeGenerationFailure(datasetId, row, generation),
  };
}

export type StoredGenerateOptions = Omit<GenerateOptions, 'rows' | 'total' | 'store'> & {
  store?: PredictionStore;
};

/**
 * Generates the missing predictions of a stored data set: the rows still without one, each
 * stored as it arrives. The same call after a reload or a stop goes on where it stopped. One
 * tab at a time per data set (a Web Lock), so two tabs never pay for the same rows.
 */
export async function generateStoredPredictions(
  datasetId: string,
  options: StoredGenerateOptions,
): Promise<GenerationOutcome> {
  const run = async (): Promise<GenerationOutcome> => {
    const total = await recountMissingPredictions(datasetId);
    return generatePredictions({
      ...options,
      rows: rowsNeedingPrediction(datasetId),
      total,
      store: options.store ?? indexedDbPredictionStore(datasetId),
    });
  };
  return exclusively(
    `sumlens-generate:${datasetId}`,
    'Predictions for this data set are being generated in another tab or window: pause or close it there first.',
    run,
  );
}
