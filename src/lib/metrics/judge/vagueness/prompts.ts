/** The sentence-vagueness prompt (written for SumLens; the version goes into the cache key). */
import type { ChatMessage } from '../../../llm/types.ts';
import type { Fence } from '../fence.ts';
import { judgeMessages, numbered, tagRef, type JudgePrompt } from '../prompt-kit.ts';

export const VAGUENESS_PROMPT = {
  id: 'vagueness.sentences',
  version: 1,
  instructions: `You check the sentences of a summary for vagueness.
A sentence is vague when it names no concrete point: it says that a text discusses, describes, explores or touches on something without saying what it says. Examples of vague sentences: "The article discusses the reasons for the decline." "The author describes several challenges the company faces." "Various aspects of the policy are examined."
A sentence is specific when it states a concrete fact, finding, number, name, decision, cause or argument, even if it is short ("Sales fell 12% because of the strike." "The author argues that the tax should be repealed.").
Judge every numbered sentence exactly once, with a one-sentence reason.
Reply with JSON only: {"sentences": [{"sentence": 1, "vague": false, "reason": "…"}, …]}.`,
} as const satisfies JudgePrompt;

export function vaguenessPrompt(fence: Fence, sentences: readonly string[]): ChatMessage[] {
  return judgeMessages(
    fence,
    VAGUENESS_PROMPT.instructions,
    [fence.block('sentences', numbered(sentences))],
    `decide for each of the ${sentences.length} numbered sentences in ${tagRef(fence, 'sentences')} whether it is vague, as JSON {"sentences": [...]} with exactly ${sentences.length} entries.`,
  );
}
