/**
 * The records of the lexical offline metrics: the six reference metrics, computed together by one
 * shared calculator (one tokenisation, one word segmenter per case), offline repetition, and the
 * source-based lexical metrics (extractiveness, source coverage, the offline quality estimate).
 * Those three need no model and no reference; `needs: 'reference'` names the lexical worker that
 * hosts them (every worker gets the whole case, source included), so no model load delays them.
 */
import { messageOf } from '../../errors.ts';
import { englishRef, ref, type MessageRef } from '../../i18n/message.ts';
import type { OfflineMetricRecord, SharedOfflineCalculator } from '../record.ts';
import { isAbort, withNotes } from '../results.ts';
import type { SentenceEmbedder } from '../semantic/backends.ts';
import { throwIfAborted } from '../semantic/backends.ts';
import { languageUnsupportedRef, unreadableLanguage } from '../semantic/language-gate.ts';
import type { MetricResult } from '../types.ts';
import { scoreReferenceMetrics } from './reference-metrics.ts';
import { isReferenceMetricId } from './reference-types.ts';
import { sourcePrefix, sourcePrefixNote } from '../text/source-prefix.ts';
import { scoreExtractiveness } from './extractiveness.ts';
import { summaryNames } from './fact-check-record.ts';
import { scoreQuality } from './quality.ts';
import { scoreRepetition, type RepetitionDetails } from './repetition.ts';
import { scoreSourceCoverage } from './source-coverage.ts';

declare module '../types.ts' {
  interface OfflineMetricDetails {
    'repetition-offline': RepetitionDetails;
  }
}

/** ROUGE-1/2/L/Lsum, BLEU and token F1 in one pass (reference-metrics.ts), on the case's tokenizer. */
export const referenceCalculator: SharedOfflineCalculator = {
  backend: 'reference metrics',
  async computeAll(run, wanted) {
    // Without a reference nothing is tokenized, so the Chinese segmenter is not loaded for it.
    const caseTokenizer =
      (run.input.reference ?? '').trim() === '' ? undefined : await run.tokenizer();
    throwIfAborted(run.signal);
    const rouge = run.settings.rouge;
    return scoreReferenceMetrics(run.input, {
      useStemmer: rouge.useStemmer,
      lsumSplitSentences: rouge.lsumSplitSentences,
      tokenizer: rouge.tokenizer,
      caseTokenizer,
      only: wanted.filter(isReferenceMetricId),
    });
  },
};

const ROUGE_CITATION = 'Lin 2004; Google rouge_score 0.1.2';

/** A reference metric: all six share the calculator, the need and (but BLEU) the 0–1 range. */
function referenceMetric(
  label: string,
  meaning: string,
  citation = ROUGE_CITATION,
  range: [number, number] = [0, 1],
) {
  return {
    kind: 'offline',
    info: { label, needs: 'reference', meaning, citation, range },
    detailView: 'own',
    compute: referenceCalculator,
  } satisfies OfflineMetricRecord;
}

export const rouge1Metric = referenceMetric(
  'ROUGE-1',
  'Unigram overlap with the reference summary (F-measure); word overlap, not meaning.',
);
// The ROUGE variants' details have one shape, shown by ROUGE-1's view.
export const rouge2Metric = {
  ...referenceMetric(
    'ROUGE-2',
    'Bigram overlap with the reference summary (F-measure); rewards shared phrasing.',
  ),
  detailView: { sameAs: 'rouge-1' },
} satisfies OfflineMetricRecord;
export const rougeLMetric = {
  ...referenceMetric(
    'ROUGE-L',
    'Longest common subsequence with the reference (F-measure); rewards the same words in the same order.',
  ),
  detailView: { sameAs: 'rouge-1' },
} satisfies OfflineMetricRecord;
export const rougeLsumMetric = {
  ...referenceMetric(
    'ROUGE-Lsum',
    'Summary-level LCS: each reference sentence against the union of LCS hits over all summary sentences (F-measure).',
  ),
  detailView: { sameAs: 'rouge-1' },
} satisfies OfflineMetricRecord;
export const bleuMetric = referenceMetric(
  'BLEU',
  'Smoothed sentence BLEU against the reference (0–100, sacrebleu); n-gram precision with a brevity penalty, built for translation.',
  'Papineni et al. 2002; sacrebleu 2.x (13a, exp smoothing)',
  [0, 100],
);
export const tokenF1Metric = referenceMetric(
  'Token F1',
  'Bag-of-words F1 with the reference after SQuAD normalisation (CJK split into words); order is ignored.',
  'Rajpurkar et al. 2016 (SQuAD); LongBench qa_f1',
);

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

