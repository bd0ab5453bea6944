/**
 * Answers kept the moment they arrive. A judge call may take several HTTP requests (samples
 * spread over calls, a repair round) and is stored in the response cache only when it is done:
 * a page reloaded in between would lose answers it has already paid for, and the resumed run
 * would buy them again. So every 2xx body is written to the cache's ArrivalStore as soon as it is
 * read (keys redacted), before it is parsed, and a request whose answer is there is not sent.
 *
 * A request is known by the call's cache key, the request itself (without the fence ids drawn
 * per call) and how many identical requests the same call made before it: the 20 samples of a
 * G-Eval form are 20 identical requests, and three of them answered are three fewer to send.
 *
 * The arrivals of a call are dropped once its answer is stored, or once the answer is found
 * unusable (asked again next time, as an uncached answer is); a call that ended otherwise
 * (cancelled, paused by a dead key, cut off by the network) keeps them for the resumed run.
 */
import { fencelessJson, sha256Hex, type ArrivalStore } from './cache.ts';
import type { WireCall } from './providers/shared.ts';
import { LlmError, type LlmErrorKind, type ProviderConfig } from './types.ts';

/** Endings that say the answers themselves are no use: asking again may give better ones. */
const UNUSABLE: ReadonlySet<LlmErrorKind> = new Set<LlmErrorKind>([
  'malformed-output',
  'refusal',
  'content-filter',
  'truncated',
]);

/** The arrivals of one judge call. */
export class ArrivalJournal {
  /** Identical requests so far, by shape. */
  private readonly seen = new Map<string, number>();
  /** Store keys by place, and every key this call read or wrote. */
  private readonly keys = new Map<string, Promise<string>>();

  constructor(
    private readonly store: ArrivalStore,
    private readonly callKey: string,
    private readonly config: ProviderConfig,
  ) {}

  /**
   * A request's place in its call. Taken when the request is made, before any wait, so that
   * identical requests are numbered in the order the call makes them, in every session.
   */
  place(call: WireCall): string {
    const shape = fencelessJson(call);
    const nth = this.seen.get(shape) ?? 0;
    this.seen.set(shape, nth + 1);
    return `${shape}#${nth}`;
  }

  private keyOf(place: string): Promise<string> {
    let key = this.keys.get(place);
    if (!key) {
      key = sha256Hex(`${this.callKey}|${place}`).then((hash) => `arrival:${hash}`);
      this.keys.set(place, key);
    }
    return key;
  }

  /** The answer an earlier session received for this place, if it kept one. */
  async received(place: string): Promise<string | undefined> {
    try {
      return await this.store.get(await this.keyOf(place));
    } catch {
      return undefined;
    }
  }

  /** Keeps an answer that just arrived; a store that fails loses nothing but the reload case. */
  async keep(place: string, text: string): Promise<void> {
    try {
      await this.store.set(await this.keyOf(place), text, {
        provider: this.config.kind,
        model: this.config.model,
      });
    } catch {
      // The answer is in hand: a full disk must not fail the call that bought it.
    }
  }

  /** The call is over: its answer is stored (`stored`) or failed with `error`. */
  async settle(outcome: { stored: boolean } | { error: unknown }): Promise<void> {
    const drop =
      'stored' in outcome
        ? outcome.stored
        : outcome.error instanceof LlmError && UNUSABLE.has(outcome.error.kind);
    if (!drop || this.keys.size === 0) return;
    const keys = await Promise.all(this.keys.values());
    await this.store.delete(keys).catch(() => undefined);
  }
}
