/**
 * A long source made of real prose, offline: the sentences of the app's example case (written for
 * SumLens, so free to reuse) repeated with variations — other towns, streets and people, other
 * numbers — in paragraphs of a few sentences, up to an exact number of words as the app counts them
 * (countWords). 300,000 words come to about 1.8 M characters, the paste the issue reports. Shared by
 * `npm run bench:long-paste` and the long-text e2e test, so both paste the same kind of text.
 */
import { EXAMPLE_CASE } from '../src/lib/input/examples.ts';
import { countWords } from '../src/lib/metrics/text/tokenize.ts';

const TOWNS = ['Marlow', 'Henley', 'Thame', 'Wallingford', 'Abingdon', 'Witney', 'Didcot'];
const STREETS = ['Elm Street', 'Mill Lane', 'Church Road', 'Market Place', 'Station Hill'];
const PEOPLE = ['Priya Raman', 'Tom Okafor', 'Ana Lindqvist', 'Wei Zhang', 'Maria Costa'];

/** The example's sentences, split where a sentence ends before a capital (its prose allows it). */
function exampleSentences(): string[] {
  return [EXAMPLE_CASE.source, EXAMPLE_CASE.summary, EXAMPLE_CASE.reference]
    .flatMap((text) => text.split(/(?<=[.!?]["”]?)\s+(?=[A-Z"“])/u))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Sentence `i` of the variations: the names swapped and every number shifted, same words. */
function variation(sentence: string, i: number): string {
  const town = TOWNS[i % TOWNS.length]!;
  const street = STREETS[Math.floor(i / 3) % STREETS.length]!;
  const person = PEOPLE[Math.floor(i / 5) % PEOPLE.length]!;
  return sentence
    .replaceAll('Marlow', town)
    .replaceAll('Elm Street', street)
    .replaceAll('Priya Raman', person)
    .replace(/\d+/gu, (digits) => String(Number(digits) + (i % 97)));
}

export interface LongText {
  text: string;
  /** Words as the app counts them (countWords), exactly the number asked for. */
  words: number;
}

/**
 * About `words` words of prose, exactly that many as countWords counts them: whole sentences,
 * the last one cut at a word and closed with a period, five sentences to a paragraph.
 */
export function longText(words: number): LongText {
  const sentences = exampleSentences();
  const parts: string[] = [];
  let counted = 0;
  for (let i = 0; counted < words; i++) {
    let sentence = variation(sentences[i % sentences.length]!, Math.floor(i / sentences.length));
    let n = countWords(sentence);
    if (counted + n > words) {
      // Cut at whitespace: every piece before the cut is whole, so it holds words - counted words.
      const pieces = sentence.split(/\s+/u);
      let keep = pieces.length;
      while (keep > 0 && counted + countWords(pieces.slice(0, keep).join(' ')) > words) keep--;
      sentence = `${pieces.slice(0, keep).join(' ')}.`;
      n = countWords(sentence);
    }
    parts.push(i > 0 && i % 5 === 0 ? `\n\n${sentence}` : i > 0 ? ` ${sentence}` : sentence);
    counted += n;
  }
  return { text: parts.join(''), words: counted };
}
