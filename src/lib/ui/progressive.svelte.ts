/**
 * A long list put into the page a step at a time: how many of its items to render. None at
 * first, then `step` more per task (each after a frame, see after-paint.ts) until `target()`, and
 * back to none whenever `key()` changes (another run opened). Building a table of hundreds of
 * rows, and laying it out, in one task blocks the page for longer than 50 ms; in steps, the page
 * answers between them. Call it while a component initialises (it owns an effect).
 */
import { afterPaint } from './after-paint.ts';

export interface Progress {
  /** Items to render now. */
  readonly count: number;
}

export function progressive(target: () => number, step: number, key: () => unknown): Progress {
  let built = $derived.by(() => {
    key();
    return 0;
  });
  $effect(() => {
    const wanted = target();
    if (built >= wanted) return;
    const next = Math.min(wanted, built + step);
    return afterPaint(() => (built = next));
  });
  return {
    get count() {
      return built;
    },
  };
}
