/** The JSON shapes the judge returns for alignment and coverage (validated by the judge client). */
import { z } from 'zod';

export const claimsSchema = z.object({
  claims: z.array(z.string()),
});

export const VERDICTS = ['supported', 'contradicted', 'unsupported'] as const;

export const claimVerdictsSchema = z.object({
  verdicts: z.array(
    z.object({
      claim: z.number().int(),
      verdict: z.enum(VERDICTS),
      reason: z.string(),
      quote: z.string(),
    }),
  ),
});

export const coverageQuestionsSchema = z.object({
  questions: z.array(
    z.object({
      question: z.string(),
      answer: z.string(),
      quote: z.string(),
      importance: z.number().int().min(1).max(5),
    }),
  ),
});

export const summaryAnswersSchema = z.object({
  answers: z.array(z.object({ question: z.number().int(), answer: z.string() })),
});

export const answerGradesSchema = z.object({
  grades: z.array(
    z.object({
      question: z.number().int(),
      grade: z.number().int().min(0).max(5),
      reason: z.string(),
    }),
  ),
});
