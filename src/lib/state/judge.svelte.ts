/**
 * The page's LLM-judge state: provider (remembered, key apart), judge settings, the metrics picked,
 * the price table, the plan before a run and the tokens and cost after. Calls go from the page to
 * the provider (no worker: there is nothing to compute, only to wait for), through the client's
 * retry, concurrency limit and the content-addressed IndexedDB cache.
 */
import { zodIssueRef } from '../i18n/zod-issue.ts';
import { z } from 'zod';
import { englishRef, ref, type MessageKey, type MessageRef } from '../i18n/message.ts';
import { createJudge, testConnection } from '../llm/client.ts';
import type { ConnectionResult } from '../llm/client.ts';
import type { Capabilities, Judge, ProviderConfig } from '../llm/types.ts';
import { capabilitiesFromTraits, contextWindow, currentTraits } from '../llm/capabilities.ts';
import { DEFAULT_PRICE_TABLE, estimateCost, priceTableSchema } from '../llm/prices.ts';
import { providerRecord } from '../llm/providers/registry.ts';
import type { PriceTable } from '../llm/prices.ts';
import { DEFAULT_JUDGE_SETTINGS, withJudgeDefaults } from '../metrics/judge/settings.ts';
import { defaultJudgeMetrics } from '../metrics/judge/plan.ts';
import type { JudgeSettings } from '../metrics/judge/settings.ts';
import { planJudgeRun } from '../metrics/judge/plan.ts';
import type { JudgePlan } from '../metrics/judge/plan.ts';
import { runJudgeMetrics } from '../metrics/judge/run.ts';
import type { JudgeProgress, JudgeRunSummary } from '../metrics/judge/run.ts';
import type { CaseInput, JudgeMetricId, MetricResult } from '../metrics/types.ts';
import { JUDGE_METRIC_IDS } from '../metrics/registry.ts';
import { capabilityStore, judgeAnswerCache } from '../storage/judge-cache.ts';
import type { JudgeResponse } from '../llm/types.ts';
import { DEFAULT_JUDGE_PROVIDER, judgeProviderSchema } from './judge-prefs.ts';
import type { JudgeProviderPrefs } from './judge-prefs.ts';
import { KeyStore } from './provider-keys.ts';
import { judgeSettingsProblems, type SettingsProblem } from './settings-problems.ts';

export const JUDGE_PREFS_KEY = 'sumlens.judge.v1';

const storedJudgeSchema = z.object({
  enabled: z.boolean().optional(),
  provider: z.unknown().optional(),
  settings: z.unknown().optional(),
  metrics: z.array(z.enum(JUDGE_METRIC_IDS)).optional(),
  prices: z.unknown().optional(),
});

