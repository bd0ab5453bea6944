/**
 * The record of extractiveness. Like the other source-based lexical metrics it needs no model and
 * no reference; `needs: 'reference'` names the lexical worker that hosts them (every worker gets
 * the whole case), so no model load delays it.
 */
import { extractivenessMessages } from './text.ts';
import { withSourcePrefix } from '../../text/source-prefix.ts';
import type { OfflineMetricRecord } from '../../record.ts';
import { scoreExtractiveness } from './extractiveness.ts';

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
  messages: extractivenessMessages,
  validity: { family: 'lexical', label: 'validity.row.extractiveness' },
  async compute({ input, tokenizer }) {
    const caseTokenizer = await tokenizer();
    return withSourcePrefix(input.source, (source) =>
      scoreExtractiveness(source, input.summary, caseTokenizer),
    );
  },
} satisfies OfflineMetricRecord;
