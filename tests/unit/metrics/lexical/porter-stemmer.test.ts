import { describe, expect, it } from 'vitest';
import {
  createPorterStemmer,
  porterStem,
} from '../../../../src/lib/metrics/lexical/porter-stemmer.ts';

// Outputs of nltk.stem.porter.PorterStemmer() (NLTK_EXTENSIONS mode, the one rouge_score uses).
const KNOWN: Record<string, string> = {
  running: 'run',
  generously: 'gener',
  caresses: 'caress',
  caress: 'caress',
  ponies: 'poni',
  cats: 'cat',
  ties: 'tie',
  dies: 'die',
  died: 'die',
  spied: 'spi',
  flies: 'fli',
  cries: 'cri',
  dying: 'die',
  lying: 'lie',
  tying: 'tie',
  sky: 'sky',
  skies: 'sky',
  news: 'news',
  innings: 'inning',
  proceed: 'proceed',
  exceed: 'exceed',
  succeed: 'succeed',
  agreed: 'agre',
  feed: 'feed',
  plastered: 'plaster',
  motoring: 'motor',
  sing: 'sing',
  conflated: 'conflat',
  hopping: 'hop',
  falling: 'fall',
  hissing: 'hiss',
  filing: 'file',
  happy: 'happi',
  enjoy: 'enjoy',
  relational: 'relat',
  sensational: 'sensat',
  electrical: 'electr',
  generalization: 'gener',
  possibly: 'possibl',
  geology: 'geolog',
  was: 'wa',
  this: 'thi',
  is: 'is',
  a: 'a',
};

describe('porterStem (NLTK_EXTENSIONS)', () => {
  it.each(Object.entries(KNOWN))('%s → %s', (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });

  it('lower-cases like NLTK, but looks irregular forms up before lower-casing', () => {
    expect(porterStem('Running')).toBe('run');
    // NLTK checks `word in self.pool` on the original word, so 'Dying' takes the rule path.
    expect(porterStem('Dying')).toBe('dy');
  });

  it('memoises without changing results', () => {
    const stem = createPorterStemmer(2);
    for (const w of ['running', 'ponies', 'running', 'agreed', 'ponies']) {
      expect(stem(w)).toBe(porterStem(w));
    }
  });
});
