/**
 * Prompts for alignment (claims, then verdicts against the FULL source in one call) and coverage
 * (key questions with answers from the source, answers from the summary only, grades). Written for
 * SumLens; each has a version string that goes into the cache key, so editing a prompt means
 * bumping its version.
 */
import type { ChatMessage } from '../../../llm/types.ts';
import type { Fence } from '../fence.ts';
import {
  fillInstructions,
  judgeMessages,
  numbered,
  tagRef,
  type JudgePrompt,
} from '../prompt-kit.ts';

export const CLAIMS_PROMPT = {
  id: 'summarization.claims',
  version: 1,
  instructions: `You split a summary into atomic factual claims.
A claim is one short statement that holds exactly one fact the summary states. Make each claim stand on its own: name its subject instead of using a pronoun, and keep the summary's wording and language as far as you can. Cover every fact in the summary, including numbers, dates, names, causes, outcomes and attributed quotes. Leave out text that states no fact (headings, "this text is about …").
Use the summary alone: add no outside knowledge and do not judge whether a claim is true.
Reply with JSON only, in the form {"claims": ["…", "…"]}; an empty list when the summary states no fact.`,
} as const satisfies JudgePrompt;

export const VERDICTS_PROMPT = {
  id: 'summarization.verdicts',
  version: 1,
  instructions: `You check claims against a source document, using the source alone.
For each numbered claim choose one verdict:
- "supported": the source states the claim or plainly implies it;
- "contradicted": the source states something that cannot be true together with the claim;
- "unsupported": the source neither states nor implies it (even if it may be true elsewhere).
Give a one-sentence reason, and a quote: the shortest passage of the source, copied character for character (at most about 40 words), that supports or contradicts the claim; an empty string when the claim is unsupported.
Judge every claim exactly once, in order.
Reply with JSON only: {"verdicts": [{"claim": 1, "verdict": "supported", "reason": "…", "quote": "…"}, …]}.`,
} as const satisfies JudgePrompt;

export const QUESTIONS_PROMPT = {
  id: 'summarization.questions',
  version: 1,
  instructions: `You read a source document and write the key questions that a good summary of it must answer.
Write {{count}} open-ended questions (who, what, why, how, how much, what happened next …; never a yes/no question) about the most important points of the source, each answerable from the source alone, together covering its main points without overlapping. For each question give:
- "answer": a short answer taken from the source;
- "quote": the passage of the source holding that answer, copied character for character (at most about 40 words);
- "importance": how central the point is to the source, from 1 (a minor detail) to 5 (the main point).
Write the questions and answers in the language of the source.
Reply with JSON only: {"questions": [{"question": "…", "answer": "…", "quote": "…", "importance": 5}, …]}.`,
} as const satisfies JudgePrompt;

export const ANSWERS_PROMPT = {
  id: 'summarization.answers',
  version: 1,
  instructions: `You answer questions using the text of a summary and nothing else.
For each numbered question, give a short answer taken from the summary. When the summary does not contain the answer, answer exactly "idk". Do not guess and do not use outside knowledge, even when you know the answer.
Reply with JSON only: {"answers": [{"question": 1, "answer": "…"}, …]}.`,
} as const satisfies JudgePrompt;

export const GRADES_PROMPT = {
  id: 'summarization.grades',
  version: 1,
  instructions: `You grade answers against reference answers.
Each numbered item has a question, the reference answer (from the source document) and the answer found in a summary. Grade how much of the reference answer the summary's answer conveys, from 0 to 5:
5 = all of it, correctly; 4 = nearly all, a minor detail missing; 3 = the main part, with a clear gap; 2 = a small part; 1 = barely related; 0 = nothing of it, or it contradicts the reference.
The same facts in other words earn full credit. Add a one-sentence reason.
Reply with JSON only: {"grades": [{"question": 1, "grade": 4, "reason": "…"}, …]}.`,
} as const satisfies JudgePrompt;

export function claimsPrompt(fence: Fence, summary: string): ChatMessage[] {
  return judgeMessages(
    fence,
    CLAIMS_PROMPT.instructions,
    [fence.block('summary', summary)],
    `list the atomic factual claims of the summary in ${tagRef(fence, 'summary')}, as JSON {"claims": [...]}.`,
  );
}

export function verdictsPrompt(
  fence: Fence,
  source: string,
  claims: readonly string[],
): ChatMessage[] {
  return judgeMessages(
    fence,
    VERDICTS_PROMPT.instructions,
    [fence.block('source', source), fence.block('claims', numbered(claims))],
    `judge each of the ${claims.length} numbered claims in ${tagRef(fence, 'claims')} against ${tagRef(fence, 'source')} only. Reply with JSON {"verdicts": [...]} holding exactly ${claims.length} entries, claims 1 to ${claims.length}, each with verdict "supported", "contradicted" or "unsupported", a one-sentence reason and a verbatim quote.`,
  );
}

export function questionsPrompt(fence: Fence, source: string, count: number): ChatMessage[] {
  return judgeMessages(
    fence,
    fillInstructions(QUESTIONS_PROMPT, { count: count }),
    [fence.block('source', source)],
    `write ${count} open-ended key questions about ${tagRef(fence, 'source')}, each with a short answer from it, a verbatim quote and an importance from 1 to 5, as JSON {"questions": [...]}.`,
  );
}

export function answersPrompt(
  fence: Fence,
  summary: string,
  questions: readonly string[],
): ChatMessage[] {
  return judgeMessages(
    fence,
    ANSWERS_PROMPT.instructions,
    [fence.block('summary', summary), fence.block('questions', numbered(questions))],
    `answer each of the ${questions.length} numbered questions in ${tagRef(fence, 'questions')} from ${tagRef(fence, 'summary')} alone, "idk" where it has no answer, as JSON {"answers": [...]} with exactly ${questions.length} entries.`,
  );
}

export interface GradeItem {
  question: string;
  reference: string;
  answer: string;
}

export function gradesPrompt(fence: Fence, items: readonly GradeItem[]): ChatMessage[] {
  const text = items
    .map(
      (item, i) =>
        `${i + 1}. Question: ${item.question}\n   Reference answer: ${item.reference}\n   Summary's answer: ${item.answer}`,
    )
    .join('\n');
  return judgeMessages(
    fence,
    GRADES_PROMPT.instructions,
    [fence.block('answers', text)],
    `grade each of the ${items.length} numbered items in ${tagRef(fence, 'answers')} from 0 to 5, as JSON {"grades": [...]} with exactly ${items.length} entries.`,
  );
}
