/**
 * Whether compromise, which reads English only, can read a text: the note entity density shows
 * when it cannot (see `assessLanguage`).
 */
/** Frequent English function words (none of them frequent in the languages below). */
const ENGLISH_WORDS = new Set(
  (
    'the of and to is was for on that with as by at from it he she they we you his her their ' +
    'its our this these those be been are were has have had not but or which who will would ' +
    'can could said after before into over than more most also about up out one two new all so ' +
    'if no when there what him them do did does my me your just then only other some such'
  ).split(' '),
);

/** Frequent function words of other Latin-script languages (Indonesian/Malay, Spanish,
 * Portuguese, French, Italian, German, Dutch), without words English shares ("a", "in"). */
const OTHER_WORDS = new Set(
  (
    'yang dan di ke dari ini itu untuk dengan tidak ada akan pada juga atau dalam oleh sebagai ' +
    'adalah bisa karena saat lebih telah sudah hanya tersebut mereka kami kita jika ' +
    'el la los las del que y en un una por con para es se su al lo como más pero sus le ' +
    'les des du et est une dans pour qui sur pas au avec ce sont aux ou ' +
    'os da do em não um com uma dos ao das ' +
    'il di che per non sono della delle nel alla gli ' +
    'der das und ist nicht ein eine zu den von mit sich auf für dem des im auch werden wird ' +
    'het een van en niet zijn op te dat voor met ook'
  ).split(' '),
);

export interface LanguageAssessment {
  /** False when compromise (English only) will miss most entities of this text. */
  supported: boolean;
  /** Share of letters in the Latin script (1 for text without letters). */
  latinShare: number;
  /** Frequent English / other-language function words among the Latin words. */
  englishWords: number;
  otherWords: number;
  /** Why it is not supported, for the UI. */
  note?: string;
}

/**
 * Whether compromise can read this text. Mostly non-Latin letters → not supported. Latin text
 * where frequent function words of other languages (Indonesian, Spanish, French, German, …)
 * outnumber English ones, at least 3 of them → not supported either. Dense English with few
 * function words ("Williams beat Errani 4-6 7-6(3) 6-3.") stays supported.
 */
export function assessLanguage(text: string): LanguageAssessment {
  let letters = 0;
  let latin = 0;
  for (const m of text.matchAll(/\p{L}/gu)) {
    letters++;
    if (/\p{Script=Latin}/u.test(m[0])) latin++;
  }
  const latinShare = letters === 0 ? 1 : latin / letters;
  let englishWords = 0;
  let otherWords = 0;
  for (const [w] of text.toLowerCase().matchAll(/\p{Script=Latin}+/gu)) {
    if (ENGLISH_WORDS.has(w)) englishWords++;
    else if (OTHER_WORDS.has(w)) otherWords++;
  }
  const counts = { latinShare, englishWords, otherWords };
  if (latinShare < 0.5) {
    return {
      supported: false,
      ...counts,
      note: 'The text is mostly in a non-Latin script; compromise reads English only and finds mostly numbers here.',
    };
  }
  if (otherWords >= 3 && otherWords > englishWords) {
    return {
      supported: false,
      ...counts,
      note: 'The text does not look like English; compromise reads English only and finds mostly numbers and some capitalised names here.',
    };
  }
  return { supported: true, ...counts };
}
