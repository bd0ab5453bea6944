/**
 * A text box's word count, counted off the page's thread (the language worker) a moment after the
 * text stops changing: Intl.Segmenter takes about a second over a 300,000-word paste, which on the
 * page's thread would freeze typing in every box. While a count is pending the box says
 * "counting…", except after a small edit, where the last count stays (it is off by a few words
 * for a quarter of a second, rather than flickering at each keystroke).
 */

/** Counts the words of a text; undefined when it cannot. */
export type CountWords = (text: string) => Promise<number | undefined>;

/** The pause after the last change before a text is counted. */
export const COUNT_DELAY_MS = 250;
/** A change of fewer characters than this keeps the last count on screen while it is redone. */
const SMALL_EDIT_CHARS = 1_000;

export type WordCountShown =
  | { state: 'counted'; words: number }
  | { state: 'counting' }
  /** The worker could not count: the box shows no count rather than a wrong one. */
  | { state: 'unknown' };

export class WordCount {
  /** The words of the text last counted; undefined before the first count. */
  #words = $state<number | undefined>();
  #pending = $state(false);
  #failed = $state(false);
  /** The length of the text the shown count belongs to. */
  #countedLength = 0;
  /** The length of the text now in the box. */
  #length = $state(0);
  #counted: string | undefined;
  #asked = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #count: CountWords;

  constructor(count: CountWords) {
    this.#count = count;
  }

  /** What the box shows now. */
  get shown(): WordCountShown {
    if (this.#pending) {
      const small = Math.abs(this.#length - this.#countedLength) < SMALL_EDIT_CHARS;
      if (!small || this.#words === undefined) return { state: 'counting' };
    }
    if (this.#failed) return { state: 'unknown' };
    return this.#words === undefined
      ? { state: 'counting' }
      : { state: 'counted', words: this.#words };
  }

  /** True from a change until its count is on screen. */
  get pending(): boolean {
    return this.#pending;
  }

  /** The box now holds `text`: counts it once it stops changing (an empty text at once). */
  update(text: string): void {
    clearTimeout(this.#timer);
    this.#length = text.length;
    if (text === this.#counted) {
      this.#asked++;
      this.#pending = false;
      return;
    }
    if (text.trim() === '') {
      this.#asked++;
      this.#settle(text, 0);
      return;
    }
    this.#pending = true;
    this.#timer = setTimeout(() => void this.#countNow(text), COUNT_DELAY_MS);
  }

  /** Stops a pending count (the box is gone). */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#asked++;
  }

  async #countNow(text: string): Promise<void> {
    const asked = ++this.#asked;
    const words = await this.#count(text);
    // A newer text was given meanwhile: its own count will land.
    if (asked !== this.#asked) return;
    this.#settle(text, words);
  }

  #settle(text: string, words: number | undefined): void {
    this.#counted = text;
    this.#countedLength = text.length;
    this.#failed = words === undefined;
    this.#words = words;
    this.#pending = false;
  }
}
