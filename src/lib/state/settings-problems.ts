/**
 * Metric settings and judge settings that do not validate (a hand-edited field, an older stored
 * copy), said the way their panel names the field, and the metrics each one stops: a bad
 * entity-density target blocks entity density only, never ROUGE; a G-Eval criterion's name too
 * long blocks G-Eval custom only, never the other LLM metrics. Apart from the session so the
 * panel, the cards and Score read one answer.
 */
import { JUDGE_METRIC_IDS, METRICS, metricRecord } from '../metrics/registry.ts';
import {
  criterionProblems,
  judgeSettingsProblems as judgeProblemRefs,
  type JudgeSettings,
} from '../metrics/judge/settings.ts';
import {
  blockedReasons,
  settingProblems,
  type SettingProblemRef,
} from '../metrics/setting-problems.ts';
import {
  DEFAULT_SETTINGS,
  metricSettingsSchema,
  type MetricSettings,
} from '../metrics/settings.ts';
import type { MetricId } from '../metrics/types.ts';
import { english, ref, type MessageKey, type MessageRef } from '../i18n/message.ts';

export interface SettingsProblem {
  /** The setting's path, e.g. "density.target": the panel shows the message next to that field. */
  path: string;
  /** The field as the panel labels it, for the cards it blocks. */
  field: string;
  /** English, for tests and logs; the page words `messageRef`. */
  message: string;
  messageRef: MessageRef;
  /** The metrics that read this setting and so are not scored while it is wrong. */
  metrics: readonly MetricId[];
}

const FIELDS: Record<string, MessageKey> = {
  'density.target': 'settings.field.densityTarget',
  'density.width': 'settings.field.densityWidth',
  'rouge.useStemmer': 'settings.field.rougeStemmer',
  'rouge.lsumSplitSentences': 'settings.field.rougeLsum',
  'rouge.tokenizer': 'settings.field.rougeTokenizer',
  'backends.embedding': 'settings.field.embedding',
  'backends.ner': 'settings.field.ner',
};

/** The metrics that read the setting at `path`. */
function metricsReading(path: readonly PropertyKey[]): MetricId[] {
  const [group, kind] = path.map(String);
  if (group === 'density') return ['entity-density'];
  if (group === 'rouge') {
    // ROUGE, BLEU and token F1 share one calculator, and read these settings together.
    const shared = metricRecord('rouge-1').compute;
    return METRICS.filter((m) => {
      const record = metricRecord(m.id);
      return record.kind === 'offline' && record.compute === shared;
    }).map((m) => m.id);
  }
  if (group === 'backends' && (kind === 'embedding' || kind === 'ner')) {
    return METRICS.filter((m) => m.needs === kind).map((m) => m.id);
  }
  // A setting no metric is known to read: every offline metric, to be safe.
  return METRICS.filter((m) => m.needs !== 'llm').map((m) => m.id);
}

function fieldOf(path: readonly PropertyKey[]): MessageRef {
  const parts = path.map(String);
  const key = FIELDS[parts.join('.')] ?? FIELDS[parts.slice(0, 2).join('.')];
  return key ? ref(key) : ref('common.literal', { text: parts.join('.') });
}

/** A problem with its English words, for tests, logs and the CLI. */
function inEnglish(problem: SettingProblemRef): SettingsProblem {
  const { field, messageRef } = problem;
  return {
    ...problem,
    field: english(field.key, field.values),
    message: english(messageRef.key, messageRef.values),
  };
}

/** The judge settings that do not validate, each shown next to its field in the judge panel. */
export function judgeSettingsProblems(settings: JudgeSettings): SettingsProblem[] {
  return judgeProblemRefs(settings, JUDGE_METRIC_IDS).map(inEnglish);
}

/**
 * A G-Eval criterion as it is typed in (paths `name`, `description`, `scale`): refused by its
 * field, with the limit, before it is ever added to the settings.
 */
export function newCriterionProblems(draft: {
  name: string;
  description: string;
  scale: [number, number];
}): SettingsProblem[] {
  return criterionProblems(draft).map(inEnglish);
}

export function settingsProblems(settings: MetricSettings): SettingsProblem[] {
  const check = metricSettingsSchema.safeParse(settings);
  if (check.success) return [];
  return settingProblems(check.error.issues, fieldOf, metricsReading).map(inEnglish);
}

/** Each blocked metric with the reason its card shows instead of a score, as a ref. */
export function blockedMetricReasons(
  problems: readonly SettingsProblem[],
): Map<MetricId, MessageRef> {
  return blockedReasons(problems);
}

/** Each blocked metric with the message its card shows instead of a score (English). */
export function blockedMetrics(problems: readonly SettingsProblem[]): Map<MetricId, string> {
  return new Map(
    [...blockedMetricReasons(problems)].map(([id, reason]) => [
      id,
      english(reason.key, reason.values),
    ]),
  );
}

/**
 * The settings the workers get (they accept only valid ones): each wrong value replaced by its
 * default. Only blocked metrics read those values, and they are not run.
 */
export function runnableSettings(
  settings: MetricSettings,
  problems: readonly SettingsProblem[],
): MetricSettings {
  const out = structuredClone(settings);
  for (const { path } of problems) {
    // A backend choice is replaced whole: its fields only make sense together.
    const keys = path.startsWith('backends.') ? path.split('.').slice(0, 2) : path.split('.');
    let target: Record<string, unknown> = out as unknown as Record<string, unknown>;
    let source: Record<string, unknown> = DEFAULT_SETTINGS as unknown as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) {
      target = target[key] as Record<string, unknown>;
      source = source[key] as Record<string, unknown>;
      if (!target || !source) break;
    }
    const last = keys.at(-1);
    if (target && source && last !== undefined) target[last] = structuredClone(source[last]);
  }
  return out;
}
