/**
 * Work for the page split into tasks: each job queued here runs in a task of its own, in the order
 * queued, after the next frame. A run view that built its tables and drew its three charts in one
 * task blocked the page for far longer than 50 ms; queued, each chart (tens of milliseconds of
 * chart.js) and each step of a long table gets its own task, and since the browser has laid out
 * the view by then, a chart's own measuring does not force that layout into the chart's task.
 */
type Job = () => void;

const queue: Job[] = [];
let scheduled = false;

function runNext(): void {
  scheduled = false;
  const job = queue.shift();
  // A job that throws (a chart on a detached canvas) must not stop the ones after it.
  try {
    job?.();
  } finally {
    schedule();
  }
}

function schedule(): void {
  if (scheduled || queue.length === 0) return;
  scheduled = true;
  // A timer from a frame callback runs after that frame's layout and paint.
  if (typeof requestAnimationFrame === 'function') {
    requestAnimationFrame(() => setTimeout(runNext, 0));
  } else {
    setTimeout(runNext, 0);
  }
}

/** Queues `job`; the returned function takes it off the queue if it has not run yet. */
export function afterPaint(job: Job): () => void {
  const entry: Job = () => job();
  queue.push(entry);
  schedule();
  return () => {
    const at = queue.indexOf(entry);
    if (at >= 0) queue.splice(at, 1);
  };
}
