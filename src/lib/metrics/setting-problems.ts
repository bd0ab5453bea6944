/**
 * What the metric settings and the judge settings share about a setting that does not validate:
 * the sentence that says what is wrong with it, named as its panel names the field, and the
 * reason each metric that reads it shows instead of a score. Here rather than in the page's state
 * (src/lib/state/settings-problems.ts) because the judge's orchestrator says it too, for every
 * caller: the page, a data-set run, an imported run, the CLI.
 */
import { zodIssueRef } from '../i18n/zod-issue.ts';
import type { z } from 'zod';
import { ref, type MessageKey, type MessageRef, type MessageValues } from '../i18n/message.ts';
import type { MetricId } from './types.ts';

/** One setting that does not validate, and the metrics it stops. */
export interface SettingProblemRef {
  /** The setting's path, e.g. "density.target": the panel shows the message next to that field. */
  path: string;
  /** The field as the panel labels it. */
  field: MessageRef;
  messageRef: MessageRef;
  /** The metrics that read this setting and so are not scored while it is wrong. */
  metrics: readonly MetricId[];
}

/** zod's issue as a person reads it: "must be at least 0", not "Too small: expected number…". */
export function settingIssueRef(issue: z.core.$ZodIssue, field: MessageRef): MessageRef {
  const text = 'origin' in issue && issue.origin === 'string';
  if (issue.code === 'too_small') {
    const limit = Number(issue.minimum);
    if (text)
      return limit <= 1
        ? ref('settings.problem.required', { field })
        : ref('settings.problem.tooShort', { field, limit });
    const key =
      issue.inclusive === false ? 'settings.problem.moreThan' : 'settings.problem.atLeast';
    return ref(key, { field, limit });
  }
  if (issue.code === 'too_big') {
    const limit = Number(issue.maximum);
    if (text) return ref('settings.problem.tooLong', { field, limit });
    const key = issue.inclusive === false ? 'settings.problem.lessThan' : 'settings.problem.atMost';
    return ref(key, { field, limit });
  }
  if (issue.code === 'invalid_type') return ref('settings.problem.required', { field });
  if (issue.code === 'invalid_value' || issue.code === 'invalid_union') {
    return ref('settings.problem.notChoice', { field });
  }
  return ref('settings.problem.other', { field, detail: zodIssueRef(issue) });
}

/** The first problem of each field, worded: `label` names a field, `metrics` says who reads it. */
export function settingProblems(
  issues: readonly z.core.$ZodIssue[],
  label: (path: readonly string[]) => MessageRef,
  metrics: (path: readonly string[]) => readonly MetricId[],
): SettingProblemRef[] {
  const byPath = new Map<string, SettingProblemRef>();
  for (const issue of issues) {
    const parts = issue.path.map(String);
    const path = parts.join('.');
    if (byPath.has(path)) continue;
    const field = label(parts);
    byPath.set(path, {
      path,
      field,
      messageRef: settingIssueRef(issue, field),
      metrics: metrics(parts),
    });
  }
  return [...byPath.values()];
}

/**
 * Each blocked metric with the reason its card shows instead of a score: `blocked` with the
 * problems that stop it joined (`settings.blocked` says where to fix them).
 */
export function blockedReasons(
  problems: readonly Pick<SettingProblemRef, 'messageRef' | 'metrics'>[],
  blocked: MessageKey = 'settings.blocked',
  values: MessageValues = {},
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
    [...joined].map(([id, messages]) => [id, ref(blocked, { ...values, problems: messages })]),
  );
}
