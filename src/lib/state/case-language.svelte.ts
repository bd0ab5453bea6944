/**
 * The language of the case in the form: detected in the language worker when Score is pressed
 * (cld3 stays out of the page's bundle), or chosen by the user, whose choice is stored with the
 * case (`languageChosen`) and restored when it is reopened. A worker that fails falls back to the
 * script of the texts, so scoring never waits on it.
 */
import { detectLanguage, languageSample, type TextLanguage } from '../metrics/text/language.ts';
import type { CaseInput } from '../metrics/types.ts';
import { languageApi } from '../workers/language-api.ts';
import { WorkerClient } from '../workers/rpc.ts';

/** 'auto' or a BCP-47 primary subtag. */
export type LanguageChoice = 'auto' | (string & {});

export class CaseLanguage {
  choice = $state<LanguageChoice>('auto');
  /** What detection found for the texts last scored; null before the first Score. */
  detected = $state<TextLanguage | null>(null);
  detecting = $state(false);
  #client: WorkerClient<typeof languageApi.methods> | undefined;

  /** What the page shows: the chosen language, else the detected one. */
  get shown(): TextLanguage | null {
    if (this.choice !== 'auto') return { code: this.choice, basis: 'chosen' };
    return this.detected;
  }

  async #detect(text: string): Promise<TextLanguage> {
    try {
      this.#client ??= new WorkerClient(
        languageApi,
        new Worker(new URL('../../../workers/language.worker.ts', import.meta.url), {
          type: 'module',
          name: 'language',
        }),
      );
      return await this.#client.call('detect', { text });
    } catch {
      return detectLanguage(text);
    }
  }

  /** The case's language fields: detects unless the user chose. */
  async forCase(texts: {
    source: string;
    summary: string;
  }): Promise<Pick<CaseInput, 'language' | 'languageChosen'>> {
    if (this.choice !== 'auto') return { language: this.choice, languageChosen: true };
    this.detecting = true;
    try {
      this.detected = await this.#detect(languageSample(texts));
    } finally {
      this.detecting = false;
    }
    return this.detected.code === 'und' ? {} : { language: this.detected.code };
  }

  /** The language fields as the last Score found them (or as chosen): for the staleness key. */
  get current(): Pick<CaseInput, 'language' | 'languageChosen'> {
    if (this.choice !== 'auto') return { language: this.choice, languageChosen: true };
    return this.detected && this.detected.code !== 'und' ? { language: this.detected.code } : {};
  }

  /** A stored case's language, as it was scored. */
  restore(input: Pick<CaseInput, 'language' | 'languageChosen'>): void {
    this.choice = input.languageChosen && input.language ? input.language : 'auto';
    this.detected =
      input.language && !input.languageChosen ? { code: input.language, basis: 'detected' } : null;
  }
}
