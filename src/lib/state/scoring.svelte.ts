/**
 * The page's scoring session: the cards' states, the workers, the history list and the draft.
 * Results arrive per metric as each worker finishes, so a slow model never hides a fast score.
 * What the cards hold is built in metric-cards.ts, the case and its problems in case-input.ts,
 * the worker and provider-embedding runs in metric-jobs.ts; this class holds the state.
 */
import { APP_VERSION } from '../version.ts';
import { messageOf } from '../errors.ts';
import { LlmError, RUN_STOPPING_KINDS } from '../llm/types.ts';
import { METRICS } from '../metrics/registry.ts';
import { withDefaults } from '../metrics/settings.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { CaseInput, CaseTexts, MetricId, MetricResult } from '../metrics/types.ts';
import type { InputProblem } from '../input/validate-case.ts';
import {
  deleteAllCases,
  deleteCase,
  getCase,
  listHistory,
  loadDraft,
  saveCase,
} from '../storage/cases.ts';
import type { HistoryEntry } from '../storage/schema.ts';
import { isQuotaExceeded, storageEstimate, unsavedCaseMessage } from '../storage/quota.ts';
import { startMetricWorkers } from '../workers/metric-workers.ts';
import { startLanguageWorker } from '../workers/language-client.ts';
import type { MetricWorkers } from '../workers/metric-workers.ts';
import type { PreparedTexts, Progress } from '../workers/worker-client.ts';
import type { ModelSource } from '../models/source.ts';
import { parseInstructions } from '../input/instructions.ts';
import { loadPreferences, savePreferences } from './preferences.ts';
import { JudgeSession } from './judge.svelte.ts';
import { caseInputOf, caseProblems, instructionsTextOf, textsOf } from './case-input.ts';
import { CaseLanguage } from './case-language.svelte.ts';
import type { TextLanguage } from '../metrics/text/language.ts';
import { DraftSaver } from './draft-saver.ts';
import { english, ref, type MessageRef } from '../i18n/message.ts';
import { loadingStage } from '../workers/loading-stage.ts';
import {
  cardsOf,
  errorResult,
  idleCards,
  runningCards,
  shownJudgeReport,
  storedJudgeRun,
  type CardState,
  type ShownJudgeReport,
} from './metric-cards.ts';
import { failMissing, providerEmbeddingMetrics, workerGroups } from './metric-jobs.ts';
import {
  blockedMetricReasons,
  runnableSettings,
  settingsProblems,
  type SettingsProblem,
} from './settings-problems.ts';
import { scoredCaseKey } from './scored-case.ts';
import { notRunNotice, stoppedRunNotice, type JudgeNotice } from './judge-notice.ts';
import { WorkerProgress } from './worker-progress.svelte.ts';

export type { CardState, CardStatus } from './metric-cards.ts';

const PREFERENCES = loadPreferences();

/** The pause in typing after which a changed source is embedded ahead of Score. */
export const PRE_EMBED_DELAY_MS = 400;

export class ScoringSession {
  input = $state<CaseTexts>({ source: '', summary: '', reference: '' });
  /** Remembered across visits (preferences.ts); each saved case also keeps the settings it used. */
  settings = $state<MetricSettings>(PREFERENCES.settings);
  /** Where transformer models come from; remembered, never stored with cases. */
  models = $state<ModelSource>(PREFERENCES.models);
  cards = $state.raw<Record<MetricId, CardState>>(idleCards());
  problems = $state.raw<InputProblem[]>([]);
  running = $state(false);
  history = $state.raw<HistoryEntry[]>([]);
  storageError = $state<string | undefined>();
  /** The storage error as a message, where it has one (else the page shows the text as is). */
  storageErrorRef = $state.raw<MessageRef | undefined>();
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
  judgeReport = $state.raw<ShownJudgeReport | undefined>();
  /** Why the LLM metrics were not run (no key, no model…): said once, not on each card. */
  judgeNotice = $state<JudgeNotice | undefined>();
  /** The key (scored-case.ts) of the case whose results are on screen; undefined when none. */
  scoredKey = $state<string | undefined>();
  /** Bumped when a Score starts, so the page can bring the score board into view. */
  runCount = $state(0);
  /**
   * Bumped each time the embedding worker has finished loading its encoder (or failed to), its
   * files kept in Cache Storage by then: the page checks "Works offline" again.
   */
  encoderLoads = $state(0);

  /** Metric settings that do not validate; each blocks only the metrics that read it. */
  readonly settingsProblems: SettingsProblem[] = $derived(settingsProblems(this.settings));

