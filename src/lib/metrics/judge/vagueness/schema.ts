/** The JSON shape of the vagueness verdicts. */
import { z } from 'zod';

export const vagueVerdictsSchema = z.object({
  sentences: z.array(
    z.object({
      sentence: z.number().int(),
      vague: z.boolean(),
      reason: z.string(),
    }),
  ),
});
