/**
 * The record of entity density: the NER-backed calculation (entity-density.ts) wired to a case,
 * with no score where the recogniser cannot read the case's language.
 */
import { entityDensityMessages } from './text.ts';
import { ref } from '../../../i18n/message.ts';
import type { OfflineMetricRecord } from '../../record.ts';
import { failed, notApplicable, withNotes } from '../../results.ts';
import { catalogModel } from '../../../models/catalog.ts';
import type { NerBackendChoice } from '../../settings.ts';
import { caseLanguageOf } from '../../text/case-tokenizer.ts';
import { isEnglishOrUnknown } from '../../text/language.ts';
import { scoreEntityDensity, type EntityDensityDetails } from './entity-density.ts';

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    'entity-density': EntityDensityDetails;
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
  messages: entityDensityMessages,
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
