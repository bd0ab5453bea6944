/**
 * The record of the offline fact check (fact-check.ts). `needs: 'reference'` names the lexical
 * worker, which hosts the source-only lexical metrics too: no encoder, no key. compromise (English
 * names) is imported on first use, and only for English cases, so that other cases and the other
 * lexical metrics never load its lexicon.
 */
import { factCheckMessages } from './text.ts';
import type { OfflineMetricRecord } from '../../record.ts';
import { isAbort } from '../../results.ts';
import { throwIfAborted } from '../../semantic/backends.ts';
import type { TextSpan } from '../../types.ts';
import { scoreFactCheck, type FactCheckDetails } from './fact-check.ts';

declare module '../../types.ts' {
  interface OfflineMetricDetails {
    'fact-check': FactCheckDetails;
  }
}

interface Recognizer {
  backend: string;
  recognize(text: string, signal?: AbortSignal): Promise<TextSpan[]>;
}

let compromise: Promise<Recognizer> | undefined;

/**
 * compromise, loaded once per worker (a small parse cache: the summary is all it reads). The CLI
 * hands the same one to entity density, which reads the summary too: one parse per summary, not
 * two (compromise took about 30% of a SummEval row's time).
 */
export function loadCompromise(): Promise<Recognizer> {
  compromise ??= import('../../semantic/compromise-ner.ts').then(
    ({ CompromiseRecognizer }) => new CompromiseRecognizer({ cacheSize: 16 }),
  );
  return compromise;
}

/**
 * compromise's names in the summary of an English case (the fact check and the quality estimate
 * read the same ones); none for other languages, or when compromise fails to load.
 */
export async function summaryNames(
  input: { source: string; summary: string },
  language: string,
  signal?: AbortSignal,
): Promise<{ names?: readonly TextSpan[]; namesBackend?: string }> {
  if (language !== 'en' || input.source.trim() === '') return {};
  try {
    const recognizer = await loadCompromise();
    const names = await recognizer.recognize(input.summary, signal);
    return { names, namesBackend: recognizer.backend };
  } catch (error) {
    // Without compromise the capitalised names and acronyms still run; the backend says so.
    if (isAbort(error)) throw error;
    compromise = undefined;
    return {};
  }
}

export const factCheckMetric = {
  kind: 'offline',
  info: {
    label: 'Fact check (offline)',
    needs: 'reference',
    meaning:
      "Share of the summary's numbers, dates, names and quotes that the source has (normalised: 8,480 = 8 480, two million = 2,000,000, a surname = the full name, an acronym = its expansion; rounding only after a hedge such as “about”); each one missing is flagged with the closest source mention. It checks the specifics, not what the summary says about them.",
    citation: 'Nan et al. 2021, entity-level factual consistency (precision); SumLens',
    range: [0, 1],
  },
  detailView: 'own',
  messages: factCheckMessages,
  validity: { family: 'lexical', label: 'validity.row.factCheck' },
  async compute({ input, tokenizer, signal }) {
    const caseTokenizer = await tokenizer();
    throwIfAborted(signal);
    const names = await summaryNames(input, caseTokenizer.language, signal);
    throwIfAborted(signal);
    return scoreFactCheck(input.source, input.summary, { tokenizer: caseTokenizer, ...names });
  },
} satisfies OfflineMetricRecord;
