/**
 * The language of the case in the form: detected in the language worker when Score is pressed
 * (cld3 stays out of the page's bundle; the engine asks it), or chosen by the user, whose choice is stored with the
 * case (`languageChosen`) and restored when it is reopened. A worker that fails falls back to the
 * script of the texts, so scoring never waits on it.
 */
import { spreadSample } from '../input/long-text.ts';
import { languageSample, type LanguageBasis, type TextLanguage } from '../metrics/text/language.ts';
import type { CaseInput } from '../metrics/types.ts';

/** Characters of each stretch of a long text that detection reads. */
const SAMPLE_WINDOW_CHARS = 4_000;

/**
 * What the case's language is detected on: the source's start, middle and end (4,000 characters
 * each) and the summary's start. cld3 is as sure of a language after about a thousand characters
 * as after the whole text (its cost grows with the text: a 1.8 M-character source kept Score
 * waiting for seconds); three stretches spread over the source still see a text whose start is in
 * another language than its body (a preface, a quoted abstract), which its start alone would not.
 */
export function caseLanguageSample(texts: { source: string; summary: string }): string {
  return languageSample({
    source: spreadSample(texts.source, SAMPLE_WINDOW_CHARS, 3),
    summary: spreadSample(texts.summary, SAMPLE_WINDOW_CHARS, 1),
  });
}

/** 'auto' or a BCP-47 primary subtag. */
export type LanguageChoice = 'auto' | (string & {});

export class CaseLanguage {
  choice = $state<LanguageChoice>('auto');
  /** What detection found for the texts last scored; null before the first Score. */
  detected = $state<TextLanguage | null>(null);
  detecting = $state(false);

  /** What the page shows: the chosen language, else the detected one. */
  get shown(): TextLanguage | null {
    if (this.choice !== 'auto') return { code: this.choice, basis: 'chosen' };
    return this.detected;
  }

  /**
   * The case's language fields: unless the user chose, `detect` (the engine's language worker)
   * reads the case's sample.
   */
  async forCase(
    texts: { source: string; summary: string },
    detect: (sample: string) => Promise<TextLanguage>,
  ): Promise<Pick<CaseInput, 'language' | 'languageChosen'>> {
    if (this.choice !== 'auto') return { language: this.choice, languageChosen: true };
    this.detecting = true;
    try {
      this.detected = await detect(caseLanguageSample(texts));
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

  /**
   * A stored case's language, as it was scored. `basis` says how a language that was not chosen
   * was found (a data-set row records 'script' when cld3 could not tell); default 'detected'.
   */
  restore(
    input: Pick<CaseInput, 'language' | 'languageChosen'>,
    basis: Exclude<LanguageBasis, 'chosen'> = 'detected',
  ): void {
    this.choice = input.languageChosen && input.language ? input.language : 'auto';
    this.detected =
      input.language && !input.languageChosen ? { code: input.language, basis } : null;
  }
}
