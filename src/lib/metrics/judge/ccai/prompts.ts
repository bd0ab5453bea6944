/**
 * Prompts for call-center adherence and completeness (after Google CCAI Insights' summarization
 * autoeval; written for SumLens). The instructions come with the data set, so they are fenced like
 * the source and the summary.
 */
import type { ChatMessage } from '../../../llm/types.ts';
import type { SummarySection } from '../../types.ts';
import type { Fence } from '../fence.ts';
import { judgeMessages, numbered, tagRef, type JudgePrompt } from '../prompt-kit.ts';

export const ADHERENCE_PROMPT = {
  id: 'ccai.adherence',
  version: 1,
  instructions: `You check whether a summary follows the instructions it was written under.
Answer each numbered rubric question about the summary with brief reasoning and "is_addressed": true when the summary does what the question asks, false when it does not or only partly.
For a question about allowed values, "is_addressed" is true only when the summary gives exactly one of the allowed values for that section (differences of case or surrounding punctuation aside) and nothing else in its place.
Reply with JSON only: {"questions": [{"question": 1, "reasoning": "…", "is_addressed": true}, …]}.`,
} as const satisfies JudgePrompt;

export const COMPLETENESS_PROMPT = {
  id: 'ccai.completeness',
  version: 1,
  instructions: `You check whether a summary contains what its instructions ask for from the source.
For each numbered instruction:
- list the pieces of content in the source that the instruction asks for, one short piece per entry, as "source_content" copied from the source character for character (at most about 30 words);
- for each piece give "summary_content": the part of the summary that conveys it, copied from the summary, or an empty string when the summary lacks it;
- and "is_covered": true when the summary conveys that piece correctly.
When the source holds nothing that an instruction asks for, give that instruction an empty "contents" list.
Reply with JSON only: {"instructions": [{"instruction": 1, "contents": [{"source_content": "…", "summary_content": "…", "is_covered": true}, …]}, …]}.`,
} as const satisfies JudgePrompt;

export function isCategorical(section: SummarySection): boolean {
  return Array.isArray(section.categories) && section.categories.length > 0;
}

/** The rubric question for one instruction (SPEC §3). */
export function rubricQuestion(section: SummarySection): string {
  if (isCategorical(section)) {
    const values = (section.categories ?? []).map((c) => `"${c}"`).join(', ');
    return `Does the summary return only one of the allowed values for the section "${section.name}" (allowed: ${values})?`;
  }
  return `Does the summary follow the instruction for the section "${section.name}": "${section.instruction}"?`;
}

export function adherencePrompt(
  fence: Fence,
  summary: string,
  questions: readonly string[],
): ChatMessage[] {
  return judgeMessages(
    fence,
    ADHERENCE_PROMPT.instructions,
    [fence.block('summary', summary), fence.block('questions', numbered(questions))],
    `answer each of the ${questions.length} rubric questions in ${tagRef(fence, 'questions')} about ${tagRef(fence, 'summary')}, as JSON {"questions": [...]} with exactly ${questions.length} entries, each with reasoning and is_addressed.`,
  );
}

export function completenessPrompt(
  fence: Fence,
  source: string,
  summary: string,
  sections: readonly SummarySection[],
): ChatMessage[] {
  const list = numbered(sections.map((s) => `${s.name}: ${s.instruction}`));
  return judgeMessages(
    fence,
    COMPLETENESS_PROMPT.instructions,
    [
      fence.block('source', source),
      fence.block('summary', summary),
      fence.block('instructions', list),
    ],
    `for each of the ${sections.length} numbered instructions in ${tagRef(fence, 'instructions')}, list what ${tagRef(fence, 'source')} holds that the instruction asks for and whether ${tagRef(fence, 'summary')} covers it, as JSON {"instructions": [...]} with exactly ${sections.length} entries.`,
  );
}
