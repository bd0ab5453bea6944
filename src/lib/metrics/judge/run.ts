/**
 * The judge orchestrator: every LLM metric of one case in AT MOST 3 sequential rounds (SPEC §3),
 * calls parallel within a round (the judge client applies the provider's concurrency limit):
 *
 * - round 1: summary claims; key questions about the source; vagueness verdicts; G-Eval evaluation
 *   steps per criterion (cached per criterion and model); adherence; completeness. The judge's
 *   capabilities (a one-time probe per model) are fetched alongside.
 * - round 2: claim verdicts against the full source (one call); summary answers to the questions;
 *   G-Eval forms (logprobs, n samples or one greedy reply, from the capabilities).
 * - round 3: grades of the summary answers.
 *
 * Every call carries a cacheKey built from its logical inputs (prompt version, texts, the settings
 * that change the answer), so scoring the same case with the same model and settings again makes
 * zero HTTP calls. A failed call fails only the metrics that depend on it ('error' result with a
 * plain message); the others go on. So does a setting that does not validate: the metrics that
 * read it fail with it before any call, and the others run (a stored or imported G-Eval criterion
 * with too long a name stops G-Eval custom alone). Cancelling (the AbortSignal) stops everything:
 * the signal goes to every call, is checked between rounds, and the run rejects with the signal's
 * reason.
 */
import { ref, type MessageRef } from '../../i18n/message.ts';
import {
  LlmError,
  type Capabilities,
  type Judge,
  type JudgeRequest,
  type LlmErrorKind,
  type TokenUsage,
} from '../../llm/types.ts';
import { failed, notApplicable, resultOf } from '../results.ts';
import type { CaseInput, JudgeMetricId, MetricId, MetricResult } from '../types.ts';
import { errorMessage, type CallRecord, type Round } from './call.ts';
import type { ContextNote } from './context.ts';
import { buildPipelines, makeEnv } from './plan.ts';
import type { Pipeline } from './pipeline.ts';
import { usableJudgeRun, type JudgeSettings } from './settings.ts';
import { combineSummarization } from './summarization/summarization.ts';

export interface JudgeProgress {
  round: Round;
  /** Calls of this round finished so far. */
  done: number;
  /** Calls in this round. */
  total: number;
}

export interface JudgeRunOptions {
  metrics: JudgeMetricId[];
  settings: JudgeSettings;
  judge: Judge;
  /** Called once per result, as soon as its metric is done (several for 'geval-custom'). */
  onResult(result: MetricResult): void;
  onProgress?(progress: JudgeProgress): void;
  signal?: AbortSignal;
}

/** A judge call that failed, and the metrics it cost. */
export interface JudgeFailure {
  /** The provider error's kind ('other' for a metric's own error). */
  kind: LlmErrorKind | 'other';
  /** The error in plain words (without the stage). */
  message: string;
  /** The same, for the page to word in the reader's language; absent for a metric's own error. */
  messageRef?: MessageRef;
  /** What the failed call was for ("Coherence: fill the evaluation form"). */
  stage: string;
  metrics: JudgeMetricId[];
}

export interface JudgeRunSummary {
  /** Every result passed to onResult, in that order. */
  results: MetricResult[];
  /** Sequential rounds that made at least one call (0–3). */
  rounds: number;
  /** Logical calls, cache hits included. */
  calls: number;
  /** HTTP requests actually sent (0 when everything came from the cache). */
  httpCalls: number;
  /** Logical calls the cache answered. */
  cachedCalls: number;
  usage: TokenUsage;
  context: ContextNote;
  elapsedMs: number;
  /** Why metrics failed, one entry per failed pipeline (their results say it too). */
  failures: JudgeFailure[];
}

function judgeBackend(judge: Judge): string {
  return `judge:${judge.provider}/${judge.model}`;
}

/** `judge`, noting every request a stage makes (for `forget`). */
function recording(judge: Judge, asked: JudgeRequest[]): Judge {
  return {
    provider: judge.provider,
    model: judge.model,
    complete: (request) => {
      asked.push(request);
      return judge.complete(request);
    },
    completeJson: (request) => {
      asked.push(request);
      return judge.completeJson(request);
    },
    capabilities: (signal, onSpent) => judge.capabilities(signal, onSpent),
  };
}

