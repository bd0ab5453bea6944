import { localized } from '../../lib/i18n/i18n.svelte.ts';
import type { SettingsProblem } from '../../lib/state/settings-problems.ts';

/** The message of the first problem at `path` (or under it), worded in the reader's language. */
export function problemAt(problems: readonly SettingsProblem[], path: string): string | undefined {
  const problem = problems.find((p) => p.path === path || p.path.startsWith(`${path}.`));
  return problem ? localized(problem.message, problem.messageRef) : undefined;
}
