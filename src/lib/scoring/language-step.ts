/**
 * Language detection for the engine: cld3 in the page's one language worker, a sample of a case
 * or a chunk of a run's rows per message. The worker client falls back to the texts' scripts, so
 * scoring never waits on a worker that cannot answer; tests pass a detector of their own.
 */
import type { TextLanguage } from '../metrics/text/language.ts';
import {
  detectInWorker,
  detectManyInWorker,
  startLanguageWorker,
} from '../workers/language-client.ts';

export interface LanguageDetector {
  /** Starts the detector ahead of the first question (cld3 takes a while to load). */
  start(): void;
  detect(text: string): Promise<TextLanguage>;
  detectMany(texts: string[]): Promise<TextLanguage[]>;
}

export const workerLanguageDetector: LanguageDetector = {
  start: startLanguageWorker,
  detect: detectInWorker,
  detectMany: detectManyInWorker,
};
