/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const qualityOfflineMessages: Readonly<Record<string, string>> = {
  'lexical.quality.explanation':
    'Positions among real summaries (0–1): faithfulness {faithfulness, number, ::.00}, coverage {coverage, number, ::.00}, coherence {coherence, number, ::.00}; a ranking among summaries of this source, not a grade.',
  'lexical.quality.explanationFlagged':
    'Positions among real summaries (0–1): faithfulness {faithfulness, number, ::.00}, coverage {coverage, number, ::.00}, coherence {coherence, number, ::.00}; a ranking among summaries of this source, not a grade. Flags: {flags}.',
  'lexical.quality.flag.leadCopy':
    "The first {opening} of its {words} words are the source's opening, copied word for word.",
  'lexical.quality.flag.reversedOrder':
    'Its {count} sentences that follow source sentences come in reverse source order ({order}).',
  'lexical.quality.flag.cutMidWord':
    'It ends mid-word (“{word}” begins a source word) with no full stop.',
  'lexical.quality.flag.noTerminalPunctuation':
    'Its last sentence has no terminal punctuation: the text may be cut off.',
  'lexical.quality.flag.repeatedSentence':
    'Sentence {later} repeats sentence {earlier} word for word.',
  'lexical.quality.explanationCapped':
    "Positions among real summaries (0–1): faithfulness {faithfulness, number, ::.00}, coverage {coverage, number, ::.00}, coherence {coherence, number, ::.00}. Flags: {flags}; a degenerate summary's score is capped at {cap, number, ::.0}.",
  'lexical.quality.flag.tooShort':
    'The summary has only {words, plural, one {# word} other {# words}}: too short to summarise this source.',
  'lexical.quality.flag.cutAfterWord':
    'It stops on “{word}”, a word no sentence ends on, with no full stop: the text is cut off.',
  'details.quality.estimate': '{dimension}: {estimate} ({sd} sd from the average training summary)',
  'details.quality.ingredient': 'ingredient',
  'details.quality.value': 'value',
  'details.quality.standardized': 'standardized',
  'details.quality.weight': 'weight',
  'details.quality.contribution': 'contribution',
  'details.quality.score':
    'Score = Φ(mean of the standardized estimates, {mean}): 0.5 is an average training summary, each dimension counting the same.',
  'details.quality.caveat':
    'The estimate ranks summaries of one source against each other; it is not an absolute grade. Method: {method}. No ingredient rewards copying as such: extractiveness is its own card, which describes and does not grade.',
  'details.quality.heldOut': 'On data it was not fit on:',
  'details.quality.heldOutSpearman': '{dataset}: Spearman {value} with {against}',
  'details.quality.heldOutAuc': '{dataset}: AUC {value} ({against} labels)',
  'details.quality.capped': 'A degenerate-summary flag caps the score at 0.2.',
  'validity.row.quality': 'Quality estimate (offline)',
};
