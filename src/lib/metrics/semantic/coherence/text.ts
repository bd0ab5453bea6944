/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const coherenceMessages: Readonly<Record<string, string>> = {
  'semantic.coherence.tooFewSentences': 'needs at least {min} sentences (found {count})',
  'semantic.coherence.modelDimsMismatch':
    'The sentence-order model for {model} takes {dims}-d vectors; this embedder returned {got}-d.',
  'semantic.coherence.noKnownWords': 'none of the {count} sentences has a word the embedding knows',
  'semantic.coherence.noKnownWordsGlove':
    'none of the {count} sentences has a word the embedding knows (the built-in GloVe vectors cover English only)',
  'semantic.coherence.noKnownPair':
    'no pair of neighbouring sentences has words the embedding knows',
  'semantic.coherence.model':
    'Across {sentences} sentences, the sentence-order model gives each next sentence a mean probability of {mean, number, ::.00} of following the one before (over {pairs, plural, one {# pair} other {# pairs}}; 0.5 = no lean){weakest, select, yes {; least in order: {weakestFrom}→{weakestTo} ({weakestProbability, number, ::.00})} other {}}{skipped, plural, =0 {} one {, leaving out # pair with a sentence of no known words} other {, leaving out # pairs with a sentence of no known words}}. Mean cosine: {cosines}.',
  'semantic.coherence.modelPosition':
    'Across {sentences} sentences, the sentence-order model gives each next sentence a mean probability of {mean, number, ::.00} of following the one before (over {pairs, plural, one {# pair} other {# pairs}}; 0.5 = no lean){weakest, select, yes {; least in order: {weakestFrom}→{weakestTo} ({weakestProbability, number, ::.00})} other {}}{skipped, plural, =0 {} one {, leaving out # pair with a sentence of no known words} other {, leaving out # pairs with a sentence of no known words}}. {position} Mean cosine: {cosines}.',
  'semantic.coherence.cosine':
    'No sentence-order model is trained for this embedding, so the score is the mean cosine similarity of adjacent sentences, {mean, number, ::.00} over {pairs, plural, one {# pair} other {# pairs}} (range −1 to 1; it does not see order){n2, select, yes {; n/n+2: {n2Mean, number, ::.00}} other {}}{skipped, plural, =0 {} one {, leaving out # pair with a sentence of no known words} other {, leaving out # pairs with a sentence of no known words}}.',
  'semantic.coherence.positionTooFew':
    'Too few sentences to compare their order with where such sentences usually sit, so the score is that mean.',
  'semantic.coherence.position':
    'Their order agrees with where such sentences usually sit in a text with r = {r, number, ::.00} ({lean, select, opening {opening-like sentences come first} later {sentences that usually come later are placed first} other {no clear lean}}); mixed in with weight {alpha}, the score is {score, number, ::.00}.',
  'semantic.coherence.cosinesBoth': 'n/n+1 {adjacent, number, ::.00}, n/n+2 {n2, number, ::.00}',
  'semantic.coherence.cosinesAdjacent': 'n/n+1 {adjacent, number, ::.00}',
  'semantic.coherence.cosinesN2': 'n/n+2 {n2, number, ::.00}',
  'semantic.coherence.cosinesNone': 'none',
  'details.coherence.noVector': 'no vector',
  'details.coherence.mainAlone':
    'Score {score}: mean P(next sentence follows) {mean} from the order model trained on {model}, alone (too few sentences to compare their order with their usual places).',
  'details.coherence.mainMixed':
    "Score {score}: mean P(next sentence follows) {mean} from the order model trained on {model}, mixed with weight {alpha, number} with how well the order agrees with each sentence's usual place in a text, r = {r} (0 to 1; 0.5 = no lean).",
  'details.coherence.mainOrderOnly':
    'Score: mean P(next sentence follows) from the order model trained on {model} (0 to 1; 0.5 = no lean).',
  'details.coherence.mainCosine':
    'No sentence-order model for this embedding: the score is the adjacent (n, n+1) mean cosine (−1 to 1), which does not see order.',
  'details.coherence.means':
    '{sentences, plural, one {# sentence} other {# sentences}} · n/n+1 mean cosine {adjacent} · n/n+2 mean cosine {n2}',
  'details.coherence.skipped':
    '{count, plural, one {# adjacent pair skipped} other {# adjacent pairs skipped}} (a sentence had no known words)',
  'details.coherence.pairsShown': 'Pairs shown',
  'details.coherence.viewOrder': 'P(follows)',
  'details.coherence.viewOrderScore': 'P(follows) (the score)',
  'details.coherence.viewPlaces': 'Usual places',
  'details.coherence.viewAdjacent': 'cos n vs n+1',
  'details.coherence.viewAdjacentScore': 'cos n vs n+1 (the score)',
  'details.coherence.viewN2': 'cos n vs n+2',
  'details.coherence.placesExplained':
    "Where the position model puts each sentence in a news text's opening: 0 = its first sentence, 1 = its twelfth. In a well-ordered text the places rise.",
  'details.coherence.sentence': 'Sentence',
  'details.coherence.usualPlace': 'Usual place',
  'details.coherence.pair': 'Pair',
  'details.coherence.sentences': 'Sentences',
  'details.coherence.follows': 'P(follows)',
  'details.coherence.cos': 'cos',
  'details.coherence.leastInOrder': 'least in order',
  'details.coherence.skippedPair': 'skipped',
  'validity.row.coherence': 'Local coherence',
};
