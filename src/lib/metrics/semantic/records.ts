/**
 * The records of the model-backed offline metrics: entity density (NER) and local coherence
 * (sentence embeddings). The calculators are in their own modules; this wires them to a case.
 */
import type { OfflineMetricRecord } from '../record.ts';
import { failed, withNotes } from '../results.ts';
import { scoreCoherence, type CoherenceDetails } from './coherence.ts';
import { scoreEntityDensity, type EntityDensityDetails } from './entity-density.ts';

declare module '../types.ts' {
  interface OfflineMetricDetails {
    'entity-density': EntityDensityDetails;
    coherence: CoherenceDetails;
  }
}

export const entityDensityMetric = {
  kind: 'offline',
  info: {
    label: 'Entity density',
    needs: 'ner',
    meaning:
      'Named entities, dates, numbers and amounts per token, scored against the 0.15 that people preferred in Chain-of-Density; it measures how packed with specifics the summary is, not whether they are right.',
    citation: 'Adams et al. 2023, From Sparse to Dense (Chain of Density)',
    range: [0, 1],
  },
  detailView: 'own',
  async compute({ input, settings, backends, signal }) {
    if (!backends.recognizer)
      return failed('entity-density', 'none', 'No entity recogniser here.', {});
    const recognizer = await backends.recognizer();
    return withNotes(
      await scoreEntityDensity(input.summary, recognizer, settings.density, signal),
      recognizer.notes,
    );
  },
} satisfies OfflineMetricRecord;

export const coherenceMetric = {
  kind: 'offline',
  info: {
    label: 'Local coherence',
    needs: 'embedding',
    meaning:
      'Mean cosine similarity of each sentence with the one two places later: it tells whether sentences stay on one topic, not whether people find the summary coherent (on SummEval it does not track expert coherence, Spearman ≈ 0; it ranks an article above its shuffled copy 57% of the time).',
    citation: 'Parola et al. 2023, as used in Meta LCM 2024',
    range: [-1, 1],
  },
  detailView: 'own',
  async compute({ input, backends, signal }) {
    if (!backends.embedder) return failed('coherence', 'none', 'No embedding backend here.', {});
    const embedder = await backends.embedder();
    return withNotes(await scoreCoherence(input.summary, embedder, signal), embedder.notes);
  },
} satisfies OfflineMetricRecord;
