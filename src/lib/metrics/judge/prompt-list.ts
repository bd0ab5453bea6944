/**
 * Every prompt the registered judge metrics send, once each: what a fake judge in the tests
 * recognises a call by (its rendered instructions) and scripts its replies against ('<id>@<version>').
 * Derived from the records, so a new metric's prompts join the list with its registry line.
 */
import { JUDGE_METRIC_IDS, judgeRecord } from '../registry.ts';
import { promptKey, type JudgePrompt } from './prompt-kit.ts';

function uniquePrompts(): readonly JudgePrompt[] {
  const byKey = new Map<string, JudgePrompt>();
  const ids = new Set<string>();
  for (const metric of JUDGE_METRIC_IDS) {
    for (const prompt of judgeRecord(metric).prompts) {
      const known = byKey.get(promptKey(prompt));
      if (known === prompt) continue;
      // Two texts under one key would make cached answers of one serve the other.
      if (known || ids.has(prompt.id)) {
        throw new Error(`Two judge prompts are named ${promptKey(prompt)} (${metric})`);
      }
      byKey.set(promptKey(prompt), prompt);
      ids.add(prompt.id);
    }
  }
  return [...byKey.values()];
}

export const JUDGE_PROMPTS: readonly JudgePrompt[] = uniquePrompts();
