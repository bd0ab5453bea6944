/**
 * The records of the six reference metrics (ROUGE-1/2/L/Lsum, BLEU, token F1): one shared
 * calculator scores them in one pass (one tokenisation, one word segmenter per case).
 */
import { referenceMessages } from './text.ts';
import type { OfflineMetricRecord, SharedOfflineCalculator } from '../../record.ts';
import { throwIfAborted } from '../../semantic/backends.ts';
import { scoreReferenceMetrics } from './reference-metrics.ts';
import { isReferenceMetricId } from './reference-types.ts';

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

// The six share one calculator, so its messages are given once, by ROUGE-1.
export const rouge1Metric = {
  ...referenceMetric(
    'ROUGE-1',
    'Unigram overlap with the reference summary (F-measure); word overlap, not meaning.',
  ),
  messages: referenceMessages,
} satisfies OfflineMetricRecord;
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
