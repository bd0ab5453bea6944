/**
 * `npm run score -- --batch KIND`: the judge's requests for every row go to the provider's batch
 * API first (half price, answered within a day), and the rows are then scored from the answers.
 */
import type { BatchEvent } from '../lib/llm/batch/engine.ts';
import type { BatchKind } from '../lib/llm/batch/kinds.ts';
import type { Judge } from '../lib/llm/types.ts';
import type { JudgeMetricId } from '../lib/metrics/types.ts';
import type { CaseRow } from '../lib/rows/formats.ts';
import { FileJobStore, FileMissSpool } from './disk-cache.ts';
import { runJudge, runWideReason, type JudgeSetup } from './score-judge.ts';
import type { Options } from './score-options.ts';
import type { RunStop } from './stop.ts';

export interface JudgeBatchRun {
  setup: Required<JudgeSetup>;
  judgeIds: JudgeMetricId[];
  cases: CaseRow[];
  options: Pick<Options, 'pollIntervalMs' | 'batchMaxRequests'>;
  stop: RunStop;
  scrub: (text: string) => string;
}

/**
 * Runs the batch rounds for `cases`. Returns the judge that answers from what the batches brought
 * back, or `fatal`: a provider error every later row would meet. After Ctrl-C it returns nothing
 * (the caller sees the stop); any other error is thrown.
 */
export async function runJudgeBatch({
  setup,
  judgeIds,
  cases,
  options,
  stop,
  scrub,
}: JudgeBatchRun): Promise<{ judge: Judge } | { fatal: string } | undefined> {
  const { provider, judgeCache, cacheFile, judge: interactive } = setup;
  const [{ runBatch, BATCH_WIRES }, { answersOnlyJudge }] = await Promise.all([
    import('../lib/llm/batch/engine.ts'),
    import('../lib/llm/batch/collect.ts'),
  ]);
  // The interactive judge's probe: a later run without --batch asks the same requests.
  const capabilities = () => interactive.capabilities();
  try {
    const run = await runBatch({
      config: provider,
      cache: judgeCache,
      jobs: new FileJobStore(cacheFile),
      rows: cases,
      run: async (row, using) => (await runJudge(row.input, judgeIds, using)).results,
      capabilities,
      // The rows are scored once more afterwards, from the cache, and written as they go: the
      // run holds no results, and a round's prompts wait in a file, not in memory.
      keepOutputs: false,
      spool: new FileMissSpool(cacheFile),
      pollIntervalMs: options.pollIntervalMs,
      fetch: stop.fetch,
      // Ctrl-C ends the wait between polls; a job already submitted is in the job file.
      signal: stop.aborted,
      ...(options.batchMaxRequests ? { limits: { maxRequests: options.batchMaxRequests } } : {}),
      onEvent: (event) => console.error(scrub(describeBatchEvent(event))),
    });
    console.error(
      `Batch: ${run.rounds} round(s), ${run.jobIds.length} job(s), ${run.requests} request(s), ${run.failedRequests} without an answer.`,
    );
    return {
      judge: answersOnlyJudge(
        provider,
        BATCH_WIRES[provider.kind as BatchKind],
        judgeCache,
        capabilities,
        run.failures,
      ),
    };
  } catch (error) {
    const reason = runWideReason(error);
    if (reason) return { fatal: scrub(reason) };
    if (stop.signal) return undefined;
    throw error;
  }
}

function describeBatchEvent(event: BatchEvent): string {
  switch (event.type) {
    case 'round': {
      const e = event.estimate;
      const price =
        e.costUsd === undefined
          ? 'price unknown for this model'
          : `at most $${e.costUsd.toFixed(4)} at the batch rate (half price)`;
      return `Batch round ${event.round}: ${e.requests} request(s) in ${e.jobs} new job(s), ${price}; at most ${e.inputTokens} input and ${e.outputTokens} output tokens.`;
    }
    case 'submitted':
      return `Batch job ${event.jobId} submitted (${event.requests} request(s)).`;
    case 'resumed':
      return `Batch job ${event.jobId} was pending from an earlier run: polling it again (${event.requests} request(s)).`;
    case 'status': {
      const s = event.status;
      const counts = s.total ? ` (${s.done ?? 0}/${s.total})` : '';
      return `Batch job ${event.jobId}: ${s.raw}${counts}${s.message ? `: ${s.message}` : ''}`;
    }
    case 'downloaded':
      return `Batch job ${event.jobId}: ${event.answered} answered, ${event.failed} without an answer.`;
  }
}
