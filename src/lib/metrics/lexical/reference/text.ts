/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const referenceMessages: Readonly<Record<string, string>> = {
  'lexical.share': '{share, number, ::percent}',
  'lexical.shareSmall': '{share, number, ::percent .0}',
  'lexical.reason.needsReference': 'needs a reference summary',
  'lexical.rouge.summaryNoGrams':
    'The summary has no {n, select, 1 {unigrams} other {bigrams}} to compare, so ROUGE-{n} is 0.',
  'lexical.rouge.referenceNoGrams':
    'The reference has no {n, select, 1 {unigrams} other {bigrams}} to compare, so ROUGE-{n} is 0.',
  'lexical.rouge.nExplanation':
    "{precision} of the summary's {n, select, 1 {unigrams} other {bigrams}} appear in the reference; it recalls {recall} of the reference's (F {f, number, ::.00}).",
  'lexical.rouge.summaryNoWords': 'The summary has no words to compare, so the score is 0.',
  'lexical.rouge.referenceNoWords': 'The reference has no words to compare, so the score is 0.',
  'lexical.rouge.lExplanation':
    'The longest common word sequence is {hits} words long: {precision} of the summary and {recall} of the reference, in order (F {f, number, ::.00}).',
  'lexical.rouge.lsumNoLineBreaks':
    'Neither text has line breaks, so this equals ROUGE-L: {hits} words in common order, {precision} of the summary and {recall} of the reference (F {f, number, ::.00}).',
  'lexical.rouge.lsumExplanation':
    'Sentence by sentence ({summarySentences} summary, {referenceSentences} reference), the union of longest common sequences matches {hits} words: {precision} of the summary and {recall} of the reference (F {f, number, ::.00}).',
  'lexical.rouge.overBudget':
    '{what} skipped: the texts are too long for a longest-common-subsequence table ({cells} cells, limit {budget}).',
  'lexical.bleu.summaryNoTokens': 'The summary has no tokens, so BLEU is 0.',
  'lexical.bleu.explanation':
    "BLEU {score, number, ::.0}: {unigrams} of the summary's words and {bigrams} of its word pairs occur in the reference; no brevity penalty (summary {summaryTokens} tokens, reference {referenceTokens}).",
  'lexical.bleu.explanationPenalty':
    "BLEU {score, number, ::.0}: {unigrams} of the summary's words and {bigrams} of its word pairs occur in the reference; brevity penalty {penalty, number, ::.00} because the summary is shorter ({summaryTokens} vs {referenceTokens} tokens).",
  'lexical.tokenF1.summaryNoTokens':
    'The summary has no tokens left after normalisation, so token F1 is 0.',
  'lexical.tokenF1.explanation':
    "{common} of the summary's {summaryTokens} normalised tokens also occur in the reference (precision {precision}), covering {recall} of its {referenceTokens} (F1 {f, number, ::.00}).",
  'details.bleu.order': 'n',
  'details.bleu.matches': 'matches / n-grams',
  'details.bleu.precision': 'precision',
  'details.bleu.note':
    'brevity penalty {bp} · summary {summary, number} tokens, reference {reference, number} · tokenizer {tokenizer} · smoothing {smoothing}',
  'details.rouge.tokens':
    '{summary, number} summary tokens vs {reference, number} reference tokens',
  'details.rouge.stemmed': 'Porter stemmer',
  'details.rouge.unstemmed': 'no stemming',
  'details.rouge.lcsHits': 'LCS hits {n, number}',
  'details.rouge.splitNewline':
    'sentences split on newlines ({summary, number} vs {reference, number})',
  'details.rouge.splitSegmenter':
    'sentences split on Intl.Segmenter ({summary, number} vs {reference, number})',
  'details.tokenF1.f1': 'F1',
  'details.tokenF1.counts':
    '{shared, plural, one {# shared token} other {# shared tokens}} · summary {summary, number}, reference {reference, number}',
  'details.tokenF1.segmentation': '{language} · {segmentation}',
  'details.tokenF1.segmentationFallback':
    '{language} · {segmentation} (jieba unavailable: {reason})',
  'details.tokenF1.segmentationSquad': 'SQuAD normalisation',
  'details.tokenF1.segmentationJieba': 'words from jieba',
  'details.tokenF1.segmentationSegmenter': 'words from Intl.Segmenter',
};
