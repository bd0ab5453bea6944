/**
 * Reading a Chrome trace the benches record (bench/responsive.ts, bench/long-paste.ts): its
 * events, and a page's clock in it, so that a task's CPU time lines up with the page's own
 * `performance.now()` marks.
 */

/** Tasks and User Timing marks only: cheap enough not to change what is measured. */
export const LIGHT_TRACE = ['toplevel', 'blink.user_timing', '__metadata'];

export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { data?: { startTime?: number } };
}

export function traceEvents(trace: Buffer): TraceEvent[] {
  const parsed = JSON.parse(trace.toString('utf8')) as TraceEvent[] | { traceEvents: TraceEvent[] };
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

/** A document's main thread in the trace, and its clock: trace ms = page ms + offset. */
export interface PageClock {
  pid: number;
  tid: number;
  offset: number;
}

/**
 * The bench marks each document it loads (set from the page): the mark's trace event carries both
 * the trace timestamp (µs) and `performance.now()` (ms), and names the thread.
 */
export function clockOf(events: readonly TraceEvent[], mark: string): PageClock {
  const event = events.find((e) => e.name === mark && e.args?.data?.startTime !== undefined);
  if (!event) throw new Error(`The trace has no ${mark} mark.`);
  return { pid: event.pid, tid: event.tid, offset: event.ts / 1000 - event.args!.data!.startTime! };
}
