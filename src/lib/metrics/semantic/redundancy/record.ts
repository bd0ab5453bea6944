/**
 * The record of redundancy, one of the encoder alignment metrics (sentence-alignment.ts embeds the
 * source once per case for all three); an encoder that cannot read the case's language makes it n/a.
 */
import { redundancyMessages } from './text.ts';
import { ref } from '../../../i18n/message.ts';
import type { OfflineMetricRecord } from '../../record.ts';
import { failed, withNotes } from '../../results.ts';
import { languageGate } from '../language-gate.ts';
import { scoreRedundancy, type RedundancyDetails } from './redundancy.ts';

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    redundancy: RedundancyDetails;
  }
}

export const redundancyMetric = {
  kind: 'offline',
  info: {
    label: 'Redundancy (encoder)',
    needs: 'embedding',
    meaning:
      '1 − the cosine of the two most alike summary sentences (higher = less repeated): it catches a thing said twice in other words, which shared-word repetition misses, but two sentences on one topic can be alike without repeating (SummEval: Spearman ≈ 0.2 with expert coherence).',
    citation:
      "Largest pairwise sentence cosine under the case's sentence encoder (this project's variant)",
    range: [0, 1],
  },
  detailView: 'own',
  messages: redundancyMessages,
  validity: { family: 'use-lite', label: 'validity.row.redundancy' },
  async compute({ input, backends, signal }) {
    if (!backends.embedder) return failed('redundancy', 'none', ref('semantic.noEmbedder'), {});
    const embedder = await backends.embedder();
    const gated = languageGate('redundancy', input, embedder);
    if (gated) return withNotes(gated, embedder.notes);
    return withNotes(await scoreRedundancy(input.summary, embedder, signal), embedder.notes);
  },
} satisfies OfflineMetricRecord;
