/**
 * The page's one language worker (workers/language.worker.ts), started on first use and shared by
 * the single-case form and the runs that execute in the page. cld3 stays in that worker; when it
 * cannot start or answer, the texts' scripts decide, so scoring never waits on it.
 */
import { detectLanguage, detectLanguages, type TextLanguage } from '../metrics/text/language.ts';
import { languageApi } from './language-api.ts';
import { WorkerClient } from './rpc.ts';

let client: WorkerClient<typeof languageApi.methods> | undefined;

function languageWorker(): WorkerClient<typeof languageApi.methods> {
  client ??= new WorkerClient(
    languageApi,
    new Worker(new URL('../../../workers/language.worker.ts', import.meta.url), {
      type: 'module',
      name: 'language',
    }),
  );
  return client;
}

/**
 * Starts the worker (and cld3's load in it) without asking anything: on a fresh page, detection
 * waited for cld3 to load and was 200–250 ms of the time from Score to the first result.
 */
export function startLanguageWorker(): void {
  languageWorker();
}

/** The language of one text (a case's source and summary). */
export async function detectInWorker(text: string): Promise<TextLanguage> {
  try {
    return await languageWorker().call('detect', { text });
  } catch {
    return detectLanguage(text);
  }
}

/**
 * The words of a text box, counted in the worker; undefined when the worker cannot answer (the
 * page never counts a long text on its own thread).
 */
export async function countWordsInWorker(text: string): Promise<number | undefined> {
  try {
    return await languageWorker().call('countWords', { text });
  } catch {
    return undefined;
  }
}

/** The language of each text, in one message to the worker (a chunk of a run's rows). */
export async function detectManyInWorker(texts: string[]): Promise<TextLanguage[]> {
  try {
    return await languageWorker().call('detectMany', { texts });
  } catch {
    return detectLanguages(texts);
  }
}
