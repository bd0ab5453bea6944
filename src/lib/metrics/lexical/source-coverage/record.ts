/** The record of source coverage (a source-based lexical metric: no model, the lexical worker). */
import { sourceCoverageMessages } from './text.ts';
import { withSourcePrefix } from '../../text/source-prefix.ts';
import type { OfflineMetricRecord } from '../../record.ts';
import { scoreSourceCoverage } from './source-coverage.ts';

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
  messages: sourceCoverageMessages,
  validity: { family: 'lexical', label: 'validity.row.sourceCoverage' },
  async compute({ input, tokenizer }) {
    const caseTokenizer = await tokenizer();
    return withSourcePrefix(input.source, (source) =>
      scoreSourceCoverage(source, input.summary, caseTokenizer),
    );
  },
} satisfies OfflineMetricRecord;
