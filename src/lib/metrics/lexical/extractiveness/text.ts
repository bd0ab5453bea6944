/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const extractivenessMessages: Readonly<Record<string, string>> = {
  'lexical.extractiveness.explanation':
    "{coverage, number, ::percent} of the summary's {words} words lie in fragments copied from the source (density {density, number, ::.00}, longest {longest} words).{verbatim, plural, =0 {} other { # of {sentences} sentences are copied whole.}} This measures copying, not quality.",
  'details.extractiveness.summary':
    'coverage {coverage} · density {density} · compression {compression}× · {verbatim, number} of {sentences, plural, one {# sentence} other {# sentences}} copied whole',
  'details.extractiveness.verbatim': 'sentence copied whole',
  'details.extractiveness.fragment':
    '{words, plural, one {copied, # word} other {copied, # words}}',
  'details.extractiveness.legendFragment': 'copied fragment (darker = longer)',
  'details.extractiveness.stale':
    'The summary changed since it was scored: score it again to see the copied fragments.',
  'details.extractiveness.none': 'No run of two or more words is copied from the source.',
  'details.extractiveness.ngrams': 'n-grams',
  'details.extractiveness.novel': 'not in the source',
  'details.extractiveness.rate': 'rate',
  'details.extractiveness.ngram': '{n}-grams',
  'details.extractiveness.longest':
    'longest copied fragment: {words, plural, one {# word} other {# words}}, “{text}”',
  'details.extractiveness.notAFault':
    'Copying is not a fault by itself: this describes how the summary was written, not how good it is.',
  'validity.row.extractiveness': 'Extractiveness',
};
