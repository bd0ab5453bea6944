/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const supportMessages: Readonly<Record<string, string>> = {
  'semantic.support.summaryNoSentences': 'the summary has no sentences',
  'semantic.support.sourceNoSentences': 'the source has no sentences to compare with',
  'semantic.support.noKnownWords':
    'no summary sentence has a defined similarity with a source sentence (no words the embedding knows)',
  'semantic.support.uncalibrated':
    'No support threshold is calibrated for {backend}: no sentence is flagged.',
  'semantic.support.explanation':
    'The {compared, plural, one {# summary sentence compared has} other {# summary sentences compared have}} a closest source sentence at mean cosine {cosine, number, ::.00}.',
  'semantic.support.explanationThreshold':
    'The {compared, plural, one {# summary sentence compared has} other {# summary sentences compared have}} a closest source sentence at mean cosine {cosine, number, ::.00}{flagged, plural, =0 {; every sentence has a source sentence at cosine {threshold, number, ::.00} or closer} one {; # has no close source sentence (below {threshold, number, ::.00}): check it} other {; # have no close source sentence (below {threshold, number, ::.00}): check them}}.',
  'details.support.risk': 'no close source sentence',
  'details.support.flagged':
    '{flagged, number} of {count, plural, one {# sentence has} other {# sentences have}} no close source sentence (best cosine below {threshold}, the {percentile}th percentile of SummEval system-summary sentences for this encoder) — a risk to check, not a finding that they are false.',
  'details.support.uncalibrated':
    'No threshold is calibrated for this encoder, so no sentence is flagged.',
  'details.support.truncated': 'Only the first {count, number} source sentences compared.',
  'details.support.cos': 'cos {cos}',
  'details.support.source': 'source {n}: “{text}”',
  'details.support.noWords': 'No words the embedding knows: not compared.',
  'validity.row.support': 'Source support',
};
