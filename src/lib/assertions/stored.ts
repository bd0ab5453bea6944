/**
 * The page's assertions, kept on this device (localStorage: small, not sensitive, read at start):
 * one set for pasted cases (the single-case preset) and one per data set, keyed by its id. They are
 * stored as config entries (assertion.ts's promptfoo shape), so what the page holds is what a
 * sumlens.config.yaml says, and an entry this version no longer knows is dropped, not fatal.
 */
import { z } from 'zod';
import { defaultStorage, type StorageLike } from '../local-storage.ts';
import {
  ASSERTION_ENTRY,
  assertionFromEntry,
  assertionKey,
  entryOf,
  type Assertion,
} from './assertion.ts';

export const CHECKS_KEY = 'sumlens.checks.v1';

/** Which set: the pasted case's preset, or a data set's. */
export type ChecksScope = 'case' | { datasetId: string };

const storedSchema = z.object({
  case: z.array(z.unknown()).optional(),
  datasets: z.record(z.string(), z.array(z.unknown())).optional(),
});

type Stored = z.infer<typeof storedSchema>;

function readAll(storage: StorageLike | undefined): Stored {
  try {
    const parsed = storedSchema.safeParse(JSON.parse(storage?.getItem(CHECKS_KEY) ?? '{}'));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** The entries that still read as assertions of this version, without duplicates. */
export function assertionsFromEntries(
  entries: readonly unknown[],
  knownMetrics: readonly string[],
): Assertion[] {
  const out: Assertion[] = [];
  const seen = new Set<string>();
  for (const raw of entries) {
    const entry = ASSERTION_ENTRY.safeParse(raw);
    if (!entry.success) continue;
    try {
      const assertion = assertionFromEntry(entry.data, knownMetrics);
      const key = assertionKey(assertion);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(assertion);
    } catch {
      // an entry of a metric this version no longer has
    }
  }
  return out;
}

export function loadChecks(
  scope: ChecksScope,
  knownMetrics: readonly string[],
  storage = defaultStorage(),
): Assertion[] {
  const all = readAll(storage);
  const entries = scope === 'case' ? all.case : all.datasets?.[scope.datasetId];
  return assertionsFromEntries(entries ?? [], knownMetrics);
}

/** Saves one set; false when the browser refused (storage full or disabled). */
export function saveChecks(
  scope: ChecksScope,
  assertions: readonly Assertion[],
  storage = defaultStorage(),
): boolean {
  const all = readAll(storage);
  const entries = assertions.map(entryOf);
  if (scope === 'case') all.case = entries;
  else {
    all.datasets = { ...all.datasets };
    if (entries.length === 0) delete all.datasets[scope.datasetId];
    else all.datasets[scope.datasetId] = entries;
  }
  try {
    storage?.setItem(CHECKS_KEY, JSON.stringify(all));
    return storage !== undefined;
  } catch {
    return false;
  }
}
