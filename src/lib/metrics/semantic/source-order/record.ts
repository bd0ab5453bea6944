/**
 * The record of source order, one of the encoder alignment metrics (sentence-alignment.ts embeds the
 * source once per case for all three); an encoder that cannot read the case's language makes it n/a.
 */
import { sourceOrderMessages } from './text.ts';
import { ref } from '../../../i18n/message.ts';
import type { OfflineMetricRecord } from '../../record.ts';
import { failed, withNotes } from '../../results.ts';
import { languageGate } from '../language-gate.ts';
import { scoreSourceOrder, type SourceOrderDetails } from './source-order.ts';

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    'source-order': SourceOrderDetails;
  }
}

export const sourceOrderMetric = {
  kind: 'offline',
  info: {
    label: 'Source order',
    needs: 'embedding',
    meaning:
      "Whether the summary tells things in the source's order: each sentence is aligned to its closest source sentence and Kendall τ of those positions is mapped to 0–1 (1 = source order, 0.5 = unrelated, 0 = reversed); a summary may reorder for good reasons (SummEval: Spearman ≈ 0.2 with expert coherence).",
    citation:
      'Sentence alignment with a sentence encoder; Kendall τ-b (Lapata 2006, order evaluation)',
    range: [0, 1],
  },
  detailView: 'own',
  messages: sourceOrderMessages,
  validity: { family: 'use-lite', label: 'validity.row.sourceOrder' },
  async compute({ input, backends, signal }) {
    if (!backends.embedder) return failed('source-order', 'none', ref('semantic.noEmbedder'), {});
    const embedder = await backends.embedder();
    const gated = languageGate('source-order', input, embedder);
    if (gated) return withNotes(gated, embedder.notes);
    return withNotes(await scoreSourceOrder(input, embedder, signal), embedder.notes);
  },
} satisfies OfflineMetricRecord;
