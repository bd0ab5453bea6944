/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const sourceOrderMessages: Readonly<Record<string, string>> = {
  'semantic.sourceOrder.tooFewSentences':
    'needs at least {min} summary sentences to have an order (found {count})',
  'semantic.sourceOrder.sourceNoSentences': 'the source has no sentences to align to',
  'semantic.sourceOrder.tooFewKnown':
    'only {used} of the {count} summary sentences have words the embedding knows',
  'semantic.sourceOrder.allSameSentence':
    'all {count} summary sentences align to the same source sentence ({sentence}), so they have no order to compare',
  'semantic.sourceOrder.explanation':
    "Aligned to their closest source sentences, {kept} of {pairs} pairs of summary sentences keep the source's order and {reversed} reverse it{ties, plural, =0 {} other {, # aligned to one source sentence}} (Kendall τ-b {tau, number, ::.00}).",
  'details.sourceOrder.spanLabel': 'aligned to summary sentence {n}',
  'details.sourceOrder.tau':
    'Kendall τ-b {tau} · {count, plural, one {# pair} other {# pairs}} out of source order',
  'details.sourceOrder.tied':
    '{count, plural, one {# pair aligned} other {# pairs aligned}} to one source sentence',
  'details.sourceOrder.truncated': 'only the first {count, number} source sentences compared',
  'details.sourceOrder.choose': 'Choose a summary sentence to see its closest source sentence.',
  'details.sourceOrder.match': '→ source {n} · cos {cos}',
  'details.sourceOrder.noWords': 'no known words',
  'details.sourceOrder.outOfOrder': 'out of order',
  'details.sourceOrder.pairsIntro': "Told against the source's order:",
  'details.sourceOrder.before': '{a} before {b}',
  'details.sourceOrder.notAligned':
    'This sentence has no words the embedding knows: it is not aligned.',
  'details.sourceOrder.stale':
    'The source changed since it was scored: score it again to see the sentence highlighted.',
  'details.sourceOrder.legend': 'source sentence {source}, closest to summary sentence {summary}',
  'validity.row.sourceOrder': 'Source order',
};
