/**
 * Metric settings that do not validate (a hand-edited field, an older stored copy), said the way
 * the settings panel names the field, and the metrics each one stops: a bad entity-density target
 * blocks entity density only, never ROUGE. Apart from the session so the panel, the cards and
 * Score read one answer.
 */
import { zodIssueRef } from '../i18n/zod-issue.ts';
import type { z } from 'zod';
import { METRICS, metricRecord } from '../metrics/registry.ts';
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

/** zod's issue as a person reads it: "must be at least 0", not "Too small: expected number…". */
function messageOf(issue: z.core.$ZodIssue, field: MessageRef): MessageRef {
  if (issue.code === 'too_small') {
    const key =
      issue.inclusive === false ? 'settings.problem.moreThan' : 'settings.problem.atLeast';
    return ref(key, { field, limit: Number(issue.minimum) });
  }
  if (issue.code === 'too_big') {
    const key = issue.inclusive === false ? 'settings.problem.lessThan' : 'settings.problem.atMost';
    return ref(key, { field, limit: Number(issue.maximum) });
  }
  if (issue.code === 'invalid_type') return ref('settings.problem.required', { field });
  if (issue.code === 'invalid_value' || issue.code === 'invalid_union') {
    return ref('settings.problem.notChoice', { field });
  }
  return ref('settings.problem.other', { field, detail: zodIssueRef(issue) });
}

export function settingsProblems(settings: MetricSettings): SettingsProblem[] {
  const check = metricSettingsSchema.safeParse(settings);
  if (check.success) return [];
  const byPath = new Map<string, SettingsProblem>();
  for (const issue of check.error.issues) {
    const path = issue.path.map(String).join('.');
    if (byPath.has(path)) continue;
    const field = fieldOf(issue.path);
    const messageRef = messageOf(issue, field);
    byPath.set(path, {
      path,
      field: english(field.key, field.values),
      message: english(messageRef.key, messageRef.values),
      messageRef,
      metrics: metricsReading(issue.path),
    });
  }
  return [...byPath.values()];
}

/** Each blocked metric with the reason its card shows instead of a score, as a ref. */
export function blockedMetricReasons(
  problems: readonly SettingsProblem[],
): Map<MetricId, MessageRef> {
  const joined = new Map<MetricId, MessageRef>();
  for (const problem of problems) {
    for (const id of problem.metrics) {
      const before = joined.get(id);
      joined.set(
        id,
        before
          ? ref('settings.problem.join', { first: before, next: problem.messageRef })
          : problem.messageRef,
      );
    }
  }
  return new Map(
    [...joined].map(([id, messages]) => [id, ref('settings.blocked', { problems: messages })]),
  );
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
