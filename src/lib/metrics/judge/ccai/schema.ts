/** The JSON shapes of the call-center adherence and completeness replies. */
import { z } from 'zod';

export const adherenceSchema = z.object({
  questions: z.array(
    z.object({
      question: z.number().int(),
      reasoning: z.string(),
      is_addressed: z.boolean(),
    }),
  ),
});

export const completenessSchema = z.object({
  instructions: z.array(
    z.object({
      instruction: z.number().int(),
      contents: z.array(
        z.object({
          source_content: z.string(),
          summary_content: z.string(),
          is_covered: z.boolean(),
        }),
      ),
    }),
  ),
});
