/**
 * Node-only: the rated summaries of every vendored data set with their quality signals, computed
 * once and kept on disk (.cache/quality-signals/) keyed by the code that computes them, so the
 * fit and the validity report do not recompute ~8,000 fact checks on every run.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { qualitySignals } from '../metrics/lexical/quality-offline/quality-features.ts';
import { gamingFlags } from '../metrics/lexical/quality-offline/quality.ts';
import { sourcePrefix } from '../metrics/text/source-prefix.ts';
import { CompromiseRecognizer } from '../metrics/semantic/compromise-ner.ts';
import { repoRoot } from './external-data.ts';
import type { FitSample } from './quality-fit.ts';
import { readRatedSets, type RatedSummary } from './validity/rated-sets.ts';

/** The files whose code decides the signals: a change to any of them recomputes. */
const SIGNAL_CODE = [
  'src/lib/metrics/lexical/quality-offline/quality-features.ts',
  'src/lib/metrics/lexical/fact-check/fact-check-numbers.ts',
  'src/lib/metrics/lexical/fact-check/number-words.ts',
  'src/lib/metrics/lexical/fact-check/dates.ts',
  'src/lib/metrics/semantic/compromise-ner.ts',
  'src/lib/metrics/lexical/quality-offline/quality.ts',
  'src/lib/metrics/lexical/fact-check/fact-check.ts',
  'src/lib/metrics/lexical/fact-check/fact-tokens.ts',
  'src/lib/metrics/lexical/fact-check/names.ts',
  'src/lib/metrics/lexical/fact-check/source-index.ts',
  'src/lib/metrics/lexical/fact-check/candidates.ts',
  'src/lib/metrics/lexical/fact-check/lookups.ts',
  'src/lib/metrics/lexical/fact-check/closest.ts',
  'src/lib/metrics/text/aligner.ts',
  'src/lib/metrics/lexical/source-coverage/source-coverage.ts',
  'src/lib/metrics/lexical/extractiveness/extractiveness.ts',
];

export interface QualitySample extends FitSample {
  /** The degenerate-summary guards that fired (quality.ts). */
  flags: string[];
  /** Fact-check score (null: no checkable fact stated). */
  factCheck: number | null;
}

function codeHash(): string {
  const hash = createHash('sha256');
  for (const file of SIGNAL_CODE) {
    const path = resolve(repoRoot, file);
    hash.update(existsSync(path) ? readFileSync(path) : file);
  }
  return hash.digest('hex').slice(0, 16);
}

async function sampleOf(
  row: RatedSummary,
  recognizer: CompromiseRecognizer,
): Promise<QualitySample> {
  const source = sourcePrefix(row.source).text;
  // Every vendored set is English: compromise's names, as the page reads them.
  const names = await recognizer.recognize(row.summary);
  const signals = qualitySignals(source, row.summary, undefined, undefined, {
    names,
    namesBackend: recognizer.backend,
  });
  const flags = gamingFlags(source, signals.analysis).map((f) => f.id);
  return {
    family: row.family,
    dataset: row.dataset,
    group: row.group,
    ...(row.system === undefined ? {} : { system: row.system }),
    features: signals.features,
    human: row.human,
    binary: row.binary,
    flags,
    factCheck: signals.facts.total > 0 ? signals.facts.found / signals.facts.total : null,
  };
}

export async function qualitySamples(
  onProgress?: (done: number, total: number) => void,
): Promise<QualitySample[]> {
  const rows = readRatedSets();
  const dir = resolve(repoRoot, '.cache/quality-signals');
  const file = resolve(dir, `${codeHash()}.json`);
  if (existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as QualitySample[];
    if (cached.length === rows.length) return cached;
  }
  const samples: QualitySample[] = [];
  const recognizer = new CompromiseRecognizer({ cacheSize: 16 });
  for (const [i, row] of rows.entries()) {
    samples.push(await sampleOf(row, recognizer));
    onProgress?.(i + 1, rows.length);
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(samples));
  return samples;
}
