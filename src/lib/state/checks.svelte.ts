/**
 * The assertions the page applies, as runes: the pasted case's preset, and the open data set's.
 * Reading is synchronous (localStorage), so a reload shows pass/fail with the first paint of
 * results; every edit is saved at once.
 */
import { METRIC_IDS } from '../metrics/registry.ts';
import type { Assertion } from '../assertions/assertion.ts';
import { loadChecks, saveChecks, type ChecksScope } from '../assertions/stored.ts';

export class Checks {
  list = $state<Assertion[]>([]);
  /** False when the browser refused to keep the last edit (shown beside the editor). */
  saved = $state(true);

  constructor(readonly scope: ChecksScope) {
    this.list = loadChecks(scope, METRIC_IDS);
  }

  set(list: readonly Assertion[]) {
    this.list = [...list];
    this.saved = saveChecks(this.scope, this.list);
  }

  add(assertion: Assertion) {
    this.set([...this.list, assertion]);
  }

  remove(index: number) {
    this.set(this.list.filter((_, i) => i !== index));
  }
}
