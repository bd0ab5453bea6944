/**
 * The page's scoring session: the cards' states, the history list and the draft. Scoring itself
 * (workers, language detection, embeddings, the judge) is the engine's (../scoring/engine.ts),
 * which data-set runs in the page share; this class holds what the page shows of it. What the
 * cards hold is built in metric-cards.ts, the case and its problems in case-input.ts.
 */
import { APP_VERSION } from '../version.ts';
import { messageOf } from '../errors.ts';
import { METRICS } from '../metrics/registry.ts';
import { withDefaults } from '../metrics/settings.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import type { CaseInput, CaseTexts, MetricId, MetricResult } from '../metrics/types.ts';
import type { InputProblem } from '../input/validate-case.ts';
import { loadDraft } from '../storage/cases.ts';
import type { Progress } from '../workers/worker-client.ts';
import type { ModelSource } from '../models/source.ts';
import { parseInstructions } from '../input/instructions.ts';
import { ScoringEngine } from '../scoring/engine.ts';
import type { CaseJudge } from '../scoring/judge-step.ts';
import { failMissing } from '../scoring/results.ts';
import { loadPreferences, savePreferences } from './preferences.ts';
import { JudgeSession, type JudgeRunReport } from './judge.svelte.ts';
import { caseInputOf, caseProblems, instructionsTextOf, textsOf } from './case-input.ts';
import { CaseLanguage } from './case-language.svelte.ts';
import type { TextLanguage } from '../metrics/text/language.ts';
import { DraftSaver } from './draft-saver.ts';
import { CaseHistory } from './case-history.svelte.ts';
import {
  cardsOf,
  idleCards,
  runningCards,
  shownJudgeReport,
  storedJudgeRun,
  type CardState,
  type ShownJudgeReport,
} from './metric-cards.ts';
import {
  blockedMetricReasons,
  runnableSettings,
  settingsProblems,
  type SettingsProblem,
} from './settings-problems.ts';
import { scoredCaseKey } from './scored-case.ts';
import {
  failedRunNotice,
  notRunNotice,
  stoppedRunNotice,
  type JudgeNotice,
} from './judge-notice.ts';
import { WorkerProgress } from './worker-progress.svelte.ts';

const PREFERENCES = loadPreferences();

export class ScoringSession {
  input = $state<CaseTexts>({ source: '', summary: '', reference: '' });
  /** Remembered across visits (preferences.ts); each saved case also keeps the settings it used. */
  settings = $state<MetricSettings>(PREFERENCES.settings);
  /** Where transformer models come from; remembered, never stored with cases. */
  models = $state<ModelSource>(PREFERENCES.models);
  cards = $state.raw<Record<MetricId, CardState>>(idleCards());
  problems = $state.raw<InputProblem[]>([]);
  running = $state(false);
  /** The saved cases, and the storage error shown above the form. */
  readonly history = new CaseHistory();
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
  readonly #draft = new DraftSaver((message) => this.history.setStorageError(message));
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

  /** Model-loading progress, one row per worker and file. */
  get progress(): Record<string, Progress> {
    return this.#progress.rows;
  }

  /** Scoring itself, shared with the data-set runs that execute in the page. */
  readonly engine: ScoringEngine;

  constructor(engine: ScoringEngine = new ScoringEngine()) {
    this.engine = engine;
  }

  async init(): Promise<void> {
    // Load vectors, the recogniser and any chosen model while the user is still pasting.
    this.engine.start();
    void this.loadBackends();
    try {
      const draft = await loadDraft();
      // Reading a long draft back is a task of its own (1.7 M characters: ~100 ms); showing it is
      // another, not the same one.
      await new Promise((next) => setTimeout(next, 0));
      if (draft && !this.input.source && !this.input.summary) {
        this.input = { ...draft.input, reference: draft.input.reference ?? '' };
      }
      await this.history.reload();
    } catch (error) {
      this.history.setStorageError(messageOf(error));
    }
  }

  /**
   * Loads every worker's backend for the current settings (the built-in ones, or the chosen
   * models): on start, and from Settings' "Load now". A model that fails shows why in the
   * progress area; scoring still works (it falls back to the built-in backend).
   */
  async loadBackends(): Promise<void> {
    await this.engine.loadBackends(
      $state.snapshot(this.settings),
      $state.snapshot(this.models),
      (needs, progress) => this.#showProgress(needs, progress),
      (needs) => {
        if (needs === 'embedding') this.encoderLoads++;
      },
    );
  }

