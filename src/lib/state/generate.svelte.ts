/**
 * The generate panel's controller: the settings (remembered per data set so that a resumed run
 * uses the same prompt), TinyEval's config files, the plan before a run, and the run itself with
 * pause, cancel and the rows whose last attempt failed. Apart from GeneratePanel so that it can be
 * tested without a DOM; the panel keeps its two effects (remembering the settings, planning after
 * a change) and the formatting.
 */
import { said } from '../i18n/said-error.ts';
import { zodIssueRef } from '../i18n/zod-issue.ts';
import { z } from 'zod';
import { messageOf } from '../errors.ts';
import { t, tr } from '../i18n/i18n.svelte.ts';
import { ref, type MessageRef } from '../i18n/message.ts';
import { planGeneration, type GenerationPlan } from '../datasets/generate/plan.ts';
import {
  DEFAULT_MAX_NEW_TOKENS,
  MIN_PROMPT_TOKENS,
  TINYEVAL_PROMPT_TOKENS,
  configKeys,
  fieldsOfRows,
  genericTemplate,
  readGenerationConfig,
  settingsProblems,
  type GenerationSettings,
} from '../datasets/generate/prompt.ts';
import type { GenerationProgress } from '../datasets/generate/runner.ts';
import { generateStoredPredictions } from '../datasets/generate/stored.ts';
import { PauseController } from '../datasets/lanes.ts';
import { getDatasetRows } from '../storage/datasets.ts';
import { generationFailures, rowsNeedingPrediction } from '../storage/predictions.ts';
import { capabilityStore, judgeAnswerCache } from '../storage/judge-cache.ts';
import type { StoredDataset } from '../storage/schema.ts';
import { createJudge } from '../llm/client.ts';
import { contextWindow } from '../llm/capabilities.ts';
import type { Capabilities, Judge, JudgeResponse, ProviderConfig } from '../llm/types.ts';
import { judgeProviderSchema } from './judge-prefs.ts';
import type { JudgeSession } from './judge.svelte.ts';

export const GENERATE_PREFS_KEY = 'sumlens.generate.v1';
const prefsSchema = z.record(
  z.string(),
  z.object({
    template: z.string(),
    maxNewTokens: z.number(),
    promptTokens: z.number(),
  }),
);

