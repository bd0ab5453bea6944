/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const redundancyMessages: Readonly<Record<string, string>> = {
  'semantic.redundancy.tooFewSentences':
    'needs at least {min} sentences to compare (found {count})',
  'semantic.redundancy.tooManySentences':
    'sentence pairs are not compared above {max} sentences (found {count})',
  'semantic.redundancy.noKnownWords': 'no two sentences have words the embedding knows',
  'semantic.redundancy.uncalibrated':
    'No redundancy threshold is calibrated for {backend}: no pair is flagged.',
  'semantic.redundancy.explanation':
    'The most alike sentences are {a} and {b} (cosine {cosine, number, ::.00}) of {pairs, plural, one {# pair} other {# pairs}} compared.',
  'semantic.redundancy.explanationThreshold':
    'The most alike sentences are {a} and {b} (cosine {cosine, number, ::.00}) of {pairs, plural, one {# pair} other {# pairs}} compared{likely, plural, =0 {; no pair is above {threshold, number, ::.00}, where paraphrased repeats start} one {; # pair is above {threshold, number, ::.00}: likely the same thing said again} other {; # pairs are above {threshold, number, ::.00}: likely the same thing said again}}.',
  'details.redundancy.spanLabel': 'sentence {sentence} of the pair {a}–{b}',
  'details.redundancy.flagged':
    '{count, plural, one {# pair compared} other {# pairs compared}} · {repeats, number} above {threshold} (likely paraphrased repeats: more alike than {percentile}% of sentence pairs within SummEval articles for this encoder)',
  'details.redundancy.uncalibrated':
    '{count, plural, one {# pair compared} other {# pairs compared}} · no threshold is calibrated for this encoder, so no pair is flagged',
  'details.redundancy.pair': 'Pair',
  'details.redundancy.sentences': 'Sentences',
  'details.redundancy.cos': 'cos',
  'details.redundancy.pairButton': '{a} & {b}',
  'details.redundancy.saidTwice': 'likely said twice',
  'details.redundancy.stale':
    'The summary changed since it was scored: score it again to see the pair highlighted.',
  'validity.row.redundancy': 'Redundancy (encoder)',
};
