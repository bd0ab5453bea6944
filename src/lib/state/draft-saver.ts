/**
 * Keeps what was typed across a reload or a crash: the draft is written a moment after the last
 * keystroke rather than on every one, and at once before a reload into a new version.
 */
import { messageOf } from '../errors.ts';
import type { CaseTexts } from '../metrics/types.ts';
import { saveDraft } from '../storage/cases.ts';

const PAUSE_MS = 400;

export class DraftSaver {
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onError: (message: string) => void;

  constructor(onError: (message: string) => void) {
    this.#onError = onError;
  }

  /** Writes the texts `take` returns once typing has paused. */
  schedule(take: () => CaseTexts): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      saveDraft({ input: take(), savedAt: Date.now() }).catch((error: unknown) =>
        this.#onError(messageOf(error)),
      );
    }, PAUSE_MS);
  }

  async saveNow(input: CaseTexts): Promise<void> {
    clearTimeout(this.#timer);
    try {
      await saveDraft({ input, savedAt: Date.now() });
    } catch (error) {
      this.#onError(messageOf(error));
    }
  }
}
