/**
 * The page's scoring session: the cards' states, the workers, the history list and the draft.
 * Results arrive per metric as each worker finishes, so a slow model never hides a fast score.
 */
import { APP_VERSION } from '../version.ts';
import { messageOf } from '../errors.ts';
import { METRICS } from '../metrics/registry.ts';
import { metricSettingsSchema, withDefaults } from '../metrics/settings.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type {
  CaseInput,
  CaseTexts,
  MetricId,
  MetricNeeds,
  MetricResult,
} from '../metrics/types.ts';
import { validateCase } from '../input/validate-case.ts';
import type { InputProblem } from '../input/validate-case.ts';
import {
  deleteAllCases,
  deleteCase,
  getCase,
  listHistory,
  loadDraft,
  saveCase,
  saveDraft,
} from '../storage/cases.ts';
import type { HistoryEntry } from '../storage/schema.ts';
import { isQuotaExceeded, storageEstimate, unsavedCaseMessage } from '../storage/quota.ts';
import { startMetricWorkers } from '../workers/metric-workers.ts';
import type { MetricWorkers } from '../workers/metric-workers.ts';
import type { Progress } from '../workers/worker-client.ts';
import type { ModelSource } from '../models/source.ts';
import { loadPreferences, savePreferences } from './preferences.ts';
import { JudgeSession } from './judge.svelte.ts';
import type { JudgeRunReport } from './judge.svelte.ts';
import { parseInstructions } from '../input/instructions.ts';

export type CardStatus = 'idle' | 'running' | 'ok' | 'n/a' | 'error';

export interface CardState {
  status: CardStatus;
  result?: MetricResult;
}

function idleCards(): Record<MetricId, CardState> {
  return Object.fromEntries(METRICS.map((m) => [m.id, { status: 'idle' }])) as Record<
    MetricId,
    CardState
  >;
}

const PREFERENCES = loadPreferences();

/** A metric that could not be computed: an error card with the reason, never a lost case. */
function errorResult(id: MetricId, message: string, backend: string): MetricResult {
  return {
    id,
    status: 'error',
    score: null,
    reason: message,
    explanation: message,
    backend,
    details: {},
  };
}

export class ScoringSession {
  input = $state<CaseTexts>({ source: '', summary: '', reference: '' });
  /** Remembered across visits (preferences.ts); each saved case also keeps the settings it used. */
  settings = $state<MetricSettings>(PREFERENCES.settings);
  /** Where transformer models come from; remembered, never stored with cases. */
  models = $state<ModelSource>(PREFERENCES.models);
  cards = $state.raw<Record<MetricId, CardState>>(idleCards());
  problems = $state.raw<InputProblem[]>([]);
  running = $state(false);
  progress = $state.raw<Record<string, Progress>>({});
  history = $state.raw<HistoryEntry[]>([]);
  storageError = $state<string | undefined>();
  /** The summary the cards' results were computed on: highlights use offsets into it. */
  scoredSummary = $state('');
  /** The saved case whose results are on screen, if any. */
  openCaseId = $state<string | undefined>();
  /** Summary instructions as typed (see input/instructions.ts), for the call-center metrics. */
  instructionsText = $state('');
  /** The source the judge's spans point into (claim highlights). */
  scoredSource = $state('');
  /** One card per user-defined G-Eval criterion (they share the id 'geval-custom'). */
  customCards = $state.raw<MetricResult[]>([]);
  readonly judge = new JudgeSession();
  /** Tokens, calls and cost of the judge run whose results are on screen. */
  judgeReport = $state.raw<
    (JudgeRunReport['summary'] & { cost?: number | undefined }) | undefined
  >();

  #workers: MetricWorkers | undefined;
  #run: AbortController | undefined;
  #draftTimer: ReturnType<typeof setTimeout> | undefined;
  /** The "Scored, but not saved" message last shown, so that a later save can clear it. */
  #unsavedMessage: string | undefined;