  /** The key of the case as Score would send it now. */
  get currentKey(): string {
    return scoredCaseKey(this.caseInput, this.settings, this.#judgeAsked(), this.models);
  }

  /** The results on screen belong to another input than the one in the form. */
  readonly stale: boolean = $derived(
    this.scoredKey !== undefined && this.scoredKey !== this.currentKey,
  );

  readonly #progress = new WorkerProgress();
  readonly #draft = new DraftSaver((message) => this.#setStorageError(message));
  #workers: MetricWorkers | undefined;
  /** The texts' language: detected on Score or chosen; picks the tokenizer and the judge's. */
  readonly language = new CaseLanguage();
  /** What the judge is asked for, as part of a case's key: another model is another result. */
  #judgeAsked(): unknown {
    if (!this.judge.enabled) return undefined;
    // The provider record holds no key (keys live in provider-keys.ts).
    return {
      metrics: [...this.judge.metrics].sort(),
      provider: this.judge.provider,
      settings: this.judge.settings,
    };
  }
  #run: AbortController | undefined;
  /** The "Scored, but not saved" message last shown, so that a later save can clear it. */
  #unsavedMessage: string | undefined;

  /** Model-loading progress, one row per worker and file. */
  get progress(): Record<string, Progress> {
    return this.#progress.rows;
  }

