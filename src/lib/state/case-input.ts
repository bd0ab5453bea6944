/**
 * The single case as the page holds it (three text boxes and the instructions as typed) and as
 * it is scored: the case sent to the metrics, the problems that stop a run, and the instructions
 * text of a stored case, so that Score, the live preview and reopening a case agree.
 */
import type { InputProblem } from '../input/validate-case.ts';
import { validateCase } from '../input/validate-case.ts';
import { metricSettingsSchema, type MetricSettings } from '../metrics/settings.ts';
import type { CaseInput, CaseTexts, SummarySection } from '../metrics/types.ts';

/** The case the metrics get: an empty reference and empty instructions are left out. */
export function caseInputOf(texts: CaseTexts, sections: readonly SummarySection[]): CaseInput {
  return {
    source: texts.source,
    summary: texts.summary,
    ...(texts.reference.trim() ? { reference: texts.reference } : {}),
    ...(sections.length > 0 ? { instructions: [...sections] } : {}),
  };
}

/** Everything wrong with a case before it is scored: the texts, each unreadable instructions
 * line, and settings that do not validate (a hand-edited or older stored copy). */
export function caseProblems(
  texts: CaseTexts,
  instructionProblems: readonly string[],
  settings: MetricSettings,
): InputProblem[] {
  const problems = validateCase(texts);
  for (const message of instructionProblems) {
    problems.push({ field: 'instructions', blocking: true, message });
  }
  const settingsCheck = metricSettingsSchema.safeParse(settings);
  if (!settingsCheck.success) {
    const issue = settingsCheck.error.issues[0];
    problems.push({
      field: 'settings',
      blocking: true,
      message: `Metric settings: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}.`,
    });
  }
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