function loadStored() {
  try {
    const raw: unknown = JSON.parse(globalThis.localStorage?.getItem(JUDGE_PREFS_KEY) ?? '{}');
    const parsed = storedJudgeSchema.safeParse(raw);
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export interface JudgeRunReport {
  summary: JudgeRunSummary;
  /** USD, or undefined when the price table has no price for this model. */
  cost: number | undefined;
  provider: string;
  model: string;
}

export class JudgeSession {
  /** Off by default: the offline metrics never need a key. */
  enabled = $state(false);
  provider = $state<JudgeProviderPrefs>(structuredClone(DEFAULT_JUDGE_PROVIDER));
  settings = $state<JudgeSettings>(structuredClone(DEFAULT_JUDGE_SETTINGS));
  metrics = $state<JudgeMetricId[]>(defaultJudgeMetrics(DEFAULT_JUDGE_SETTINGS));
  prices = $state<PriceTable>(structuredClone(DEFAULT_PRICE_TABLE));
  /** Bumped when a key changes: `hasKey` reads the key store, which is not reactive itself. */
  keyVersion = $state(0);
  progress = $state<JudgeProgress | undefined>();
  lastRun = $state.raw<JudgeRunReport | undefined>();
  readonly keys = new KeyStore();

  constructor() {
    const stored = loadStored();
    this.enabled = stored.enabled ?? false;
    const provider = judgeProviderSchema.safeParse(stored.provider);
    if (provider.success) this.provider = provider.data;
    this.settings = withJudgeDefaults(stored.settings as Partial<JudgeSettings> | undefined);
    if (stored.metrics) this.metrics = stored.metrics;
    const prices = priceTableSchema.safeParse(stored.prices);
    if (prices.success) this.prices = prices.data;
  }

  get hasKey(): boolean {
    void this.keyVersion;
    return this.keys.get(this.provider.kind) !== undefined;
  }

  /** Local OpenAI-compatible servers usually take no key. */
  get ready(): boolean {
    return this.hasKey || !providerRecord(this.provider.kind).keyRequired;
  }

  save(): void {
    try {
      globalThis.localStorage?.setItem(
        JUDGE_PREFS_KEY,
        JSON.stringify({
          enabled: this.enabled,
          provider: $state.snapshot(this.provider),
          settings: $state.snapshot(this.settings),
          metrics: $state.snapshot(this.metrics),
          prices: $state.snapshot(this.prices),
        }),
      );
    } catch {
      // storage refused (quota, privacy mode): the choices last for this visit
    }
  }

  config(): ProviderConfig {
    const apiKey = this.keys.get(this.provider.kind);
    return {
      kind: this.provider.kind,
      model: this.provider.model.trim(),
      baseUrl: this.provider.baseUrl,
      concurrency: this.provider.concurrency,
      timeoutSec: this.provider.timeoutSec,
      ...(apiKey ? { apiKey } : {}),
    };
  }

  /** Why the judge cannot run now, in English (logs, filters, tests); empty when it can run. */
  problems(): string[] {
    return this.problemRefs().map(englishRef);
  }

  /**
   * The judge settings that do not validate: each stops only the metrics that read it (run.ts
   * says so on their cards), so none of them is a reason the judge cannot run.
   */
  get settingsProblems(): SettingsProblem[] {
    return judgeSettingsProblems($state.snapshot(this.settings) as JudgeSettings);
  }

  /** Why the judge cannot run now, as messages the page words in the reader's language. */
  problemRefs(): MessageRef[] {
    const out: MessageRef[] = [];
    const invalid = (key: MessageKey, issue: z.core.$ZodIssue | undefined) =>
      ref(key, {
        path: issue?.path.join('.') ?? '',
        issue: issue ? zodIssueRef(issue) : ref('judge.problem.invalid'),
      });
    const provider = judgeProviderSchema.safeParse($state.snapshot(this.provider));
    if (!provider.success) out.push(invalid('judge.problem.provider', provider.error.issues[0]));
    if (!this.ready) {
      out.push(
        ref('judge.problem.noKey', {
          provider: this.provider.kind,
          section: ref('judge.provider.title'),
        }),
      );
    }
    if (this.metrics.length === 0) out.push(ref('judge.problem.noMetric'));
    return out;
  }

  /**
   * What stops a data-set run's judge: the case's problems but "no LLM metric chosen" (a run
   * chooses its own metrics; filtered by key, so it holds in every language), and the settings
   * problems that would stop one of `metrics`, before any row is scored without it.
   */
  runProblemRefs(metrics: readonly JudgeMetricId[] = []): MessageRef[] {
    const blocking = this.settingsProblems
      .filter((p) => p.metrics.some((id) => metrics.includes(id as JudgeMetricId)))
      .map((p) => p.messageRef);
    return [...this.problemRefs().filter((p) => p.key !== 'judge.problem.noMetric'), ...blocking];
  }

  /**
   * The calls and estimated cost of judging this case, before running it. `capabilities`: what a
   * probe found (`probe()`), or null when it failed (the costliest fallback is planned); the
   * static table when not given.
   */
  plan(
    input: CaseInput,
    metrics: readonly JudgeMetricId[] = this.metrics,
    probed?: Capabilities | null,
  ): { plan: JudgePlan; cost: number | undefined } | undefined {
    if (metrics.length === 0) return undefined;
    let capabilities: Capabilities | undefined;
    try {
      // The table, corrected by a probe made earlier in this session (a run, a data-set plan).
      capabilities =
        probed === null
          ? undefined
          : (probed ?? capabilitiesFromTraits(currentTraits(this.config())));
    } catch {
      capabilities = undefined;
    }
    const plan = planJudgeRun([...metrics], input, this.#runSettings(this.config()), capabilities);
    const cost = estimateCost(
      { input: plan.estimatedTokens.input, output: plan.estimatedTokens.output },
      this.provider.kind,
      this.provider.model,
      $state.snapshot(this.prices),
    );
    return { plan, cost };
  }

  /** The settings for a run: the context never larger than the model's own window. */
  #runSettings(config: ProviderConfig): JudgeSettings {
    const settings = $state.snapshot(this.settings);
    let window = settings.contextTokens;
    try {
      window = contextWindow(config);
    } catch {
      // an unparsable base URL: the run will report it
    }
    return { ...settings, contextTokens: Math.min(settings.contextTokens, window) };
  }

  /**
   * A judge for a data-set run: the provider chosen now, its cache and concurrency limit, the
   * settings clamped to the model's window, and the price table, all snapshotted so that a change
   * in the panel mid-run does not mix two judges in one run.
   */
  batchJudge(options: { fetch?: typeof fetch } = {}): {
    judge: Judge;
    settings: JudgeSettings;
    prices: PriceTable;
  } {
    const problems = this.runProblemRefs().map(englishRef);
    if (problems.length > 0) throw new Error(problems.join(' '));
    const config = this.config();
    return {
      judge: createJudge(config, {
        cache: judgeAnswerCache<JudgeResponse>(),
        capabilityStore: capabilityStore<Capabilities>(),
        secrets: () => this.keys.held(),
        // A dead key or an exhausted quota stops the run's other calls before they are sent.
        stopOnFatal: true,
        // (the run's spend ceiling: data-set runs pass their gate, run-ceiling.ts)
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
      settings: this.#runSettings(config),
      prices: $state.snapshot(this.prices),
    };
  }

  /**
   * What the model accepts (logprobs, n, JSON…), asked once per provider and model (one tiny
   * request, then cached on this device): what a plan needs to count G-Eval's fallback. Without a
   * key the static table answers; a failure throws.
   */
  probe(signal?: AbortSignal): Promise<Capabilities> {
    return createJudge(this.config(), {
      capabilityStore: capabilityStore<Capabilities>(),
      secrets: () => this.keys.held(),
    }).capabilities(signal);
  }

  testConnection(): Promise<ConnectionResult> {
    return testConnection(this.config());
  }

  async run(
    input: CaseInput,
    onResult: (result: MetricResult) => void,
    signal: AbortSignal,
  ): Promise<JudgeRunReport> {
    const config = this.config();
    const judge = createJudge(config, {
      cache: judgeAnswerCache<JudgeResponse>(),
      capabilityStore: capabilityStore<Capabilities>(),
      secrets: () => this.keys.held(),
    });
    this.progress = undefined;
    try {
      const summary = await runJudgeMetrics(input, {
        metrics: $state.snapshot(this.metrics),
        settings: this.#runSettings(config),
        judge,
        onResult,
        onProgress: (p) => (this.progress = p),
        signal,
      });
      const report: JudgeRunReport = {
        summary,
        cost: estimateCost(summary.usage, config.kind, config.model, $state.snapshot(this.prices)),
        provider: config.kind,
        model: config.model,
      };
      this.lastRun = report;
      return report;
    } finally {
      this.progress = undefined;
    }
  }
}
