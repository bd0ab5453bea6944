/**
 * The Chinese word segmenter (jieba) every worker that counts words shares. A module of its own so
 * that the lexical worker, which needs nothing else of backends.ts, starts without the recogniser
 * and embedder code.
 */
import { loadJiebaBrowser } from '../src/lib/metrics/lexical/jieba.ts';
import type { WordSegmenter } from '../src/lib/metrics/lexical/cjk-words.ts';
import { cachedFetch } from '../src/lib/pwa/cached-fetch.ts';
import { RUNTIMES_CACHE } from '../src/lib/pwa/cache-names.ts';

const JIEBA_WASM_URL = `${import.meta.env.BASE_URL}vendor/jieba/jieba_rs_wasm_bg.wasm`;

/**
 * Loaded once, on the first text with CJK; a failed load is not retried in this worker. The wasm
 * (4 MB) is not precached: kept in the runtimes cache on this first use (src/lib/pwa/).
 */
let jieba: Promise<WordSegmenter> | undefined;
export const wordSegmenter = (): Promise<WordSegmenter> =>
  (jieba ??= loadJiebaBrowser(JIEBA_WASM_URL, (url) =>
    cachedFetch(new URL(url, self.location.origin), RUNTIMES_CACHE),
  ));
