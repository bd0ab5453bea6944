/**
 * Agreement of a score with binary human labels (1 = good, e.g. "consistent with the source"):
 * the area under the ROC curve (the chance a random good summary outscores a random bad one, ties
 * counted half) and the balanced accuracy of a threshold (mean of the recall of each class), the
 * figures factual-consistency benchmarks such as SummEdits and AggreFact report.
 */
import { averageRanks } from './correlation.ts';

/** ROC AUC by the rank-sum (Mann–Whitney) formula; null without both classes. */
export function rocAuc(scores: readonly number[], labels: readonly boolean[]): number | null {
  const ranks = averageRanks(scores);
  let positives = 0;
  let rankSum = 0;
  for (const [i, label] of labels.entries()) {
    if (!label) continue;
    positives++;
    rankSum += ranks[i];
  }
  const negatives = labels.length - positives;
  if (positives === 0 || negatives === 0) return null;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/** Balanced accuracy of calling "good" every score at or above `threshold`. */
export function balancedAccuracy(
  scores: readonly number[],
  labels: readonly boolean[],
  threshold: number,
): number | null {
  let tp = 0;
  let fn = 0;
  let tn = 0;
  let fp = 0;
  for (const [i, label] of labels.entries()) {
    const called = scores[i] >= threshold;
    if (label && called) tp++;
    else if (label) fn++;
    else if (called) fp++;
    else tn++;
  }
  if (tp + fn === 0 || tn + fp === 0) return null;
  return (tp / (tp + fn) + tn / (tn + fp)) / 2;
}

/** The threshold with the best balanced accuracy on these scores (for choosing on training data). */
export function bestThreshold(scores: readonly number[], labels: readonly boolean[]): number {
  const sorted = [...new Set(scores)].sort((a, b) => a - b);
  // 200 quantiles are as good as every distinct value for choosing, and keep this linear.
  const step = Math.max(1, Math.floor(sorted.length / 200));
  const candidates = sorted.filter((_, i) => i % step === 0);
  let best = { threshold: candidates[0] ?? 0, accuracy: -1 };
  for (const threshold of candidates) {
    const accuracy = balancedAccuracy(scores, labels, threshold) ?? -1;
    if (accuracy > best.accuracy) best = { threshold, accuracy };
  }
  return best.threshold;
}
