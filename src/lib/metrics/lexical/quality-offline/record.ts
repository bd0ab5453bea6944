/** The record of the offline quality estimate (quality.ts; the lexical worker, no model). */
import { qualityOfflineMessages } from './text.ts';
import { withSourcePrefix } from '../../text/source-prefix.ts';
import type { OfflineMetricRecord } from '../../record.ts';
import { summaryNames } from '../fact-check/record.ts';
import { scoreQuality } from './quality.ts';

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
  messages: qualityOfflineMessages,
  validity: { family: 'lexical', label: 'validity.row.quality' },
  async compute({ input, tokenizer, signal }) {
    const caseTokenizer = await tokenizer();
    const names = await summaryNames(input, caseTokenizer.language, signal);
    return withSourcePrefix(input.source, (source) =>
      scoreQuality(source, input.summary, caseTokenizer, names),
    );
  },
} satisfies OfflineMetricRecord;