  async init(): Promise<void> {
    this.#workers ??= startMetricWorkers();
    // Load vectors, the recogniser and any chosen model while the user is still pasting, and cld3:
    // Score asks for the case's language before any metric starts.
    void this.loadBackends();
    startLanguageWorker();
    try {
      const draft = await loadDraft();
      // Reading a long draft back is a task of its own (1.7 M characters: ~100 ms); showing it is
      // another, not the same one.
      await new Promise((next) => setTimeout(next, 0));
      if (draft && !this.input.source && !this.input.summary) {
        this.input = { ...draft.input, reference: draft.input.reference ?? '' };
      }
      this.history = await listHistory();
    } catch (error) {
      this.#setStorageError(messageOf(error));
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
        this.#progress.clear(needs);
        try {
          await client.load({ onProgress: (p) => this.#progress.set(needs, p) }, settings, models);
          this.#progress.clear(needs);
          // User Timing, for DevTools and bench/first-score.ts: the encoder is loaded and warm.
          if (needs === 'embedding') performance.mark('sumlens:encoder-ready');
        } catch (error) {
          this.#progress.clear(needs);
          this.#progress.set(
            needs,
            loadingStage(ref('models.stage.failed', { error: messageOf(error) })),
          );
        } finally {
          if (needs === 'embedding') this.encoderLoads++;
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
    return {
      ...caseInputOf(this.input, parseInstructions(this.instructionsText).sections),
      ...this.language.current,
    };
  }

  /** Keeps what was typed across a reload or a crash, without writing on every keystroke. */
  inputChanged(): void {
    this.problems = this.problems.filter((p) => !p.blocking);
    this.#draft.schedule(() => textsOf(this.input));
    this.#schedulePreEmbed();
  }

  #preEmbedTimer: ReturnType<typeof setTimeout> | undefined;
  #preEmbed: { texts: PreparedTexts; controller: AbortController } | undefined;

  /**
   * Starts embedding the case once the user pauses (PRE_EMBED_DELAY_MS), so that Score finds its
   * sentences, the source's and the summary's, in the embedding worker's cache. Newer texts cancel
   * the older request (what it embedded stays cached); the same texts are not asked for twice.
   */
  #schedulePreEmbed(): void {
    clearTimeout(this.#preEmbedTimer);
    this.#preEmbedTimer = setTimeout(() => {
      const texts = { source: this.input.source, summary: this.input.summary };
      const worker = this.#workers?.embedding;
      const asked = this.#preEmbed?.texts;
      if (!worker || !(texts.source.trim() || texts.summary.trim())) return;
      if (asked?.source === texts.source && asked.summary === texts.summary) return;
      this.#preEmbed?.controller.abort();
      const controller = new AbortController();
      this.#preEmbed = { texts, controller };
      worker
        .prepare(
          texts,
          $state.snapshot(this.settings),
          $state.snapshot(this.models),
          controller.signal,
        )
        .catch(() => {
          // A hint only: Score embeds whatever is not cached, and reports real failures.
          if (this.#preEmbed?.controller === controller) this.#preEmbed = undefined;
        });
    }, PRE_EMBED_DELAY_MS);
  }

  /** Writes the draft at once (before a reload into a new version), instead of after the pause. */
  async saveDraftNow(): Promise<void> {
    await this.#draft.saveNow(textsOf(this.input));
  }

  async score(): Promise<void> {
    const workers = this.#workers;
    if (!workers) return;
    const input = textsOf(this.input);
    const settings = $state.snapshot(this.settings);
    const models = $state.snapshot(this.models);
    const instructions = parseInstructions(this.instructionsText);
    this.problems = caseProblems(input, instructions.problems, instructions.problemRefs);
    if (this.problems.some((p) => p.blocking)) return;

    // Running from the click on, while the language worker answers: the cards never show the
    // previous case's scores as if they were this one's.
    const judgeAsked = this.judge.enabled && this.judge.problemRefs().length === 0;
    this.running = true;
    this.cards = runningCards(judgeAsked ? new Set(this.judge.metrics) : new Set());
    const caseInput = {
      ...caseInputOf(input, instructions.sections),
      ...(await this.language.forCase(input)),
    };
    const key = scoredCaseKey(caseInput, settings, this.#judgeAsked(), models);
    // An identical re-score replaces the entry on screen instead of adding one to the history.
    const sameCaseId = key === this.scoredKey ? this.openCaseId : undefined;
    const wrongSettings = settingsProblems(settings);
    const blocked = blockedMetricReasons(wrongSettings);
    const workerSettings = runnableSettings(settings, wrongSettings);
    const judgeProblems = this.judge.enabled ? this.judge.problemRefs() : [];
    const runJudge = this.judge.enabled && judgeProblems.length === 0;

    this.#run?.abort();
    const run = new AbortController();
    this.#run = run;
    this.running = true;
    this.runCount++;
    this.openCaseId = undefined;
    this.scoredKey = key;
    this.scoredSummary = input.summary;
    this.scoredSource = input.source;
    this.customCards = [];
    this.judgeReport = undefined;
    this.judgeNotice = notRunNotice(judgeProblems);
    this.cards = runningCards(runJudge ? new Set(this.judge.metrics) : new Set());

    const results: MetricResult[] = [];
    for (const [id, reason] of blocked) {
      if (this.cards[id].status !== 'running') continue;
      const [failure] = failMissingWith([id], results, reason, 'none');
      if (failure) this.#setCard(id, { status: 'error', result: failure });
    }
    const providerEmbedding = settings.backends.embedding.kind === 'provider';
    // Provider embeddings need the judge's key, which stays in the page: no worker gets it.
    const groups = workerGroups(
      (id, needs) => !blocked.has(id) && !(needs === 'embedding' && providerEmbedding),
    );

    const jobs = [...groups].map(async ([needs, ids]) => {
      try {
        await workers[needs].score(ids, caseInput, workerSettings, models, {
          signal: run.signal,
          onProgress: (p) => this.#progress.set(needs, p),
          onResult: (result) => {
            if (run.signal.aborted) return;
            results.push(result);
            this.#setCard(result.id, { status: result.status, result });
          },
        });
      } catch (error) {
        if (run.signal.aborted) return;
        for (const failure of failMissing(ids, results, messageOf(error), 'none')) {
          this.#setCard(failure.id, { status: 'error', result: failure });
        }
      } finally {
        this.#progress.clear(needs);
      }
    });
    if (runJudge) jobs.push(this.#runJudge(caseInput, run.signal, results));
    if (providerEmbedding)
      jobs.push(this.#providerEmbeddingMetrics(caseInput, workerSettings, run.signal, results));
    await Promise.all(jobs);
    if (run.signal.aborted) return;
    this.running = false;
    this.#run = undefined;

    const order = new Map(METRICS.map((m, i) => [m.id, i]));
    results.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    await this.#saveScoredCase(caseInput, settings, results, sameCaseId);
  }

  async #saveScoredCase(
    input: CaseInput,
    settings: MetricSettings,
    results: MetricResult[],
    id: string = crypto.randomUUID(),
  ): Promise<void> {
    try {
      const entry = await saveCase({
        id,
        createdAt: Date.now(),
        input,
        settings,
        results,
        appVersion: APP_VERSION,
        ...(this.judgeReport
          ? { judge: storedJudgeRun(this.judgeReport, this.judge.provider) }
          : {}),
      });
      this.openCaseId = entry.id;
      this.history = [entry, ...this.history.filter((h) => h.id !== entry.id)];
      // The last case's failure is over once a case is stored (space was freed, as it said).
      if (this.storageError === this.#unsavedMessage) this.#setStorageError(undefined);
    } catch (error) {
      // The cards keep their scores; only the history entry is missing, and the message says why.
      const estimate = isQuotaExceeded(error) ? await storageEstimate() : undefined;
      this.#unsavedMessage = unsavedCaseMessage(error, estimate);
      this.#setStorageError(this.#unsavedMessage);
    }
  }

  /** The LLM metrics, from the page; their failures become error cards, never a lost case. */
  async #runJudge(input: CaseInput, signal: AbortSignal, results: MetricResult[]): Promise<void> {
    const ids = [...this.judge.metrics];
    const fail = (message: string | MessageRef) => {
      const backend = `judge:${this.judge.provider.kind}/${this.judge.provider.model}`;
      const failures =
        typeof message === 'string'
          ? failMissing(ids, results, message, backend)
          : failMissingWith(ids, results, message, backend);
      for (const failure of failures) {
        this.#setCard(failure.id, { status: 'error', result: failure });
      }
    };
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
      const stopped = stoppedRunNotice(report.summary.failures);
      if (stopped && !signal.aborted) {
        this.judgeNotice = stopped;
        // Their results stay in the case; on screen, the notice says it once. Every failure was
        // this error, so every red card is (the combined summarization score included).
        for (const id of ids)
          if (this.cards[id].status === 'error') this.#setCard(id, { status: 'idle' });
      }
      // A metric the run never reported (a bug, or a criterion list emptied mid-run) must not spin.
      fail(ref('card.judgeNoResult'));
    } catch (error) {
      if (signal.aborted) return;
      fail(messageOf(error));
      if (error instanceof LlmError && RUN_STOPPING_KINDS.has(error.kind)) {
        this.judgeNotice = { kind: 'stopped', message: messageOf(error) };
        for (const id of ids) this.#setCard(id, { status: 'idle' });
      }
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
    const scored = await providerEmbeddingMetrics(
      () => this.judge.config(),
      ids,
      input,
      settings,
      signal,
    );
    if (signal.aborted) return;
    for (const result of scored) {
      results.push(result);
      this.#setCard(result.id, { status: result.status, result });
    }
  }

  /** The metric workers, for a data-set run that executes in the page (page-runs.svelte.ts). */
  metricWorkers(): MetricWorkers {
    // A run resumed on load may ask before init() has run (children mount first).
    return (this.#workers ??= startMetricWorkers());
  }

  cancel(): void {
    this.#run?.abort();
    this.#run = undefined;
    this.running = false;
    this.cards = idleCards();
    this.scoredKey = undefined;
    this.judgeNotice = undefined;
  }

  /** One place sets the storage error, so its text and its message never disagree. */
  #setStorageError(error: string | MessageRef | undefined): void {
    if (error === undefined || typeof error === 'string') {
      this.storageError = error;
      this.storageErrorRef = undefined;
    } else {
      this.storageError = english(error.key, error.values);
      this.storageErrorRef = error;
    }
  }

  async open(id: string): Promise<void> {
    const stored = await getCase(id);
    if (!stored) {
      this.#setStorageError(ref('runs.history.caseGone'));
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
    const { cards, customCards } = cardsOf(stored.results);
    this.cards = cards;
    this.customCards = customCards;
    this.scoredSource = stored.input.source;
    this.instructionsText = instructionsTextOf(stored.input.instructions ?? []);
    this.language.restore(stored.input);
    this.judgeReport = stored.judge ? shownJudgeReport(stored.judge) : undefined;
    this.judgeNotice = undefined;
    this.problems = [];
    this.openCaseId = id;
    this.scoredKey = scoredCaseKey(stored.input, this.settings, this.#judgeAsked(), this.models);
  }

  /**
   * Shows a data-set row and its stored results with the single-case cards, in the language its
   * run scored it in (chosen when the row named it, so that Score keeps it).
   */
  showCase(input: CaseInput, results: MetricResult[], language?: TextLanguage): void {
    this.#run?.abort();
    this.running = false;
    this.input = { source: input.source, summary: input.summary, reference: input.reference ?? '' };
    this.scoredSummary = input.summary;
    this.scoredSource = input.source;
    const { cards, customCards } = cardsOf(results);
    this.cards = cards;
    this.customCards = customCards;
    this.judgeNotice = undefined;
    this.problems = [];
    this.openCaseId = undefined;
    this.instructionsText = instructionsTextOf(input.instructions ?? []);
    this.language.restore(input, language?.basis === 'script' ? 'script' : 'detected');
    this.scoredKey = scoredCaseKey(
      { ...caseInputOf(this.input, input.instructions ?? []), ...this.language.current },
      this.settings,
      this.#judgeAsked(),
      this.models,
    );
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
}

/** failMissing with a reason the page words in the reader's language (English kept as text). */
function failMissingWith(
  ids: readonly MetricId[],
  results: MetricResult[],
  reason: MessageRef,
  backend: string,
): MetricResult[] {
  const failures: MetricResult[] = [];
  for (const id of ids) {
    if (results.some((r) => r.id === id)) continue;
    const failure = errorResult(id, english(reason.key, reason.values), backend, reason);
    results.push(failure);
    failures.push(failure);
  }
  return failures;
}
