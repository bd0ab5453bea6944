/**
 * Word that a stored run changed, to every view of it: this page, the batch worker's writes in
 * this tab, and every other tab of the origin (BroadcastChannel). A run list that only re-read
 * runs when its own tab finished something showed "running" after another tab had finished the
 * run, froze its counters during an offline spell, and showed "paused" after a resume; with these
 * notices every list re-reads the run it shows within a fraction of a second of the write.
 *
 * The same channel carries the run list's buttons to the tab that drives a run (Pause, Resume,
 * Cancel pressed in a tab that only shows it).
 */

export type RunControl = 'pause' | 'continue' | 'cancel';

export type RunNotice =
  /** A run record (status, counters, usage) was written, or the run was deleted. */
  | { type: 'changed'; runId: string }
  /** A tab that shows a run asks the tab driving it to pause, continue or cancel it. */
  | { type: 'control'; runId: string; action: RunControl };

const CHANNEL = 'sumlens-runs';

let channel: BroadcastChannel | undefined | null;
const local = new Set<(notice: RunNotice) => void>();

function broadcast(): BroadcastChannel | undefined {
  if (channel === undefined) {
    try {
      channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
    } catch {
      channel = null;
    }
    channel?.addEventListener('message', (event: MessageEvent<RunNotice>) => deliver(event.data));
  }
  return channel ?? undefined;
}

function deliver(notice: RunNotice): void {
  for (const listener of local) {
    try {
      listener(notice);
    } catch {
      // One view's failure must not keep the notice from the others.
    }
  }
}

/** Tells every view (this page and the other tabs, the sender's own listeners included). */
export function announceRun(notice: RunNotice): void {
  // The channel never delivers to its own sender: this context's listeners hear it here.
  deliver(notice);
  try {
    broadcast()?.postMessage(notice);
  } catch {
    // A closed channel (a worker shutting down): the other tabs re-read on their next poll.
  }
}

export function announceRunChange(runId: string): void {
  announceRun({ type: 'changed', runId });
}

/** Listens to every notice, from any context of the origin; returns the unsubscribe. */
export function onRunNotice(listener: (notice: RunNotice) => void): () => void {
  broadcast();
  local.add(listener);
  return () => local.delete(listener);
}
