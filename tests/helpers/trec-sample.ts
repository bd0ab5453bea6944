/**
 * A handful of rows shaped like LongBench's trec data file (`{input, context, answers, length,
 * all_classes, dataset, _id}`, no prediction), and what a stand-in model answers for each
 * question: the generate-then-evaluate tests (unit and e2e) share them.
 */

export const TREC_CLASSES = [
  'Abbreviation',
  'Animal',
  'City',
  'Country',
  'Date',
  'Definition of something',
  'Individual',
  'Number of something',
  'Other location',
];

/** Few-shot examples, as trec's `context` holds them. */
export const TREC_CONTEXT = [
  'Question: What does NASA stand for ?\nType: Abbreviation',
  'Question: What is the fastest land animal ?\nType: Animal',
  'Question: When did the Berlin Wall fall ?\nType: Date',
].join('\n');

export interface TrecItem {
  question: string;
  /** The gold label. */
  label: string;
  /** What the stand-in model answers: the label, or a wrong one, with trec's "Type:" habit. */
  reply: string;
}

export const TREC_ITEMS: TrecItem[] = [
  {
    question: 'Question: What city is the Eiffel Tower in ?\nType:',
    label: 'City',
    reply: ' City',
  },
  {
    question: 'Question: How many moons does Mars have ?\nType:',
    label: 'Number of something',
    reply: ' Number of something\nQuestion: Who wrote Hamlet ?\nType: Individual',
  },
  {
    question: 'Question: Who painted the Mona Lisa ?\nType:',
    label: 'Individual',
    reply: ' Individual',
  },
  // Wrong: the model names a country for a city question.
  { question: 'Question: What is the capital of Peru ?\nType:', label: 'City', reply: ' Country' },
  {
    question: 'Question: What does CPU stand for ?\nType:',
    label: 'Abbreviation',
    reply: ' Abbreviation',
  },
];

export function trecRecords(items: readonly TrecItem[] = TREC_ITEMS): Record<string, unknown>[] {
  return items.map((item, i) => ({
    input: item.question,
    context: TREC_CONTEXT,
    answers: [item.label],
    length: 40 + i,
    dataset: 'trec',
    language: 'en',
    all_classes: TREC_CLASSES,
    _id: `trec-sample-${i + 1}`,
  }));
}

export function trecJsonl(items: readonly TrecItem[] = TREC_ITEMS): string {
  return trecRecords(items)
    .map((r) => JSON.stringify(r))
    .join('\n')
    .concat('\n');
}

/** The item whose question ends this prompt (trec's template puts `{input}` last). */
export function itemForPrompt(prompt: string): TrecItem | undefined {
  return TREC_ITEMS.find((item) => prompt.endsWith(item.question));
}
