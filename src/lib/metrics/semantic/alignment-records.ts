/**
 * The records of the encoder alignment metrics: source order, source support and redundancy. They
 * embed the case's sentences through sentence-alignment.ts, so the source is embedded once per
 * case for all three. An encoder that cannot read the case's language makes them n/a
 * (language-gate.ts).
 */
import { ref } from '../../i18n/message.ts';
import type { OfflineMetricRecord } from '../record.ts';
import { failed, withNotes } from '../results.ts';
import { languageGate } from './language-gate.ts';
import { scoreRedundancy, type RedundancyDetails } from './redundancy.ts';
import { scoreSourceOrder, type SourceOrderDetails } from './source-order.ts';
import { scoreSupport, type SupportDetails } from './support.ts';

declare module '../types.ts' {
  interface OfflineMetricDetails {
    'source-order': SourceOrderDetails;
    support: SupportDetails;
    redundancy: RedundancyDetails;
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
  validity: { family: 'use-lite', label: 'validity.row.sourceOrder' },
  async compute({ input, backends, signal }) {
    if (!backends.embedder) return failed('source-order', 'none', ref('semantic.noEmbedder'), {});
    const embedder = await backends.embedder();
    const gated = languageGate('source-order', input, embedder);
    if (gated) return withNotes(gated, embedder.notes);
    return withNotes(await scoreSourceOrder(input, embedder, signal), embedder.notes);
  },
} satisfies OfflineMetricRecord;

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
  validity: { family: 'use-lite', label: 'validity.row.support' },
  async compute({ input, backends, signal }) {
    if (!backends.embedder) return failed('support', 'none', ref('semantic.noEmbedder'), {});
    const embedder = await backends.embedder();
    const gated = languageGate('support', input, embedder);
    if (gated) return withNotes(gated, embedder.notes);
    return withNotes(await scoreSupport(input, embedder, signal), embedder.notes);
  },
} satisfies OfflineMetricRecord;

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
  validity: { family: 'use-lite', label: 'validity.row.redundancy' },
  async compute({ input, backends, signal }) {
    if (!backends.embedder) return failed('redundancy', 'none', ref('semantic.noEmbedder'), {});
    const embedder = await backends.embedder();
    const gated = languageGate('redundancy', input, embedder);
    if (gated) return withNotes(gated, embedder.notes);
    return withNotes(await scoreRedundancy(input.summary, embedder, signal), embedder.notes);
  },
} satisfies OfflineMetricRecord;
