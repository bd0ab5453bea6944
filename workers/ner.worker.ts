/// <reference lib="webworker" />
/** Hosts the NER-based metrics (entity density) on the built-in compromise recogniser. */
import { CompromiseRecognizer } from '../src/lib/metrics/semantic/compromise-ner.ts';
import { lazy } from '../src/lib/lazy.ts';
import { serveMetrics } from './host.ts';

const recognizer = lazy(async () => new CompromiseRecognizer());

serveMetrics({
  backends() {
    return { recognizer };
  },
  async warmUp(report) {
    report({ stage: 'loading entity recogniser' });
    const ner = await recognizer();
    // The first parse compiles compromise's lexicon; do it now rather than on the user's text.
    await ner.recognize('Warm-up: Ada Lovelace met Charles Babbage in London on 5 June 1833.');
  },
});