function loadPrefs(): z.infer<typeof prefsSchema> {
  try {
    const parsed = prefsSchema.safeParse(
      JSON.parse(globalThis.localStorage?.getItem(GENERATE_PREFS_KEY) ?? '{}'),
    );
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** What of the judge session generation uses: the provider, its key and the price table. */
export type GenerateJudge = Pick<JudgeSession, 'config' | 'provider' | 'ready' | 'prices'>;

/** A file the user picked (a `File`; tests pass a name and a text). */
export interface ConfigFile {
  name: string;
  text(): Promise<string>;
}

export interface GenerateOptions {
  dataset: () => StoredDataset;
  judge: () => GenerateJudge;
  /** The data set's rows changed (predictions stored): refresh the list. */
  onchange: () => void;
  /** The model client for a run; default the page's client with its answer cache. */
  makeJudge?: (config: ProviderConfig) => Judge;
  /** Before planning after a change, so that typing does not plan at every key. */
  planDelayMs?: number;
}

/** How often the list's "without prediction" count follows a run. */
const LIST_REFRESH_MS = 3000;
/** Rows whose last attempt failed that the panel lists. */
const FAILURES_SHOWN = 20;

function defaultJudge(config: ProviderConfig): Judge {
  return createJudge(config, {
    cache: judgeAnswerCache<JudgeResponse>(),
    capabilityStore: capabilityStore<Capabilities>(),
  });
}

/** A stored message in the page's language; an error's own words as they are. */
function wordedOf(said: MessageRef | string): string {
  return typeof said === 'string' ? said : tr(said);
}

export class GenerateController {
  template = $state('');
  maxNewTokens = $state(DEFAULT_MAX_NEW_TOKENS);
  promptTokens = $state(TINYEVAL_PROMPT_TOKENS);
  /** The template fields the first rows have. */
  fields = $state<string[]>([]);
  loaded = $state(false);
  configMessages = $state<MessageRef[]>([]);
  /** A message (worded in the page's language when read), or an error's own words. */
  #configError = $state.raw<MessageRef | string>('');
  running = $state(false);
  paused = $state(false);
  progress = $state.raw<GenerationProgress | undefined>();
  #message = $state.raw<MessageRef | string>('');
  failures = $state.raw<Array<{ row: number; error: string }>>([]);
  plan = $state.raw<GenerationPlan | undefined>();
  planError = $state('');

  readonly settings = $derived<GenerationSettings>({
    template: this.template,
    maxNewTokens: this.maxNewTokens,
    promptTokens: this.promptTokens,
  });
  readonly templateProblems = $derived(settingsProblems(this.settings));
  readonly providerProblems = $derived.by(() => this.#providerProblems());
  readonly problems = $derived([...this.templateProblems, ...this.providerProblems]);
  readonly missing = $derived.by(() => this.#dataset.missingPredictions ?? 0);
  readonly keysText = $derived.by(() => configKeys(this.#dataset).join(' or '));

  readonly #options: GenerateOptions;
  #cancel: AbortController | undefined;
  #pause: PauseController | undefined;
  #planVersion = 0;
  #listRefreshedAt = 0;

  constructor(options: GenerateOptions) {
    this.#options = options;
  }

  get configError(): string {
    return wordedOf(this.#configError);
  }

  get message(): string {
    return wordedOf(this.#message);
  }

  get #dataset(): StoredDataset {
    return this.#options.dataset();
  }

  #providerProblems(): string[] {
    const judge = this.#options.judge();
    const out: string[] = [];
    const provider = judgeProviderSchema.safeParse($state.snapshot(judge.provider));
    if (!provider.success) {
      const issue = provider.error.issues[0];
      out.push(
        t('datasets.generate.providerInvalid', {
          section: ref('judge.provider.title'),
          path: issue?.path.join('.') ?? '',
          issue: issue ? zodIssueRef(issue) : ref('judge.problem.invalid'),
        }),
      );
    }
    if (!judge.ready) {
      out.push(
        t('judge.problem.noKey', {
          provider: judge.provider.kind,
          section: ref('judge.provider.title'),
        }),
      );
    }
    return out;
  }

  #defaultPromptTokens(maxNew: number): number {
    try {
      return Math.max(MIN_PROMPT_TOKENS, contextWindow(this.#options.judge().config()) - maxNew);
    } catch {
      return TINYEVAL_PROMPT_TOKENS;
    }
  }

  /** The fields of the first rows, the remembered settings (or defaults), the failed rows. */
  async load(): Promise<void> {
    const id = this.#dataset.id;
    try {
      this.fields = fieldsOfRows(await getDatasetRows(id, -Infinity, 50));
    } catch (error) {
      this.#message = messageOf(error);
    }
    const remembered = loadPrefs()[id];
    this.template = remembered?.template ?? genericTemplate(this.fields);
    this.maxNewTokens = remembered?.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS;
    this.promptTokens = remembered?.promptTokens ?? this.#defaultPromptTokens(this.maxNewTokens);
    this.loaded = true;
    await this.refreshFailures();
  }

  /** Remembers the settings for this data set (once loaded: never the defaults over them). */
  saveSettings(): void {
    if (!this.loaded) return;
    const settings = {
      template: this.template,
      maxNewTokens: this.maxNewTokens,
      promptTokens: this.promptTokens,
    };
    try {
      const all = loadPrefs();
      all[this.#dataset.id] = settings;
      globalThis.localStorage?.setItem(GENERATE_PREFS_KEY, JSON.stringify(all));
    } catch {
      // storage refused (quota, privacy mode): the settings last for this visit
    }
  }

  /** TinyEval's dataset2prompt.json, dataset2maxlen.json or model2maxlen.json, several at once. */
  async readConfigFiles(files: Iterable<ConfigFile>): Promise<void> {
    this.#configError = '';
    this.configMessages = [];
    const dataset = this.#dataset;
    for (const file of files) {
      try {
        const reading = readGenerationConfig(JSON.parse(await file.text()), {
          ...(dataset.task ? { task: dataset.task } : {}),
          name: dataset.name,
          model: this.#options.judge().provider.model,
        });
        if (reading.template !== undefined) this.template = reading.template;
        if (reading.maxNewTokens !== undefined) this.maxNewTokens = reading.maxNewTokens;
        if (reading.promptTokens !== undefined) this.promptTokens = reading.promptTokens;
        this.configMessages = [
          ...this.configMessages,
          ref('datasets.generate.config.fileLine', {
            file: file.name,
            message: reading.messageRef,
          }),
        ];
      } catch (error) {
        this.#configError = ref('datasets.fileError', {
          file: file.name,
          reason:
            error instanceof SyntaxError
              ? ref('datasets.generate.notJson', { reason: error.message })
              : said(error),
        });
      }
    }
  }

  /**
   * Plans the run after a pause in typing; returns the cleanup that drops a plan overtaken by a
   * newer change (run it from an effect, which then re-plans on every setting it read).
   */
  planLater(): (() => void) | undefined {
    if (!this.loaded || this.running) return undefined;
    const judge = this.#options.judge();
    const snapshot = { ...this.settings };
    const pricing = {
      provider: judge.provider.kind,
      model: judge.provider.model.trim(),
      prices: $state.snapshot(judge.prices),
    };
    const dataset = this.#dataset;
    // Stored predictions change what is left to plan.
    void dataset.missingPredictions;
    const version = ++this.#planVersion;
    const timer = setTimeout(() => {
      if (settingsProblems(snapshot).length > 0) {
        this.plan = undefined;
        return;
      }
      planGeneration(rowsNeedingPrediction(dataset.id), snapshot, pricing).then(
        (p) => {
          if (version !== this.#planVersion) return;
          this.plan = p;
          this.planError = '';
        },
        (error: unknown) => {
          if (version === this.#planVersion) this.planError = messageOf(error);
        },
      );
    }, this.#options.planDelayMs ?? 250);
    return () => clearTimeout(timer);
  }

  async refreshFailures(): Promise<void> {
    this.failures = await generationFailures(this.#dataset.id, FAILURES_SHOWN).catch(() => []);
  }

  /** Generates the missing predictions; resolves when the run ends, the message saying how. */
  async start(): Promise<void> {
    if (this.running || this.problems.length > 0) return;
    const judge = this.#options.judge();
    this.running = true;
    this.paused = false;
    this.#message = '';
    this.progress = undefined;
    const cancel = (this.#cancel = new AbortController());
    const pause = (this.#pause = new PauseController());
    const config = judge.config();
    try {
      const outcome = await generateStoredPredictions(this.#dataset.id, {
        judge: (this.#options.makeJudge ?? defaultJudge)(config),
        settings: { ...this.settings },
        prices: $state.snapshot(judge.prices),
        concurrency: judge.provider.concurrency,
        signal: cancel.signal,
        pause: pause.signal,
        onProgress: (p) => {
          this.progress = p;
          // The list's "without prediction" count follows the run, a few times a minute.
          if (p.done > 0 && Date.now() - this.#listRefreshedAt > LIST_REFRESH_MS) {
            this.#listRefreshedAt = Date.now();
            this.#options.onchange();
          }
        },
      });
      const summary = ref('datasets.generate.summary', {
        generated: outcome.generated,
        failed: outcome.failed,
      });
      this.#message =
        outcome.status === 'stopped'
          ? ref('datasets.generate.stopped', {
              reason: outcome.message ?? ref('datasets.generate.unknownError'),
              summary,
            })
          : outcome.status === 'cancelled'
            ? ref('datasets.generate.cancelled', { summary })
            : ref('datasets.generate.done', { summary });
    } catch (error) {
      this.#message = messageOf(error);
    } finally {
      this.running = false;
      this.paused = false;
      this.#cancel = undefined;
      this.#pause = undefined;
      await this.refreshFailures();
      this.#options.onchange();
    }
  }

  togglePause(): void {
    const pause = this.#pause;
    if (!pause) return;
    if (pause.paused) pause.resume();
    else pause.pause();
    this.paused = pause.paused;
  }

  cancel(): void {
    this.#cancel?.abort();
  }
}
