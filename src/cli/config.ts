/**
 * The CLI's config file (`--config FILE`, or sumlens.config.yaml / .yml / .json in the current
 * folder): the metrics to score and the assertions every row must pass. The vocabulary is
 * promptfoo's `assert:` list where it fits; src/lib/assertions/assertion.ts says where it differs.
 * Anything wrong in it is refused before a row is scored, with the file, the entry and the fix:
 * a gate that runs with half its checks dropped would pass what it was written to stop.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import {
  ASSERTION_ENTRY,
  AssertionError,
  assertionFromEntry,
  assertionKey,
  describeAssertion,
  type Assertion,
  type AssertionEntry,
} from '../lib/assertions/assertion.ts';
import { flagMetric } from '../lib/assertions/flags.ts';
import { readReasonOf, reasonOf } from './outputs.ts';

/** Looked for in this order in the current folder when --config is not given. */
export const DEFAULT_CONFIG_FILES = [
  'sumlens.config.yaml',
  'sumlens.config.yml',
  'sumlens.config.json',
] as const;

/** The top-level keys read; promptfoo's others (prompts, providers, tests) have no meaning here. */
const CONFIG_KEYS = ['metrics', 'assert', 'description'] as const;
const ENTRY_KEYS = Object.keys(ASSERTION_ENTRY.shape);

export class ConfigError extends Error {}

export interface CliConfig {
  /** The path as given or found, for messages. */
  file: string;
  /** As written (ids or the groups offline, judge); absent when the file names none. */
  metrics?: string[];
  assertions: Assertion[];
}

/** The file to read: --config, else the first default present, else none. */
export function configPath(explicit: string | undefined, cwd = process.cwd()): string | undefined {
  if (explicit !== undefined) return explicit;
  return DEFAULT_CONFIG_FILES.find((name) => existsSync(resolve(cwd, name)));
}

function parseText(file: string, text: string): unknown {
  if (/\.json$/iu.test(file)) {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new ConfigError(`${file}: not valid JSON (${reasonOf(error)}).`);
    }
  }
  try {
    return parseYaml(text) as unknown;
  } catch (error) {
    throw new ConfigError(`${file}: not valid YAML: ${oneLine(reasonOf(error))}`);
  }
}

/** Reads and checks a config file; `knownMetrics` are the ids this version scores. */
export function readConfig(
  file: string,
  knownMetrics: readonly string[],
  cwd = process.cwd(),
): CliConfig {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new ConfigError(`--config ${file}: cannot read it (${readReasonOf(error)}).`);
  }
  return configFromValue(file, parseText(file, text), knownMetrics);
}

/** The checks of readConfig on an already parsed value (tests call it without a file). */
export function configFromValue(
  file: string,
  value: unknown,
  knownMetrics: readonly string[],
): CliConfig {
  if (value === null || value === undefined) {
    throw new ConfigError(`${file} is empty: give "assert:" entries and/or "metrics:".`);
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(
      `${file}: expected a mapping with ${CONFIG_KEYS.join(', ')} at the top, not a ${Array.isArray(value) ? 'list' : typeof value}.`,
    );
  }
  const record = value as Record<string, unknown>;
  const unknownKeys = Object.keys(record).filter(
    (k) => !(CONFIG_KEYS as readonly string[]).includes(k),
  );
  if (unknownKeys.length > 0) {
    throw new ConfigError(
      `${file}: unknown key(s) ${unknownKeys.map((k) => `"${k}"`).join(', ')}. A SumLens config has ${CONFIG_KEYS.join(', ')}; it scores the summaries in the data set, so promptfoo's prompts, providers and tests have no place here.`,
    );
  }
  if (record.description !== undefined && typeof record.description !== 'string') {
    throw new ConfigError(`${file}: "description" must be text.`);
  }
  const metrics = metricsOf(file, record.metrics, knownMetrics);
  const assertList = record.assert ?? [];
  if (!Array.isArray(assertList)) {
    throw new ConfigError(
      `${file}: "assert" must be a list of entries ("- type: METRIC" with "threshold: NUMBER").`,
    );
  }
  const assertions = assertionsOf(
    assertList.map((entry, i) => ({ entry, where: `${file}, assert entry ${i + 1}` })),
    knownMetrics,
  );
  return { file, ...(metrics ? { metrics } : {}), assertions };
}

