/** The JSON shape of G-Eval's auto chain-of-thought (the evaluation steps). The form itself is
 * answered in plain text ending in "Final score: N", so the score is the last token generated and
 * its log-probabilities can be read (PROVIDERS.md §12.2). */
import { z } from 'zod';

export const evaluationStepsSchema = z.object({
  steps: z.array(z.string()),
});
