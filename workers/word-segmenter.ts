/**
 * The Chinese word segmenter (jieba) every worker that counts words shares. A module of its own so
 * that the lexical worker, which needs nothing else of backends.ts, starts without the recogniser
 * and embedder code.
 */
import { loadJiebaBrowser } from '../src/lib/metrics/lexical/jieba.ts';
import type { WordSegmenter } from '../src/lib/metrics/lexical/cjk-words.ts';

const JIEBA_WASM_URL = `${import.meta.env.BASE_URL}vendor/jieba/jieba_rs_wasm_bg.wasm`;

/** Loaded once, on the first text with CJK; a failed load is not retried in this worker. */
let jieba: Promise<WordSegmenter> | undefined;
export const wordSegmenter = (): Promise<WordSegmenter> =>
  (jieba ??= loadJiebaBrowser(JIEBA_WASM_URL));
