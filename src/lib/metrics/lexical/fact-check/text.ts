/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const factCheckMessages: Readonly<Record<string, string>> = {
  'lexical.factCheck.noItems': 'the summary states no numbers, dates, names or quotes to check',
  'lexical.factCheck.allFound':
    'All {total} numbers, dates, names and quotes of the summary were found in the source.',
  'lexical.factCheck.explanation':
    '{found} of {total} numbers, dates, names and quotes of the summary were found in the source; not found: {examples}{more, plural, =0 {} other { and # more}}.',
  'lexical.factCheck.notInSource': 'not in source',
  'lexical.factCheck.view.summary': '{found} of {total} found in the source',
  'lexical.factCheck.view.kindCount':
    '{kind, select, number {Numbers} date {Dates} entity {Names} other {Quotes}}: {found} of {total}',
  'lexical.factCheck.view.kind':
    '{kind, select, number {number} date {date} entity {name} other {quote}}',
  'lexical.factCheck.view.missingHeading': 'Not found in the source ({count})',
  'lexical.factCheck.view.foundHeading': 'Found in the source ({count})',
  'lexical.factCheck.view.inSummary': 'Summary sentence {n}: {text}',
  'lexical.factCheck.view.closest': 'Closest in the source: “{text}”',
  'lexical.factCheck.view.sourceSentence': 'Source sentence {n}: {text}',
  'lexical.factCheck.view.noClosest': 'Nothing like it in the source.',
  'lexical.factCheck.view.hedge': 'hedged: “{hedge}”',
  'lexical.factCheck.view.match':
    '{match, select, exact {word for word} hedged {rounded, within the hedge} surname {surname of a full name} words {same words, others between} acronym {acronym and its expansion} inflected {inflected form} partial {most of the quoted words} other {found}}',
  'lexical.factCheck.view.quoteShare': '{share, number, ::percent} of the quoted words in order',
  'lexical.factCheck.view.extractors': 'Checked: {list}.',
  'lexical.factCheck.view.extractor':
    '{name, select, numbers {numbers} dates {dates} quotes {quotes} capitalised {capitalised names} acronyms {acronyms} compromise {English names (compromise)} other {{name}}}',
  'lexical.factCheck.view.noNames':
    'compromise reads English only: in this language names are capitalised words and acronyms, and Chinese or Japanese names are not seen.',
  'lexical.factCheck.view.stale':
    'The summary has changed since it was scored: highlights are hidden.',
  'lexical.factCheck.view.caveat':
    'Found means the source has the same number, date, name or words; it does not check what the summary says about them.',
  'validity.row.factCheck': 'Fact check (offline)',
};