  #showProgress(needs: string, progress: Progress | undefined): void {
    if (progress) this.#progress.set(needs, progress);
    else this.#progress.clear(needs);
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
    this.engine.schedulePreEmbed(() => ({
      texts: { source: this.input.source, summary: this.input.summary },
      settings: $state.snapshot(this.settings),
      models: $state.snapshot(this.models),
    }));
  }

  /** Writes the draft at once (before a reload into a new version), instead of after the pause. */
  async saveDraftNow(): Promise<void> {
    await this.#draft.saveNow(textsOf(this.input));
  }

  async score(): Promise<void> {
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
      ...(await this.language.forCase(input, (sample) => this.engine.detectLanguage(sample))),
    };
    const key = scoredCaseKey(caseInput, settings, this.#judgeAsked(), models);
    // An identical re-score replaces the entry on screen instead of adding one to the history.
    const sameCaseId = key === this.scoredKey ? this.openCaseId : undefined;
    const wrongSettings = settingsProblems(settings);
    const blocked = blockedMetricReasons(wrongSettings);
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
      for (const failure of failMissing([id], results, reason, 'none')) this.#show(failure);
    }
    const judge = runJudge ? this.#caseJudge() : undefined;
    let scored;
    try {
      scored = await this.engine.scoreCase(
        caseInput,
        {
          metrics: METRICS.filter((m) => m.needs !== 'llm' && !blocked.has(m.id)).map((m) => m.id),
          settings: runnableSettings(settings, wrongSettings),
          models,
          // Provider embeddings need the judge's key, which stays in the page: no worker gets it.
          providerConfig: () => this.judge.config(),
          ...(judge ? { judge } : {}),
        },
        {
          signal: run.signal,
          onProgress: (needs, progress) => this.#showProgress(needs, progress),
          onResult: (result) => this.#show(result),
        },
      );
    } catch (error) {
      if (run.signal.aborted) return;
      throw error;
    }
    const stopped = scored.judge && 'error' in scored.judge && failedRunNotice(scored.judge.error);
    if (judge && stopped) {
      this.judgeNotice = stopped;
      for (const id of judge.metrics) this.#setCard(id, { status: 'idle' });
    }
    this.running = false;
    this.#run = undefined;

    results.push(...scored.results);
    const order = new Map(METRICS.map((m, i) => [m.id, i]));
    results.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    await this.#saveScoredCase(caseInput, settings, results, sameCaseId);
  }

  /** A result on its card as it arrives; each user-defined G-Eval criterion has a card of its own. */
  #show(result: MetricResult): void {
    if (result.id === 'geval-custom') this.customCards = [...this.customCards, result];
    else this.#setCard(result.id, { status: result.status, result });
  }

  /** The LLM metrics of the case, from the page, with the report and notice the page shows. */
  #caseJudge(): CaseJudge<JudgeRunReport> {
    const ids = [...this.judge.metrics];
    return {
      metrics: ids,
      backend: `judge:${this.judge.provider.kind}/${this.judge.provider.model}`,
      run: async (input, onResult, signal) => {
        const report = await this.judge.run(input, onResult, signal);
        if (signal.aborted) return report;
        this.judgeReport = { ...report.summary, cost: report.cost };
        const stopped = stoppedRunNotice(report.summary.failures);
        if (stopped) {
          this.judgeNotice = stopped;
          // Their results stay in the case; on screen, the notice says it once. Every failure was
          // this error, so every red card is (the combined summarization score included).
          for (const id of ids)
            if (this.cards[id].status === 'error') this.#setCard(id, { status: 'idle' });
        }
        return report;
      },
    };
  }

  async #saveScoredCase(
    input: CaseInput,
    settings: MetricSettings,
    results: MetricResult[],
    id: string = crypto.randomUUID(),
  ): Promise<void> {
    const entry = await this.history.save({
      id,
      createdAt: Date.now(),
      input,
      settings,
      results,
      appVersion: APP_VERSION,
      ...(this.judgeReport ? { judge: storedJudgeRun(this.judgeReport, this.judge.provider) } : {}),
    });
    if (entry) this.openCaseId = entry.id;
  }

  cancel(): void {
    this.#run?.abort();
    this.#run = undefined;
    this.running = false;
    this.cards = idleCards();
    this.scoredKey = undefined;
    this.judgeNotice = undefined;
  }

  async open(id: string): Promise<void> {
    const stored = await this.history.read(id);
    if (!stored) return;
    this.#showResults(stored.input, stored.results);
    this.settings = withDefaults(stored.settings);
    this.language.restore(stored.input);
    this.judgeReport = stored.judge ? shownJudgeReport(stored.judge) : undefined;
    this.openCaseId = id;
    this.scoredKey = scoredCaseKey(stored.input, this.settings, this.#judgeAsked(), this.models);
  }

  /**
   * Shows a data-set row and its stored results with the single-case cards, in the language its
   * run scored it in (chosen when the row named it, so that Score keeps it).
   */
  showCase(input: CaseInput, results: MetricResult[], language?: TextLanguage): void {
    this.#showResults(input, results);
    this.openCaseId = undefined;
    this.language.restore(input, language?.basis === 'script' ? 'script' : 'detected');
    this.scoredKey = scoredCaseKey(
      { ...caseInputOf(this.input, input.instructions ?? []), ...this.language.current },
      this.settings,
      this.#judgeAsked(),
      this.models,
    );
  }

  /** A case scored before (stored, or a data-set row) in the form and on the cards. */
  #showResults(input: CaseInput, results: readonly MetricResult[]): void {
    this.#run?.abort();
    this.running = false;
    this.input = { source: input.source, summary: input.summary, reference: input.reference ?? '' };
    this.scoredSummary = input.summary;
    this.scoredSource = input.source;
    const { cards, customCards } = cardsOf(results);
    this.cards = cards;
    this.customCards = customCards;
    this.instructionsText = instructionsTextOf(input.instructions ?? []);
    this.judgeNotice = undefined;
    this.problems = [];
  }

  async remove(id: string): Promise<void> {
    await this.history.remove(id);
    if (this.openCaseId === id) this.openCaseId = undefined;
  }

  async removeAll(): Promise<void> {
    await this.history.removeAll();
    this.openCaseId = undefined;
  }

  #setCard(id: MetricId, state: CardState): void {
    this.cards = { ...this.cards, [id]: state };
  }
}