export async function runJudgeMetrics(
  input: CaseInput,
  options: JudgeRunOptions,
): Promise<JudgeRunSummary> {
  const { judge, onResult, onProgress, signal } = options;
  signal?.throwIfAborted();
  const started = performance.now();
  const usable = usableJudgeRun(options.metrics, options.settings);
  const settings = usable.settings;
  const want = new Set(usable.metrics);
  const isWanted = (id: MetricId): boolean => options.metrics.some((m) => m === id);
  const backend = judgeBackend(judge);

  let capabilitiesPromise: Promise<Capabilities> | undefined;
  // The one-time probe is sent on behalf of this case: its requests count with the case's.
  const capabilities = () =>
    (capabilitiesPromise ??= judge.capabilities(signal, (spent) => {
      totals.httpCalls += spent.httpCalls;
      usage.input += spent.usage.input;
      usage.output += spent.usage.output;
    }));
  const env = makeEnv(input, settings, backend, capabilities);

  const results: MetricResult[] = [];
  const emit = (result: MetricResult) => {
    if (!isWanted(result.id)) return;
    result.elapsedMs = Math.round(performance.now() - started);
    results.push(result);
    onResult(result);
  };
  const usage: TokenUsage = { input: 0, output: 0 };
  const totals = { calls: 0, httpCalls: 0, cachedCalls: 0 };
  const onCall = (record: CallRecord) => {
    totals.calls++;
    totals.httpCalls += record.httpCalls;
    if (record.fromCache) totals.cachedCalls++;
    usage.input += record.usage.input;
    usage.output += record.usage.output;
    if (record.usage.cachedInput)
      usage.cachedInput = (usage.cachedInput ?? 0) + record.usage.cachedInput;
  };
  const failures = new Map<
    Pipeline,
    {
      message: string | MessageRef;
      error: string;
      errorRef: MessageRef | undefined;
      stage: string;
      kind: JudgeFailure['kind'];
    }
  >();
  const summary = (rounds: number): JudgeRunSummary => ({
    results,
    rounds,
    ...totals,
    usage,
    context: env.context,
    elapsedMs: Math.round(performance.now() - started),
    failures: [...failures].map(([p, f]) => ({
      kind: f.kind,
      message: f.error,
      ...(f.errorRef ? { messageRef: f.errorRef } : {}),
      stage: f.stage,
      metrics: p.produces.filter((id) => want.has(id)),
    })),
  });

  for (const [id, reason] of usable.blocked) emit(failed(id, backend, reason, {}));

  // A case without text has nothing to judge.
  const missing = !input.summary.trim() ? 'summary' : !input.source.trim() ? 'source' : null;
  if (missing) {
    const reason = ref(
      missing === 'summary' ? 'judgeMetrics.emptySummary' : 'judgeMetrics.emptySource',
    );
    for (const id of want) emit(notApplicable(id, backend, reason, {}));
    return summary(0);
  }

  const built = buildPipelines([...want], env);
  // Probe the model's capabilities alongside round 1 (G-Eval forms in round 2 await them).
  if (built.needsCapabilities && settings.gevalMethod !== 'greedy') {
    capabilities().catch(() => undefined);
  }

  const finished = new Map<Pipeline, MetricResult[]>();
  let summarizationDone = !want.has('summarization');

  const finish = (p: Pipeline) => {
    const failure = failures.get(p);
    const out = failure === undefined ? p.results() : p.failure(failure.message);
    finished.set(p, out);
    out.forEach(emit);
    if (!summarizationDone && built.claims && built.coverage) {
      const a = finished.get(built.claims)?.find(resultOf('alignment'));
      const c = finished.get(built.coverage)?.find(resultOf('coverage'));
      if (a && c) {
        summarizationDone = true;
        const shared = {
          alignment: built.claims.alignmentDetails(),
          coverage: built.coverage.coverageDetails(),
        };
        emit(combineSummarization(a, c, shared, env));
      }
    }
  };
  const lastRound = (p: Pipeline) => Math.max(0, ...p.stages.map((s) => s.round));

  // Pipelines without calls (n/a from the start) report at once.
  for (const p of built.pipelines) if (p.stages.length === 0) finish(p);

  let roundsRun = 0;
  for (const round of [1, 2, 3] as const) {
    signal?.throwIfAborted();
    const work = built.pipelines
      .filter((p) => !finished.has(p) && !failures.has(p))
      .flatMap((p) => p.stages.filter((s) => s.round === round).map((s) => ({ p, s })));
    if (work.length > 0) {
      const callsBefore = totals.calls;
      let done = 0;
      const total = work.length;
      onProgress?.({ round, done, total });
      await Promise.all(
        work.map(async ({ p, s }) => {
          const asked: JudgeRequest[] = [];
          try {
            await s.run({
              judge: recording(judge, asked),
              round,
              log: p.log,
              signal,
              onCall,
              replyLanguage: input.language,
            });
          } catch (error) {
            const kind = error instanceof LlmError ? error.kind : 'other';
            // A reply the stage could not use (an incomplete verdict list, no score) would come
            // back from the cache on every later run: drop it, so the provider is asked again.
            if (kind === 'malformed-output' || kind === 'other') {
              await Promise.all(asked.map((r) => judge.forget?.(r).catch(() => undefined)));
            }
            if (!signal?.aborted && !failures.has(p)) {
              const errorRef = error instanceof LlmError ? error.messageRef : undefined;
              failures.set(p, {
                message: errorRef
                  ? ref('judgeMetrics.failedAt', {
                      error: errorRef,
                      stage: s.purposeRef ?? s.purpose,
                    })
                  : `${errorMessage(error)} (${s.purpose})`,
                error: errorMessage(error),
                errorRef,
                stage: s.purpose,
                kind,
              });
            }
          } finally {
            done++;
            onProgress?.({ round, done, total });
          }
        }),
      );
      signal?.throwIfAborted();
      if (totals.calls > callsBefore) roundsRun++;
    }
    for (const p of built.pipelines) {
      if (!finished.has(p) && (failures.has(p) || lastRound(p) <= round)) finish(p);
    }
  }
  // Defensive: anything left unfinished reports an error rather than vanishing.
  for (const p of built.pipelines) {
    if (!finished.has(p)) {
      for (const id of p.produces) emit(failed(id, backend, ref('judgeMetrics.unfinished'), {}));
    }
  }
  return summary(roundsRun);
}
