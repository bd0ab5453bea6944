/**
 * The records of the model-backed offline metrics: entity density (NER) and local coherence
 * (sentence embeddings). The calculators are in their own modules; this wires them to a case.
 */
import { ref } from '../../i18n/message.ts';
import type { OfflineMetricRecord } from '../record.ts';
import { failed, notApplicable, withNotes } from '../results.ts';
import { catalogModel } from '../../models/catalog.ts';
import type { NerBackendChoice } from '../settings.ts';
import { caseLanguageOf } from '../text/case-tokenizer.ts';
import { isEnglishOrUnknown } from '../text/language.ts';
import { scoreCoherence, type CoherenceDetails } from './coherence.ts';
import { scoreEntityDensity, type EntityDensityDetails } from './entity-density.ts';
import { languageGate } from './language-gate.ts';
import shuffleReport from './order-model/shuffle-report.json';

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
  validity: { family: 'compromise', label: 'validity.row.entityDensity' },
  async compute({ input, settings, backends, signal, tokenizer }) {
    if (!backends.recognizer)
      return failed('entity-density', 'none', 'No entity recogniser here.', {});
    const language = caseLanguageOf(input);
    const ner = settings.backends.ner;
    // An English-only recogniser finds mostly numbers in other languages: no score rather than
    // an undercount that reads like a sparse summary.
    if (!isEnglishOrUnknown(language) && !readsEveryLanguage(ner)) {
      return notApplicable(
        'entity-density',
        nerBackendName(ner),
        ref('language.entityDensity.unsupported', { code: language }),
        { language },
      );
    }
    const recognizer = await backends.recognizer();
    const caseTokenizer = await tokenizer();
    return withNotes(
      await scoreEntityDensity(
        input.summary,
        recognizer,
        { ...settings.density, tokenize: caseTokenizer.tokens, tokenizerName: caseTokenizer.name },
        signal,
      ),
      recognizer.notes,
    );
  },
} satisfies OfflineMetricRecord;

/** True for a transformer NER model the catalog lists as multilingual. */
function readsEveryLanguage(ner: NerBackendChoice): boolean {
  return ner.kind === 'transformer' && catalogModel(ner.model)?.languages === 'multilingual';
}

/**
 * The backend an n/a names: the recogniser that would have run (compromise's version is not
 * read here: that would pull the library into the page's bundle).
 */
function nerBackendName(ner: NerBackendChoice): string {
  return ner.kind === 'transformer' ? ner.model : 'compromise';
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
  validity: { family: 'use-lite', label: 'validity.row.coherence' },
  async compute({ input, backends, signal }) {
    if (!backends.embedder) return failed('coherence', 'none', ref('semantic.noEmbedder'), {});
    const embedder = await backends.embedder();
    const gated = languageGate('coherence', input, embedder);
    if (gated) return withNotes(gated, embedder.notes);
    return withNotes(await scoreCoherence(input.summary, embedder, signal), embedder.notes);
  },
} satisfies OfflineMetricRecord;
