/**
 * G-Eval's two prompts (Liu et al. 2023): (1) auto chain-of-thought, the evaluation steps written
 * from the task and criterion alone (no case data, so one answer serves every case: cached per
 * criterion and model); (2) the form: criterion + steps + fenced source and summary → reasoning and
 * a last line "Final score: N". Written for SumLens; versions go into the cache keys.
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
import { GEVAL_TASK, GEVAL_TASK_SUMMARY_ONLY, type GEvalCriterion } from './criteria.ts';

export const GEVAL_STEPS_PROMPT = {
  id: 'g-eval.steps',
  version: 1,
  instructions:
    'You write evaluation procedures for annotators who rate summaries. Reply with JSON only: {"steps": ["…", "…"]}.',
} as const satisfies JudgePrompt;

export const GEVAL_FORM_PROMPT = {
  id: 'g-eval.form',
  version: 1,
  instructions: `{{task}}

Criterion ({{criterion}}), scored as {{scale}}:
{{description}}

Evaluation steps:
{{steps}}

Reply format: {{extra}}one or two sentences of reasoning, then a last line exactly of the form "Final score: N", where N is {{scale}}. Write nothing after that line.`,
} as const satisfies JudgePrompt;

export function taskFor(criterion: GEvalCriterion): string {
  return criterion.usesSource ? GEVAL_TASK : GEVAL_TASK_SUMMARY_ONLY;
}

function scaleText(criterion: GEvalCriterion): string {
  const [min, max] = criterion.scale;
  return `an integer from ${min} (worst) to ${max} (best)`;
}

/** The evaluation-steps prompt. It holds no case data, so nothing needs fencing. */
export function stepsPrompt(criterion: GEvalCriterion): ChatMessage[] {
  return [
    {
      role: 'system',
      content: GEVAL_STEPS_PROMPT.instructions,
    },
    {
      role: 'user',
      content: `${taskFor(criterion)}

Criterion (${criterion.name}), scored as ${scaleText(criterion)}:
${criterion.description}

Write the evaluation steps an annotator should follow to rate a summary on this criterion alone: 3 to 6 short, concrete steps, the last one saying how to choose the score. Reply with JSON {"steps": [...]}.`,
    },
  ];
}

/** Extra lines a criterion may ask for before the reasoning (repetition lists the repeats). */
export interface FormExtra {
  /** Added to the reply format in the instructions. */
  instructions: string;
  /** Added to the restated task. */
  restated: string;
}

export function formPrompt(
  fence: Fence,
  criterion: GEvalCriterion,
  steps: readonly string[],
  source: string | null,
  summary: string,
  extra?: FormExtra,
): ChatMessage[] {
  const [min, max] = criterion.scale;
  const blocks = [
    ...(source !== null ? [fence.block('source', source)] : []),
    fence.block('summary', summary),
  ];
  return judgeMessages(
    fence,
    fillInstructions(GEVAL_FORM_PROMPT, {
      task: taskFor(criterion),
      criterion: criterion.name,
      scale: scaleText(criterion),
      description: criterion.description,
      steps: numbered(steps),
      extra: extra ? `${extra.instructions} Then ` : '',
    }),
    blocks,
    `rate the summary in ${tagRef(fence, 'summary')} for ${criterion.name} from ${min} to ${max}, following the evaluation steps.${extra ? ` ${extra.restated}` : ''} End with the line "Final score: N" (N from ${min} to ${max}).`,
  );
}

/** Every G-Eval metric's calls: the steps once per criterion and model, then the form. */
export const GEVAL_PROMPTS = [GEVAL_STEPS_PROMPT, GEVAL_FORM_PROMPT];
