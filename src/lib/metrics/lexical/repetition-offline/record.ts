/** The record of offline repetition (repetition.ts). */
import { repetitionOfflineMessages } from './text.ts';
import { messageOf } from '../../../errors.ts';
import { englishRef, ref, type MessageRef } from '../../../i18n/message.ts';
import type { OfflineMetricRecord } from '../../record.ts';
import { isAbort, withNotes } from '../../results.ts';
import type { SentenceEmbedder } from '../../semantic/backends.ts';
import { languageUnsupportedRef, unreadableLanguage } from '../../semantic/language-gate.ts';
import { scoreRepetition, type RepetitionDetails } from './repetition.ts';

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    'repetition-offline': RepetitionDetails;
  }
}

export const repetitionOfflineMetric = {
  kind: 'offline',
  info: {
    label: 'Repetition (offline)',
    needs: 'embedding',
    meaning:
      '1 − the share of words that repeat a phrase of two or more words said earlier in the summary (1 = no repeats); no model. Chosen on SummEval dev, where it tracks expert coherence at summary-level Spearman 0.36 and fluency at 0.33. It sees word-for-word repeats only, not paraphrases, and long texts repeat common word pairs more.',
    citation: 'SumLens; distinct-n after Li et al. 2016, measured on SummEval (Fabbri et al. 2021)',
    range: [0, 1],
  },
  detailView: 'own',
  messages: repetitionOfflineMessages,
  validity: { family: 'lexical', label: 'validity.row.repetition' },
  async compute({ input, backends, signal, tokenizer }) {
    // The score is lexical; the embedder only adds the most similar sentence pair, so a backend
    // that cannot load costs that pair, not the score.
    let embedder: SentenceEmbedder | undefined;
    let loadNote: MessageRef | undefined;
    if (backends.embedder) {
      try {
        embedder = await backends.embedder();
      } catch (error) {
        if (isAbort(error)) throw error;
        loadNote = ref('lexical.repetition.embedderDidNotLoad', { error: messageOf(error) });
      }
    }
    // An encoder that cannot read the text would name a meaningless pair: the pair is left out
    // and the note says why; the lexical score stands.
    const unreadable = embedder && unreadableLanguage(input, embedder);
    const languageNote =
      embedder && unreadable
        ? languageUnsupportedRef(embedder.backend, unreadable.language)
        : undefined;
    const caseTokenizer = await tokenizer();
    const result = await scoreRepetition(
      input.summary,
      languageNote ? undefined : embedder,
      signal,
      caseTokenizer,
    );
    if (languageNote && result.status === 'ok' && result.details.sentences.length >= 2) {
      result.details.embeddingNote ??= englishRef(languageNote);
    }
    return withNotes(result, [
      ...(embedder?.notes ?? []),
      ...(loadNote ? [loadNote] : []),
      ...(languageNote ? [languageNote] : []),
    ]);
  },
} satisfies OfflineMetricRecord;
