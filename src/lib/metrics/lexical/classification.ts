/**
 * LongBench's `classification_score` (Bai et al. 2023; TinyEval copies it), used for trec and
 * lsht: which of the task's class labels the prediction names.
 *
 * 1. Every label that occurs as a substring of the prediction is a match (case-sensitive).
 * 2. Matches that are a proper substring of the ground truth are dropped: a prediction naming
 *    the right label is not penalised for the shorter labels that label contains.
 *    LongBench removes them from the list it is iterating over, which in Python skips the
 *    element right after each removal; we reproduce that, because it changes scores when two
 *    such labels are adjacent in `all_classes`.
 * 3. Score = 1 / (number of matches) when the ground truth is among the matches, else 0.
 *
 * LongBench first cuts trec/lsht/triviaqa/samsum predictions to their first line
 * (`extractFirstLine`); the scorer itself does not.
 */

export function classificationScore(
  prediction: string,
  groundTruth: string,
  allClasses: readonly string[],
): number {
  const matches = allClasses.filter((c) => prediction.includes(c));
  // Python's `for x in list: list.remove(x)` walks by index while the list shrinks.
  for (let i = 0; i < matches.length; i++) {
    const term = matches[i];
    if (groundTruth.includes(term) && term !== groundTruth) {
      matches.splice(matches.indexOf(term), 1);
    }
  }
  return matches.includes(groundTruth) ? 1 / matches.length : 0;
}

/** `pred.lstrip('\n').split('\n')[0]`: the first line after leading newlines. */
export function extractFirstLine(prediction: string): string {
  return prediction.replace(/^\n+/, '').split('\n')[0];
}
