/**
 * 96 fixed English news-style sentences of about 30 WordPiece tokens each (96 divides by the
 * batch sizes 1, 8 and 32): 12 openings x 8 endings, built from words both benchmark tokenizers
 * know, with a few that split into pieces as real text does.
 */

const OPENINGS = [
  'Officials said heavy rain and strong winds caused flooding across the region on Monday',
  'The bank reported record profits as shares rose on the stock market this quarter',
  'Doctors at the hospital treated dozens of patients after the outbreak of the virus',
  'The team scored two goals in the second half to win the championship final',
  'Researchers published a study showing that the new vaccine reduces the risk of illness',
  'The company announced plans to cut jobs as sales fell during the first quarter',
  'The prime minister said the government will introduce a new law to protect workers',
  'Scientists at NASA launched a rocket carrying a satellite to study the planet Mars',
  'The chef prepared a simple dinner of rice, chicken and fresh vegetables for the family',
  'Engineers at Google released new software that helps phones save battery power',
  'Thousands of people gathered in Paris to protest against rising prices and low wages',
  'The forecast warns of a storm with thunder, snow and more rain tomorrow in London',
];

const ENDINGS = [
  'and the report says the main findings will be published next week.',
  'according to a summary released by national health officials on Friday.',
  'while investors and voters waited for more data from the local government.',
  'but the minister told students that the change would help young families.',
  'after Ada Lovelace and Grace Hopper met engineers at Acme Corporation in Berlin.',
  'as temperatures rose and the river flooded roads near the old stadium.',
  'and the researchers said the results support the theory of early planets.',
  'though the coach warned that the season is still long and difficult.',
];

export const SENTENCES: readonly string[] = OPENINGS.flatMap((opening, i) =>
  // Rotate the endings so that neighbouring sentences (one batch) differ in length.
  ENDINGS.map((_, j) => `${opening}, ${ENDINGS[(i + j) % ENDINGS.length]}`),
);
