/**
 * The verdict's words: names of findings and checks in the reader's language, given the page's
 * `t` (or English, for exports). Kept out of the components so exports and tests word them alike.
 */
import { en, type MessageKey } from '../i18n/catalog-en.ts';
import { english, type MessageValues } from '../i18n/message.ts';
import { flagLabel } from '../metrics/quality-flags.ts';
import type { Assertion } from '../assertions/assertion.ts';
import type { Outcome } from '../assertions/evaluate.ts';
import type { FindingCount } from '../metrics/findings.ts';

export type Words = (key: MessageKey, values?: MessageValues) => string;

const isKey = (key: string): key is MessageKey => key in en;

/** A finding's or flag's short name: "fact not in the source", "lead copy". */
export function findingName(id: string, words: Words = english): string {
  const key = `verdict.flagName.${id}`;
  return isKey(key) ? words(key) : flagLabel(id, words);
}

/** "2 facts not in the source"; a quality flag reads as its name ("lead copy"). */
export function findingCountText(count: FindingCount, words: Words = english): string {
  const key = `verdict.kind.${count.id}`;
  return isKey(key)
    ? words(key, { count: count.count })
    : words('verdict.kind.flag', { flag: flagLabel(count.id, words) });
}

/** "fact check ≥ 0.9", "no lead copy", with the metric's label as given. */
export function checkText(
  assertion: Assertion,
  metricName: (id: string) => string,
  words: Words = english,
  formatThreshold: (x: number) => string = String,
): string {
  if (assertion.kind === 'no-flag') {
    return words('verdict.check.noFlag', { flag: findingName(assertion.flag, words) });
  }
  return words(assertion.op === '>=' ? 'verdict.check.min' : 'verdict.check.max', {
    metric: metricName(assertion.metric),
    threshold: formatThreshold(assertion.threshold),
  });
}

export function outcomeText(outcome: Outcome, words: Words = english): string {
  return words(
    outcome === 'pass'
      ? 'verdict.check.pass'
      : outcome === 'fail'
        ? 'verdict.check.fail'
        : 'verdict.check.skip',
  );
}