function metricsOf(
  file: string,
  value: unknown,
  knownMetrics: readonly string[],
): string[] | undefined {
  if (value === undefined) return undefined;
  const list =
    typeof value === 'string'
      ? value.split(',').map((s) => s.trim())
      : Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? (value as string[]).map((s) => s.trim())
        : undefined;
  if (!list || list.some((s) => s === '')) {
    throw new ConfigError(
      `${file}: "metrics" must be a list of metric ids, e.g. [support, quality-offline].`,
    );
  }
  const known = new Set([...knownMetrics, 'offline', 'judge']);
  const unknown = list.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new ConfigError(
      `${file}: unknown metric(s) ${unknown.join(', ')} in "metrics". Known: ${knownMetrics.join(', ')} (or the groups offline, judge).`,
    );
  }
  return list;
}

/** An entry's zod problems in words, naming the key to fix. */
function entryProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'not a valid entry';
  if (issue.code === 'unrecognized_keys') {
    return `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}; an entry has ${ENTRY_KEYS.join(', ')}`;
  }
  const key = issue.path.join('.');
  if (key === '') return `expected a mapping with ${ENTRY_KEYS.join(', ')}`;
  if (key === 'type') return '"type" must be a metric id, not-METRIC or not-flag';
  if (key === 'threshold') return '"threshold" must be a number';
  if (key === 'value') return '"value" must be a flag id (not-flag) or a number';
  return `"${key}": ${issue.message}`;
}

/** Entries (from a file or --assert) as assertions; refuses bad and repeated ones. */
export function assertionsOf(
  entries: ReadonlyArray<{ entry: unknown; where: string }>,
  knownMetrics: readonly string[],
): Assertion[] {
  const seen = new Map<string, string>();
  return entries.map(({ entry, where }) => {
    const parsed = ASSERTION_ENTRY.safeParse(entry);
    if (!parsed.success) throw new ConfigError(`${where}: ${entryProblem(parsed.error)}.`);
    let assertion: Assertion;
    try {
      assertion = assertionFromEntry(parsed.data, knownMetrics, where);
    } catch (error) {
      if (error instanceof AssertionError) throw new ConfigError(error.message);
      throw error;
    }
    const key = assertionKey(assertion);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new ConfigError(`${where} repeats ${earlier} (${describeAssertion(assertion)}).`);
    }
    seen.set(key, where);
    return assertion;
  });
}

/**
 * `--assert TYPE:THRESHOLD` (a metric, or not-METRIC for a ceiling) or `--assert not-flag=FLAG`:
 * one entry without a file, for a quick gate in a script.
 */
export function entryOfFlag(text: string): AssertionEntry | Record<string, unknown> {
  const eq = text.indexOf('=');
  if (eq >= 0) return { type: text.slice(0, eq), value: text.slice(eq + 1) };
  const colon = text.lastIndexOf(':');
  if (colon < 0) return { type: text };
  const threshold = text.slice(colon + 1).trim();
  return {
    type: text.slice(0, colon),
    // A non-number stays a string, which the entry's check refuses by name.
    threshold:
      threshold !== '' && Number.isFinite(Number(threshold)) ? Number(threshold) : threshold,
  };
}

/**
 * An assertion on a metric this run does not score would skip every row: refused, saying how to
 * add the metric. `not-flag` reads the flags of the metric that raises them (flags.ts).
 */
export function unscoredAssertion(
  assertions: readonly Assertion[],
  metrics: readonly string[],
): string | undefined {
  for (const a of assertions) {
    const needed = a.kind === 'no-flag' ? flagMetric(a.flag) : a.metric;
    if (!metrics.includes(needed)) {
      return `The assertion "${describeAssertion(a)}" needs ${needed}, which this run does not score: add it to --metrics (or the config's "metrics"). Nothing was scored.`;
    }
  }
  return undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}