  async init(): Promise<void> {
    this.#workers ??= startMetricWorkers();
    // Load vectors, the recogniser and any chosen model while the user is still pasting.
    void this.loadBackends();
    try {
      const draft = await loadDraft();
      if (draft && !this.input.source && !this.input.summary) {
        this.input = { ...draft.input, reference: draft.input.reference ?? '' };
      }
      this.history = await listHistory();
    } catch (error) {
      this.storageError = messageOf(error);
    }
  }

  /**
   * Loads every worker's backend for the current settings (the built-in ones, or the chosen
   * models): on start, and from Settings' "Load now". A model that fails shows why in the
   * progress area; scoring still works (it falls back to the built-in backend).
   */
  async loadBackends(): Promise<void> {
    const workers = this.#workers;
    if (!workers) return;
    const settings = $state.snapshot(this.settings);
    const models = $state.snapshot(this.models);
    await Promise.all(
      Object.entries(workers).map(async ([needs, client]) => {
        this.#clearProgress(needs);
        try {
          await client.load({ onProgress: (p) => this.#setProgress(needs, p) }, settings, models);
          this.#clearProgress(needs);
        } catch (error) {
          this.#clearProgress(needs);
          this.#setProgress(needs, { stage: `failed to load: ${messageOf(error)}` });
        }
      }),
    );
  }

  /** Remembers settings and the model source for the next visit. */
  savePreferences(): void {
    savePreferences({
      settings: $state.snapshot(this.settings),
      models: $state.snapshot(this.models),
    });
  }

  /** The case as Score would send it now (instructions parsed; unreadable lines left out). */
  get caseInput(): CaseInput {
    const instructions = parseInstructions(this.instructionsText).sections;
    return {
      source: this.input.source,
      summary: this.input.summary,
      ...(this.input.reference.trim() ? { reference: this.input.reference } : {}),
      ...(instructions.length > 0 ? { instructions } : {}),
    };
  }

  /** Keeps what was typed across a reload or a crash, without writing on every keystroke. */
  inputChanged(): void {
    this.problems = this.problems.filter((p) => !p.blocking);
    clearTimeout(this.#draftTimer);
    this.#draftTimer = setTimeout(() => {
      saveDraft({ input: $state.snapshot(this.input), savedAt: Date.now() }).catch(
        (error: unknown) => (this.storageError = messageOf(error)),
      );
    }, 400);
  }

  /** Writes the draft at once (before a reload into a new version), instead of after the pause. */
  async saveDraftNow(): Promise<void> {
    clearTimeout(this.#draftTimer);
    try {
      await saveDraft({ input: $state.snapshot(this.input), savedAt: Date.now() });
    } catch (error) {
      this.storageError = messageOf(error);
    }
  }

  async score(): Promise<void> {
    const workers = this.#workers;
    if (!workers) return;
    const input = $state.snapshot(this.input);
    const settings = $state.snapshot(this.settings);
    const models = $state.snapshot(this.models);
    this.problems = validateCase(input);
    const instructions = parseInstructions(this.instructionsText);
    for (const message of instructions.problems) {
      this.problems = [...this.problems, { field: 'instructions', blocking: true, message }];
    }
    const settingsCheck = metricSettingsSchema.safeParse(settings);
    if (!settingsCheck.success) {
      const issue = settingsCheck.error.issues[0];
      this.problems = [
        ...this.problems,
        {
          field: 'settings',
          blocking: true,
          message: `Metric settings: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}.`,
        },
      ];
    }
    if (this.problems.some((p) => p.blocking)) return;

    this.#run?.abort();
    const run = new AbortController();
    this.#run = run;
    this.running = true;
    this.openCaseId = undefined;
    this.scoredSummary = input.summary;
    this.scoredSource = input.source;
    this.customCards = [];
    this.judgeReport = undefined;
    const judgeIds = this.judge.enabled ? new Set(this.judge.metrics) : new Set<MetricId>();
    this.cards = Object.fromEntries(
      METRICS.map((m) => [
        m.id,
        { status: m.needs !== 'llm' || judgeIds.has(m.id) ? 'running' : 'idle' },
      ]),
    ) as Record<MetricId, CardState>;

    const caseInput: CaseInput = {
      source: input.source,
      summary: input.summary,
      ...(input.reference.trim() ? { reference: input.reference } : {}),
      ...(instructions.sections.length > 0 ? { instructions: instructions.sections } : {}),
    };
    const groups = new Map<Exclude<MetricNeeds, 'llm'>, MetricId[]>();
    const providerEmbedding = settings.backends.embedding.kind === 'provider';
    for (const m of METRICS) {
      if (m.needs === 'llm') continue;
      // Provider embeddings need the judge's key, which stays in the page: no worker gets it.
      if (m.needs === 'embedding' && providerEmbedding) continue;
      groups.set(m.needs, [...(groups.get(m.needs) ?? []), m.id]);
    }

    const results: MetricResult[] = [];
    const jobs = [...groups].map(async ([needs, ids]) => {
      try {
        const outcome = await workers[needs].score(ids, caseInput, settings, models, {
          signal: run.signal,
          onProgress: (p) => this.#setProgress(needs, p),
          onResult: (result) => {
            if (run.signal.aborted) return;
            results.push(result);
            this.#setCard(result.id, { status: result.status, result });
          },
        });
        if (outcome.cancelled) return;
      } catch (error) {
        if (run.signal.aborted) return;
        for (const id of ids) {
          if (results.some((r) => r.id === id)) continue;
          const failure = errorResult(id, messageOf(error), 'none');
          results.push(failure);
          this.#setCard(id, { status: 'error', result: failure });
        }
      } finally {
        this.#clearProgress(needs);
      }
    });
    if (this.judge.enabled) jobs.push(this.#runJudge(caseInput, run.signal, results));
    if (providerEmbedding)
      jobs.push(this.#providerEmbeddingMetrics(caseInput, settings, run.signal, results));
    await Promise.all(jobs);
    if (run.signal.aborted) return;
    this.running = false;
    this.#run = undefined;

    const order = new Map(METRICS.map((m, i) => [m.id, i]));
    results.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    try {
      const entry = await saveCase({
        id: crypto.randomUUID(),
        createdAt: Date.now(),
        input: caseInput,
        settings,
        results,
        appVersion: APP_VERSION,
        ...(this.judgeReport ? { judge: this.#storedJudgeReport() } : {}),
      });
      this.openCaseId = entry.id;
      this.history = [entry, ...this.history.filter((h) => h.id !== entry.id)];
      // The last case's failure is over once a case is stored (space was freed, as it said).
      if (this.storageError === this.#unsavedMessage) this.storageError = undefined;
    } catch (error) {
      // The cards keep their scores; only the history entry is missing, and the message says why.
      const estimate = isQuotaExceeded(error) ? await storageEstimate() : undefined;
      this.#unsavedMessage = unsavedCaseMessage(error, estimate);
      this.storageError = this.#unsavedMessage;
    }
  }

  /** The LLM metrics, from the page; their failures become error cards, never a lost case. */
  async #runJudge(input: CaseInput, signal: AbortSignal, results: MetricResult[]): Promise<void> {
    const ids = [...this.judge.metrics];
    const fail = (message: string) => {
      for (const id of ids) {
        if (results.some((r) => r.id === id)) continue;
        const failure = errorResult(
          id,
          message,
          `judge:${this.judge.provider.kind}/${this.judge.provider.model}`,
        );
        results.push(failure);
        this.#setCard(id, { status: 'error', result: failure });
      }
    };
    const problems = this.judge.problems();
    if (problems.length > 0) {
      fail(problems.join(' '));
      return;
    }
    try {
      const report = await this.judge.run(
        input,
        (result) => {
          if (signal.aborted) return;
          results.push(result);
          if (result.id === 'geval-custom') this.customCards = [...this.customCards, result];
          else this.#setCard(result.id, { status: result.status, result });
        },
        signal,
      );
      this.judgeReport = { ...report.summary, cost: report.cost };
      // A metric the run never reported (a bug, or a criterion list emptied mid-run) must not spin.
      fail('The judge run ended without a result for this metric.');
    } catch (error) {
      if (signal.aborted) return;
      fail(messageOf(error));
    }
  }

  /** The embedding metrics on the provider's embedding API (SPEC §2 backend 3), from the page. */
  async #providerEmbeddingMetrics(
    input: CaseInput,
    settings: MetricSettings,
    signal: AbortSignal,
    results: MetricResult[],
  ): Promise<void> {
    const ids = METRICS.filter((m) => m.needs === 'embedding').map((m) => m.id);
    const scored = await this.providerEmbeddingMetrics(ids, input, settings, signal);
    if (signal.aborted) return;
    for (const result of scored) {
      results.push(result);
      this.#setCard(result.id, { status: result.status, result });
    }
  }

  /**
   * The offline metrics `ids` of one case in the metric workers, for a data-set run that executes
   * in the page (one with LLM metrics). A worker's failure becomes an error result per metric, so
   * the row is stored with the reason instead of failing as a whole.
   */
  async scoreInWorkers(
    ids: readonly MetricId[],
    input: CaseInput,
    settings: MetricSettings,
    models: ModelSource,
    signal: AbortSignal,
  ): Promise<MetricResult[]> {
    // A run resumed on load may ask before init() has run (children mount first).
    const workers = (this.#workers ??= startMetricWorkers());
    const wanted = new Set(ids);
    const groups = new Map<Exclude<MetricNeeds, 'llm'>, MetricId[]>();
    for (const m of METRICS) {
      if (!wanted.has(m.id) || m.needs === 'llm') continue;
      groups.set(m.needs, [...(groups.get(m.needs) ?? []), m.id]);
    }
    const results: MetricResult[] = [];
    await Promise.all(
      [...groups].map(async ([needs, group]) => {
        try {
          await workers[needs].score(group, input, settings, models, {
            signal,
            onResult: (result) => results.push(result),
          });
        } catch (error) {
          signal.throwIfAborted();
          for (const id of group) {
            if (results.some((r) => r.id === id)) continue;
            results.push(errorResult(id, messageOf(error), 'none'));
          }
        }
      }),
    );
    signal.throwIfAborted();
    return results;
  }

  /**
   * The embedding metrics `ids` (coherence, the repetition pair) of one case on the provider's
   * embeddings, through one shared embedder so the sentences are paid for once. Empty when
   * cancelled or when provider embeddings are not chosen.
   */
  async providerEmbeddingMetrics(
    ids: readonly MetricId[],
    input: CaseInput,
    settings: MetricSettings,
    signal: AbortSignal,
  ): Promise<MetricResult[]> {
    const choice = settings.backends.embedding;
    if (choice.kind !== 'provider') return [];
    const config = this.judge.config();
    try {
      // Loaded on first use: the page itself otherwise never runs offline metrics.
      const { scoreOnProviderEmbeddings } =
        await import('../metrics/semantic/provider-embedding-metrics.ts');
      const results = await scoreOnProviderEmbeddings(
        ids,
        input,
        settings,
        config,
        choice.model,
        signal,
      );
      return signal.aborted ? [] : results;
    } catch (error) {
      if (signal.aborted) return [];
      const backend = `provider:${config.kind}/${choice.model}`;
      return ids.map((id) => errorResult(id, messageOf(error), backend));
    }
  }

  #storedJudgeReport() {
    const report = this.judgeReport!;
    return {
      provider: this.judge.provider.kind,
      model: this.judge.provider.model,
      usage: report.usage,
      httpCalls: report.httpCalls,
      cachedCalls: report.cachedCalls,
      calls: report.calls,
      rounds: report.rounds,
      ...(report.cost !== undefined ? { cost: report.cost } : {}),
    };
  }

  cancel(): void {
    this.#run?.abort();
    this.#run = undefined;
    this.running = false;
    this.cards = idleCards();
  }

  async open(id: string): Promise<void> {
    const stored = await getCase(id);
    if (!stored) {
      this.storageError = 'That case is no longer stored (deleted in another tab?).';
      this.history = await listHistory();
      return;
    }
    this.#run?.abort();
    this.running = false;
    this.input = {
      source: stored.input.source,
      summary: stored.input.summary,
      reference: stored.input.reference ?? '',
    };
    this.scoredSummary = stored.input.summary;
    this.settings = withDefaults(stored.settings);
    const cards = idleCards();
    for (const result of stored.results) {
      if (result.id !== 'geval-custom') cards[result.id] = { status: result.status, result };
    }
    this.cards = cards;
    this.customCards = stored.results.filter((r) => r.id === 'geval-custom');
    this.scoredSource = stored.input.source;
    this.instructionsText = (stored.input.instructions ?? [])
      .map(
        (s) => `${s.name}: ${s.instruction}${s.categories ? ` [${s.categories.join(' | ')}]` : ''}`,
      )
      .join('\n');
    this.judgeReport = stored.judge
      ? {
          results: [],
          rounds: stored.judge.rounds,
          calls: stored.judge.calls,
          httpCalls: stored.judge.httpCalls,
          cachedCalls: stored.judge.cachedCalls,
          usage: stored.judge.usage,
          context: { cut: false, removedChars: 0, originalChars: 0, budgetTokens: 0 },
          elapsedMs: 0,
          failures: [],
          cost: stored.judge.cost,
        }
      : undefined;
    this.problems = [];
    this.openCaseId = id;
  }

  /** Shows a data-set row and its stored results with the single-case cards. */
  showCase(input: CaseInput, results: MetricResult[]): void {
    this.#run?.abort();
    this.running = false;
    this.input = { source: input.source, summary: input.summary, reference: input.reference ?? '' };
    this.scoredSummary = input.summary;
    this.scoredSource = input.source;
    const cards = idleCards();
    for (const result of results) {
      if (result.id !== 'geval-custom') cards[result.id] = { status: result.status, result };
    }
    this.cards = cards;
    this.customCards = results.filter((r) => r.id === 'geval-custom');
    this.problems = [];
    this.openCaseId = undefined;
  }

  async remove(id: string): Promise<void> {
    await deleteCase(id);
    this.history = this.history.filter((h) => h.id !== id);
    if (this.openCaseId === id) this.openCaseId = undefined;
  }

  async removeAll(): Promise<void> {
    await deleteAllCases();
    this.history = [];
    this.openCaseId = undefined;
  }

  #setCard(id: MetricId, state: CardState): void {
    this.cards = { ...this.cards, [id]: state };
  }

  /** One row per worker and file, so a model's several files each get their own bar. */
  #setProgress(needs: string, progress: Progress): void {
    const key = `${needs}|${progress.file ?? ''}`;
    // A stage without a file (e.g. "warming up") replaces the worker's finished file rows.
    const rest =
      progress.file === undefined
        ? Object.fromEntries(
            Object.entries(this.progress).filter(
              ([k, p]) => !k.startsWith(`${needs}|`) || (p.total && (p.loaded ?? 0) < p.total),
            ),
          )
        : this.progress;
    this.progress = { ...rest, [key]: progress };
  }

  #clearProgress(needs: string): void {
    const kept = Object.entries(this.progress).filter(([k]) => !k.startsWith(`${needs}|`));
    if (kept.length === Object.keys(this.progress).length) return;
    this.progress = Object.fromEntries(kept);
  }
}
