/**
 * The single case as the page holds it (three text boxes and the instructions as typed) and as
 * it is scored: the case sent to the metrics, the problems in its texts that stop a run, and the instructions
 * text of a stored case, so that Score, the live preview and reopening a case agree.
 */
import type { InputProblem } from '../input/validate-case.ts';
import { validateCase } from '../input/validate-case.ts';
import type { CaseInput, CaseTexts, SummarySection } from '../metrics/types.ts';
import type { MessageRef } from '../i18n/message.ts';

/**
 * The texts as plain strings, for storing or posting. Not `$state.snapshot`: it structured-clones
 * every string it meets, which took 130 ms for a 1.7 M-character source on each draft save.
 */
export function textsOf(input: CaseTexts): CaseTexts {
  return { source: input.source, summary: input.summary, reference: input.reference };
}

/** The case the metrics get: an empty reference and empty instructions are left out. */
export function caseInputOf(texts: CaseTexts, sections: readonly SummarySection[]): CaseInput {
  return {
    source: texts.source,
    summary: texts.summary,
    ...(texts.reference.trim() ? { reference: texts.reference } : {}),
    ...(sections.length > 0 ? { instructions: [...sections] } : {}),
  };
}

/** Everything wrong with a case's texts before it is scored: the texts and each unreadable
 * instructions line. Settings that do not validate block only the metrics that read them
 * (settings-problems.ts), so they are not here. */
export function caseProblems(
  texts: CaseTexts,
  instructionProblems: readonly string[],
  /** The same problems as refs, index-aligned (parseInstructions' problemRefs). */
  instructionProblemRefs: readonly MessageRef[] = [],
): InputProblem[] {
  const problems = validateCase(texts);
  instructionProblems.forEach((message, i) => {
    const messageRef = instructionProblemRefs[i];
    problems.push({
      field: 'instructions',
      blocking: true,
      message,
      ...(messageRef ? { messageRef } : {}),
    });
  });
  return problems;
}

/** Stored sections as the instructions box shows them (the format parseInstructions reads). */
export function instructionsTextOf(sections: readonly SummarySection[]): string {
  return sections
    .map(
      (s) => `${s.name}: ${s.instruction}${s.categories ? ` [${s.categories.join(' | ')}]` : ''}`,
    )
    .join('\n');
}
