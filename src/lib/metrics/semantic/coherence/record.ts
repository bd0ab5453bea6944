/** The record of local coherence: the calculation (coherence.ts) on the case's sentence encoder. */
import { coherenceMessages } from './text.ts';
import { ref } from '../../../i18n/message.ts';
import type { OfflineMetricRecord } from '../../record.ts';
import { failed, withNotes } from '../../results.ts';
import { scoreCoherence, type CoherenceDetails } from './coherence.ts';
import { languageGate } from '../language-gate.ts';
import shuffleReport from '../order-model/shuffle-report.json';

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    coherence: CoherenceDetails;
  }
}

/** The shuffle test's share for one encoder and score, as `npm run measure:coherence` wrote it. */
export function shuffleShare(
  encoder: (typeof shuffleReport.rows)[number]['encoder'],
  score: 'order' | 'pairs' | 'adjacent' | 'n2',
): number {
  const row = shuffleReport.rows.find((r) => r.encoder === encoder);
  if (!row) throw new Error(`shuffle-report.json has no row for ${encoder}`);
  return row.share[score];
}

const percent = (x: number): string => `${Math.round(100 * x)}%`;

export const coherenceMetric = {
  kind: 'offline',
  info: {
    label: 'Local coherence',
    needs: 'embedding',
    meaning: `A sentence-order model trained on news articles: the mean probability that each sentence follows the one before, mixed with how well the order agrees with where such sentences usually sit (openings first). It sees order, ranking an article opening above its shuffled copy ${percent(shuffleShare('use-lite', 'order'))} of the time with USE-lite and ${percent(shuffleShare('glove', 'order'))} with GloVe (neighbour cosines: ${percent(shuffleShare('glove', 'adjacent'))}), but on SummEval's mostly extractive summaries it does not track expert coherence (Spearman ≈ 0). Embeddings without an order model score the mean neighbour cosine (−1 to 1).`,
    citation:
      'Sentence-order logistic model (SumLens); cosine baselines: Parola et al. 2023, Meta LCM 2024',
    // Probabilities [0, 1] with an order model, cosines [−1, 1] without: the result's
    // details.range says which.
    range: [-1, 1],
  },
  detailView: 'own',
  messages: coherenceMessages,
  validity: { family: 'use-lite', label: 'validity.row.coherence' },
  async compute({ input, backends, signal }) {
    if (!backends.embedder) return failed('coherence', 'none', ref('semantic.noEmbedder'), {});
    const embedder = await backends.embedder();
    const gated = languageGate('coherence', input, embedder);
    if (gated) return withNotes(gated, embedder.notes);
    return withNotes(await scoreCoherence(input.summary, embedder, signal), embedder.notes);
  },
} satisfies OfflineMetricRecord;
