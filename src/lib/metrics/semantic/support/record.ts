/**
 * The record of source support, one of the encoder alignment metrics (sentence-alignment.ts embeds the
 * source once per case for all three); an encoder that cannot read the case's language makes it n/a.
 */
import { supportMessages } from './text.ts';
import { ref } from '../../../i18n/message.ts';
import type { OfflineMetricRecord } from '../../record.ts';
import { failed, withNotes } from '../../results.ts';
import { languageGate } from '../language-gate.ts';
import { scoreSupport, type SupportDetails } from './support.ts';

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    support: SupportDetails;
  }
}

export const supportMetric = {
  kind: 'offline',
  info: {
    label: 'Source support',
    needs: 'embedding',
    meaning:
      'Mean cosine of each summary sentence with its closest source sentence; sentences with no close source sentence are flagged as a risk to check, not as false (a close match can still change a fact). SummEval: Spearman ≈ 0.25–0.33 with expert consistency.',
    citation:
      "Best-match sentence cosine under the case's sentence encoder (this project's variant)",
    range: [-1, 1],
  },
  detailView: 'own',
  messages: supportMessages,
  validity: { family: 'use-lite', label: 'validity.row.support' },
  async compute({ input, backends, signal }) {
    if (!backends.embedder) return failed('support', 'none', ref('semantic.noEmbedder'), {});
    const embedder = await backends.embedder();
    const gated = languageGate('support', input, embedder);
    if (gated) return withNotes(gated, embedder.notes);
    return withNotes(await scoreSupport(input, embedder, signal), embedder.notes);
  },
} satisfies OfflineMetricRecord;