/** A lexical source metric on the source's first LEXICAL_SOURCE_CHARS characters, saying so. */
function withSourcePrefix<R extends MetricResult>(source: string, score: (source: string) => R): R {
  const prefix = sourcePrefix(source);
  const note = sourcePrefixNote(prefix);
  return withNotes(score(prefix.text), note ? [note] : undefined);
}

export const extractivenessMetric = {
  kind: 'offline',
  info: {
    label: 'Extractiveness',
    needs: 'reference',
    meaning:
      "Share of the summary's words inside fragments copied from the source (Newsroom fragment coverage; density and novel n-grams in the details): it describes copying versus rewriting, not quality.",
    citation: 'Grusky et al. 2018, Newsroom (extractive fragments)',
    range: [0, 1],
  },
  detailView: 'own',
  validity: { family: 'lexical', label: 'validity.row.extractiveness' },
  async compute({ input, tokenizer }) {
    const caseTokenizer = await tokenizer();
    return withSourcePrefix(input.source, (source) =>
      scoreExtractiveness(source, input.summary, caseTokenizer),
    );
  },
} satisfies OfflineMetricRecord;

export const sourceCoverageMetric = {
  kind: 'offline',
  info: {
    label: 'Source coverage',
    needs: 'reference',
    meaning:
      "Share of the source's 10 most frequent content words (stemmed) that the summary uses, plus which of its first three sentences it covers; it checks topic words, not whether the summary says the right things about them.",
    citation: 'SumLens; salient-word recall, measured on SummEval (Fabbri et al. 2021)',
    range: [0, 1],
  },
  detailView: 'own',
  validity: { family: 'lexical', label: 'validity.row.sourceCoverage' },
  async compute({ input, tokenizer }) {
    const caseTokenizer = await tokenizer();
    return withSourcePrefix(input.source, (source) =>
      scoreSourceCoverage(source, input.summary, caseTokenizer),
    );
  },
} satisfies OfflineMetricRecord;

export const qualityOfflineMetric = {
  kind: 'offline',
  info: {
    label: 'Quality estimate (offline)',
    needs: 'reference',
    meaning:
      "One estimate per dimension — faithfulness (fact check, words found in the source), coverage (the source's salient content) and coherence (repetition, order, a cut-off ending) — fit on pairs of summaries of one source across several human-rated data sets; no ingredient rewards copying. The score is Φ of the mean standardised estimate (0.5 = an average real summary), capped at 0.2 for a degenerate summary (a word or two, a copy of the source's opening, a cut-off or repeated sentence). It ranks summaries of one source; it does not grade.",
    citation:
      'SumLens; pairwise fit on SummEval, QAGS and SummEdits, validated leaving one data set out; Nan et al. 2021; Steen & Markert 2022',
    range: [0, 1],
  },
  detailView: 'own',
  validity: { family: 'lexical', label: 'validity.row.quality' },
  async compute({ input, tokenizer, signal }) {
    const caseTokenizer = await tokenizer();
    const names = await summaryNames(input, caseTokenizer.language, signal);
    return withSourcePrefix(input.source, (source) =>
      scoreQuality(source, input.summary, caseTokenizer, names),
    );
  },
} satisfies OfflineMetricRecord;
