/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const sourceCoverageMessages: Readonly<Record<string, string>> = {
  'lexical.reason.sourceNoContentWords': 'the source has no content words',
  'lexical.sourceCoverage.explanation':
    "The summary uses {used} of the source's {words} most frequent content words ({share, number, ::percent}){missingCount, plural, =0 {} other {; missing: {missing}}}.{sentencesCompared, select, yes { It covers {covered} of the first {sentences} source sentences.} other {}}",
  'details.sourceCoverage.summary':
    "{covered, number} of the source's {total, plural, one {# most frequent content word appears} other {# most frequent content words appear}} in the summary",
  'details.sourceCoverage.wordUsed': '{count, number}× in the source · stem “{stem}” · used',
  'details.sourceCoverage.wordMissing': '{count, number}× in the source · stem “{stem}” · missing',
  'details.sourceCoverage.times': '{n, number}×',
  'details.sourceCoverage.sentencesHeading': "The source's first sentences",
  'details.sourceCoverage.coveredRule':
    "Covered: the summary uses at least {share} of the sentence's distinct content words.",
  'validity.row.sourceCoverage': 'Source coverage',
};
