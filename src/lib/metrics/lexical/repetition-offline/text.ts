/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const repetitionOfflineMessages: Readonly<Record<string, string>> = {
  'lexical.repetition.tooFewWords': 'needs at least two words to find a repeated phrase',
  'lexical.repetition.none':
    'None of the {words} words repeats a phrase of two or more words said earlier.',
  'lexical.repetition.explanation':
    '{repeated} of {words} words ({share, number, ::percent}) repeat a phrase said earlier: {top}.',
  'lexical.repetition.explanationMore':
    '{repeated} of {words} words ({share, number, ::percent}) repeat a phrase said earlier: {top} and {more} more.',
  'lexical.repetition.embeddingFailed': 'No embedding pair ({backend}): {error}.',
  'lexical.repetition.tooManySentences':
    'Sentence pairs are not compared above {max} sentences (this text has {count}).',
  'lexical.repetition.embedderDidNotLoad':
    'No embedding pair: the embedding backend did not load ({error}).',
  'details.repetition.distinct1': 'distinct-1 (words)',
  'details.repetition.distinct2': 'distinct-2 (word pairs)',
  'details.repetition.distinct3': 'distinct-3 (word triples)',
  'details.repetition.positions': 'word {first} → {listed}',
  'details.repetition.positionsMore': 'word {first} → {listed} and {more} more',
  'details.repetition.positionsTitle':
    'first said at word {first}; said again at {count, plural, one {word} other {words}} {list}',
  'details.repetition.repeatedShare':
    '{repeated, number} of {words, plural, one {# word repeats} other {# words repeat}} an earlier phrase ({share})',
  'details.repetition.repeated':
    '{repeated, number} of {words, plural, one {# word repeats} other {# words repeat}} an earlier phrase',
  'details.repetition.phrasesCount':
    '{count, plural, one {# phrase} other {# phrases}} said more than once',
  'details.repetition.legendRepeat': 'said again (counted)',
  'details.repetition.legendFirst': 'first said',
  'details.repetition.stale':
    'The summary changed since it was scored: score it again to see the repeats highlighted.',
  'details.repetition.distinctHead': 'Distinct-n',
  'details.repetition.distinctTotal': 'distinct / total',
  'details.repetition.ratio': 'ratio',
  'details.repetition.phrasesHeading': 'Repeated phrases',
  'details.repetition.noPhrases': 'No phrase of two or more words is said twice.',
  'details.repetition.phrase': 'Phrase',
  'details.repetition.words': 'words',
  'details.repetition.said': 'said',
  'details.repetition.where': 'where',
  'details.repetition.quoted': '“{text}”',
  'details.repetition.times': '{n, number}×',
  'details.repetition.morePhrases': 'and {count, number} more',
  'details.repetition.overlapHeading': 'Most shared words',
  'details.repetition.overlapLine': 'sentences {a} and {b} · Jaccard {value}',
  'details.repetition.shared': 'shared:',
  'details.repetition.needsTwo': 'Needs two sentences to compare.',
  'details.repetition.tooMany': 'Sentence pairs are not compared above {max, number} sentences.',
  'details.repetition.noShared': 'No two sentences share a word.',
  'details.repetition.embeddingHeading': 'Most alike by embedding',
  'details.repetition.embeddingLine': 'sentences {a} and {b} · cos {value}',
  'details.repetition.noEmbedding':
    "No embedding backend ran for this score (see the card's notes).",
  'details.repetition.saidBeforeAt': 'said before, at word {word, number}',
  'details.repetition.firstSaidAt':
    'first said here (word {word, number}), said again at {count, plural, one {word} other {words}} {list}',
  'validity.row.repetition': 'Repetition (offline)',
};
