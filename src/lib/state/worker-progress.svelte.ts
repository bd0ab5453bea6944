/**
 * The model-loading progress the page shows: one row per metric worker and file, so a model's
 * several files each get their own bar, and a worker's rows go when it is done.
 */
import type { Progress } from '../workers/worker-client.ts';

export class WorkerProgress {
  /** Keyed `needs|file`. */
  rows = $state.raw<Record<string, Progress>>({});

  set(needs: string, progress: Progress): void {
    const key = `${needs}|${progress.file ?? ''}`;
    // A stage without a file (e.g. "warming up") replaces the worker's finished file rows.
    const rest =
      progress.file === undefined
        ? Object.fromEntries(
            Object.entries(this.rows).filter(
              ([k, p]) => !k.startsWith(`${needs}|`) || (p.total && (p.loaded ?? 0) < p.total),
            ),
          )
        : this.rows;
    this.rows = { ...rest, [key]: progress };
  }

  clear(needs: string): void {
    const kept = Object.entries(this.rows).filter(([k]) => !k.startsWith(`${needs}|`));
    if (kept.length === Object.keys(this.rows).length) return;
    this.rows = Object.fromEntries(kept);
  }
}
