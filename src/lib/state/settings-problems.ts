/**
 * Metric settings that do not validate (a hand-edited field, an older stored copy), said the way
 * the settings panel names the field, and the metrics each one stops: a bad entity-density target
 * blocks entity density only, never ROUGE. Apart from the session so the panel, the cards and
 * Score read one answer.
 */
import type { z } from 'zod';
import { METRICS, metricRecord } from '../metrics/registry.ts';
import {
  DEFAULT_SETTINGS,
  metricSettingsSchema,
  type MetricSettings,
} from '../metrics/settings.ts';
import type { MetricId } from '../metrics/types.ts';

export interface SettingsProblem {
  /** The setting's path, e.g. "density.target": the panel shows the message next to that field. */
  path: string;
  /** The field as the panel labels it, for the cards it blocks. */
  field: string;
  message: string;
  /** The metrics that read this setting and so are not scored while it is wrong. */
  metrics: readonly MetricId[];
}

const FIELDS: Record<string, string> = {
  'density.target': 'Entity density target',
  'density.width': 'Entity density width',
  'rouge.useStemmer': 'ROUGE stemmer',
  'rouge.lsumSplitSentences': 'ROUGE-Lsum sentences',
  'rouge.tokenizer': 'ROUGE/BLEU tokens',
  'backends.embedding': 'Sentence encoder',
  'backends.ner': 'Entity recogniser',
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

function fieldOf(path: readonly PropertyKey[]): string {
  const parts = path.map(String);
  return FIELDS[parts.join('.')] ?? FIELDS[parts.slice(0, 2).join('.')] ?? parts.join('.');
}

/** zod's issue as a person reads it: "must be at least 0", not "Too small: expected number…". */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'too_small') {
    return `must be ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)}`;
  }
  if (issue.code === 'too_big') {
    return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}`;
  }
  if (issue.code === 'invalid_type') return 'must be filled in';
  if (issue.code === 'invalid_value' || issue.code === 'invalid_union') return 'is not a choice';
  return issue.message.replace(/^\w/u, (c) => c.toLowerCase());
}

export function settingsProblems(settings: MetricSettings): SettingsProblem[] {
  const check = metricSettingsSchema.safeParse(settings);
  if (check.success) return [];
  const byPath = new Map<string, SettingsProblem>();
  for (const issue of check.error.issues) {
    const path = issue.path.map(String).join('.');
    if (byPath.has(path)) continue;
    const field = fieldOf(issue.path);
    byPath.set(path, {
      path,
      field,
      message: `${field} ${messageOf(issue)}.`,
      metrics: metricsReading(issue.path),
    });
  }
  return [...byPath.values()];
}

/** Each blocked metric with the message its card shows instead of a score. */
export function blockedMetrics(problems: readonly SettingsProblem[]): Map<MetricId, string> {
  const blocked = new Map<MetricId, string>();
  for (const problem of problems) {
    for (const id of problem.metrics) {
      const before = blocked.get(id);
      blocked.set(id, before ? `${before} ${problem.message}` : problem.message);
    }
  }
  for (const [id, messages] of blocked) {
    blocked.set(id, `Not scored: ${messages} Fix it in Metric settings.`);
  }
  return blocked;
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
