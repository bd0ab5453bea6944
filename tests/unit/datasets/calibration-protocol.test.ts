/**
 * The calibration worker's protocol in one thread: `serveCalibration` (the worker side) and
 * `CalibrationClient` (the page side) joined by a fake channel that structured-clones every
 * message and delivers it as a later task, as postMessage does.
 */
import { describe, expect, it } from 'vitest';
import {
  CalibrationClient,
  serveCalibration,
  type CalibrationReply,
  type CalibrationRequest,
  type CalibrationWorkerLike,
  type CalibrationWorkerScope,
} from '../../../src/lib/datasets/calibration-protocol.ts';
import { calibrate, type CalibrationRow } from '../../../src/lib/datasets/calibration.ts';
import { readJsonl } from '../../helpers/shared.ts';

type Listener = (event: MessageEvent<unknown>) => void;

function channel(options: { serve?: boolean } = {}) {
  const workerListeners: Listener[] = [];
  const pageListeners: Listener[] = [];
  const errorListeners: Array<(event: ErrorEvent) => void> = [];
  const requests: unknown[] = [];
  const deliver = (listeners: Listener[], message: unknown) =>
    setTimeout(() => {
      const data = structuredClone(message);
      for (const l of listeners) l({ data } as MessageEvent<unknown>);
    }, 0);
  const scope: CalibrationWorkerScope = {
    addEventListener: (_type, listener) => workerListeners.push(listener),
    postMessage: (message) => deliver(pageListeners, message),
  };
  const worker: CalibrationWorkerLike = {
    postMessage: (message: CalibrationRequest) => {
      requests.push(message);
      deliver(workerListeners, message);
    },
    addEventListener: ((type: string, listener: Listener & ((event: ErrorEvent) => void)) => {
      if (type === 'message') pageListeners.push(listener);
      else errorListeners.push(listener);
    }) as CalibrationWorkerLike['addEventListener'],
  };
  if (options.serve ?? true) serveCalibration(scope);
  return {
    worker,
    requests,
    /** A reply as a broken or foreign worker would send it. */
    reply: (message: unknown) => deliver(pageListeners, message),
    /** Sends straight to the worker side, bypassing the client. */
    send: (message: unknown) => deliver(workerListeners, message),
    onReply: (listener: Listener) => pageListeners.push(listener),
    crash: (message: string) => {
      for (const l of errorListeners) l({ message, preventDefault() {} } as ErrorEvent);
    },
  };
}

interface DevRecord {
  id: string;
  expert_annotations: Record<string, number>[];
}

/** SummEval's 600 dev rows, a made-up metric that loosely tracks relevance, and the ratings. */
function summevalRows(): CalibrationRow[] {
  const dev = readJsonl<DevRecord>('data', 'summeval', 'dev.jsonl');
  return dev.map((r, i) => {
    const mean = (k: string) =>
      r.expert_annotations.reduce((s, a) => s + (a[k] ?? 0), 0) / r.expert_annotations.length;
    return {
      row: i + 1,
      group: r.id,
      scores: { metric: mean('relevance') + ((i * 7919) % 13) / 10, other: i % 3 === 0 ? null : i },
      human: { relevance: mean('relevance'), coherence: mean('coherence') },
    };
  });
}

describe('the calibration worker protocol', () => {
  it('answers with what calibrate gives on the page thread', async () => {
    const { worker } = channel();
    const client = new CalibrationClient(worker);
    const rows = summevalRows();
    const calibration = await client.calibrate(rows);
    expect(calibration).toEqual(calibrate(rows));
    expect(calibration.pairs).toHaveLength(4);
    expect(calibration.pairs[0].summaryLevel?.groupsUsed).toBeGreaterThan(0);
    expect(client.pending).toBe(0);
  });

  it('keeps unusable numbers as they are: calibrate leaves them out the same way', async () => {
    const { worker } = channel();
    const client = new CalibrationClient(worker);
    const rows: CalibrationRow[] = [
      { row: 1, group: 'a', scores: { m: 1 }, human: { h: 1 } },
      { row: 2, group: 'a', scores: { m: Number.NaN }, human: { h: 2 } },
      { row: 3, group: 'a', scores: { m: 3 }, human: { h: Number.POSITIVE_INFINITY } },
      { row: 4, group: 'a', scores: { m: 2 }, human: { h: 3 } },
      { row: 5, group: 'a', scores: { m: 5 }, human: { h: 2 } },
    ];
    const calibration = await client.calibrate(rows);
    expect(calibration).toEqual(calibrate(rows));
    expect(calibration.pairs[0].missingScores).toBe(1);
    expect(calibration.pairs[0].pooled.n).toBe(3);
  });

  it('answers several jobs, each with its own result', async () => {
    const { worker } = channel();
    const client = new CalibrationClient(worker);
    const rows = summevalRows();
    const [all, half] = await Promise.all([
      client.calibrate(rows),
      client.calibrate(rows.slice(0, 300)),
    ]);
    expect(all.pairs[0].pooled.n).toBe(600);
    expect(half.pairs[0].pooled.n).toBe(300);
  });

  it('rejects a malformed request with a message that says what is wrong', async () => {
    const { send, onReply } = channel();
    const reply = new Promise<CalibrationReply>((resolve) =>
      onReply((event) => resolve(event.data as CalibrationReply)),
    );
    send({ type: 'calibrate', id: 'j1', rows: [{ row: 'one', scores: {}, human: {} }] });
    const answer = await reply;
    expect(answer).toMatchObject({ type: 'error', id: 'j1' });
    expect((answer as { message: string }).message).toMatch(
      /Malformed request to the calibration worker: rows\.0\.row/u,
    );
  });

  it('fails a job whose reply cannot be read, and ignores replies to no job', async () => {
    const { worker, requests, reply } = channel({ serve: false });
    const client = new CalibrationClient(worker);
    const job = client.calibrate([]);
    const id = (requests[0] as CalibrationRequest).id;
    reply({ type: 'calibration', id: 'nobody', calibration: { metrics: [] } });
    reply({ type: 'calibration', id, calibration: { metrics: 'not a list' } });
    await expect(job).rejects.toThrow(/could not be read/u);
    expect(client.pending).toBe(0);
  });

  it('passes on the worker’s own error for a job', async () => {
    const { worker, requests, reply } = channel({ serve: false });
    const client = new CalibrationClient(worker);
    const job = client.calibrate([]);
    reply({ type: 'error', id: (requests[0] as CalibrationRequest).id, message: 'out of memory' });
    await expect(job).rejects.toThrow('out of memory');
  });

  it('fails every waiting job when the worker stops', async () => {
    const { worker, crash } = channel({ serve: false });
    const client = new CalibrationClient(worker);
    const jobs = [client.calibrate([]), client.calibrate([])];
    crash('Uncaught SyntaxError');
    for (const job of jobs) {
      await expect(job).rejects.toThrow(/calibration worker stopped: Uncaught SyntaxError/u);
    }
    expect(client.pending).toBe(0);
  });
});
